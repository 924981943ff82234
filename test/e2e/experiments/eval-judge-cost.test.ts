/**
 * The judge's cost is null, not 0, when no price is set: a cost nobody priced
 * is not known (README "Judge settings"), as the pipeline's own cost without a
 * price is null. `ragscope eval` with an LLM judge (a local fake
 * OpenAI-compatible endpoint answering with usage 120 prompt + 30 completion
 * tokens) over one case, twice:
 * - RAGSCOPE_JUDGE_*_PRICE_PER_1K unset → the judged result's stored
 *   `judge_cost` is null (--output JSON, read back from the store), its tokens
 *   counted; the terminal's judge_cost row is n/a over no value, never 0;
 * - prices 2 and 4 per 1,000 tokens → judge_cost = 0.12 × 2 + 0.03 × 4 =
 *   0.36 per call (by hand).
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { reply, startFakeChatCompletionsServer, type FakeChatCompletionsServer } from "../../support/fake-chat-completions-server.js";
import { runRagscope, tasksFolder } from "./support/run-ragscope.js";

let folder: string;
let judge: FakeChatCompletionsServer;

const evidence = "Express delivery costs 12 euros.";
const dataset = {
  dataset_id: "judge_cost",
  dataset_version: "1",
  cases: [
    {
      case_id: "c_price",
      case_version: "1",
      input: "What does express delivery cost?",
      reference_answer: evidence,
      gold_evidence: [{ document_id: "prices", chunk_id: "price-1", text: evidence }],
      metadata: { retrieve: [{ chunk: "price-1", document: "prices", text: evidence }], answer: evidence },
    },
  ],
};

before(async () => {
  folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-judge-cost-"));
  await writeFile(path.join(folder, "cases.json"), JSON.stringify(dataset));
  judge = await startFakeChatCompletionsServer();
  judge.respondWith((request) => {
    const labels = [...request.user.matchAll(/<<<DOCUMENT id="(D\d+)">>>/g)].map((match) => match[1]!);
    // answer_relevance's prompt holds no documents: its own verdict, at the same usage.
    if (labels.length === 0) return reply.json({ score: 3, irrelevant_parts: [], reason: "answers it", confidence: "high" }, { promptTokens: 120, completionTokens: 30 });
    return reply.json({ documents: labels.map((id) => ({ id, relevant: true })), reason: "the price chunk answers it", confidence: "high" }, { promptTokens: 120, completionTokens: 30 });
  });
});

after(async () => {
  await judge.close();
  await rm(folder, { recursive: true, force: true });
});

async function judgedRun(runId: string, prices: Record<string, string>, metrics = "context_precision_judged") {
  const output = path.join(folder, `${runId}.json`);
  const environment = { RAGSCOPE_JUDGE_BASE_URL: judge.baseUrl, RAGSCOPE_JUDGE_MODEL: "fake-judge", RAGSCOPE_JUDGE_API_KEY: "sk-test", RAGSCOPE_JUDGE_METRICS: metrics, ...prices };
  const result = await runRagscope(["eval", "--dataset", path.join(folder, "cases.json"), "--task", path.join(tasksFolder, "scripted-rag-task.ts"), "--run-id", runId, "--data-dir", path.join(folder, "store"), "--output", output], environment);
  assert.notEqual(result.status, 2, result.stdout + result.stderr);
  const results = JSON.parse(await readFile(output, "utf8")) as { evaluation_results: { evaluator_id: string; metric_values: Record<string, number | null> }[] };
  const judged = results.evaluation_results.find((item) => item.evaluator_id === "judge.context_precision_judged");
  assert.ok(judged, JSON.stringify(results.evaluation_results.map((item) => item.evaluator_id)));
  return { result, values: judged.metric_values };
}

test("no price set: judge_cost is null (not known), the tokens counted; the terminal shows n/a, not 0", async () => {
  const { result, values } = await judgedRun("unpriced", {});
  assert.equal(values.judge_cost, null);
  assert.equal(values.judge_input_tokens, 120);
  assert.equal(values.judge_output_tokens, 30);
  // The terminal's metrics: not known is n/a over no value, not a mean of 0.
  assert.match(result.stdout, /^\s*judge_cost\s+n\/a\s+n=0  \(a case's judge calls together\)$/m, result.stdout);
});

test("prices set: judge_cost is the tokens at those prices", async () => {
  const { values } = await judgedRun("priced", { RAGSCOPE_JUDGE_INPUT_PRICE_PER_1K: "2", RAGSCOPE_JUDGE_OUTPUT_PRICE_PER_1K: "4" });
  assert.ok(Math.abs(values.judge_cost! - 0.36) < 1e-12, String(values.judge_cost));
});

test("two judged metrics: the terminal's judge usage of a case is its calls together, not its first result's", async () => {
  const { result } = await judgedRun("two-metrics", { RAGSCOPE_JUDGE_INPUT_PRICE_PER_1K: "2", RAGSCOPE_JUDGE_OUTPUT_PRICE_PER_1K: "4" }, "context_precision_judged,answer_relevance");
  // Two calls of 120 + 30 tokens at 2 and 4 per 1,000: 0.36 each, 0.72 the case (it printed 0.36, one call's).
  assert.match(result.stdout, /^\s*judge_cost\s+0\.7200\s+n=1  \(a case's judge calls together\)$/m, result.stdout);
  assert.match(result.stdout, /^\s*judge_input_tokens\s+240\.0000\s+n=1/m, result.stdout);
});
