/**
 * A case an LLM judge fails only on context precision gets the root cause the
 * seed has for it, CONTEXT_NOISY (seed 004 §十: 上下文噪声过多), not the
 * fallback QUERY_UNDERSTANDING. As a user meets it: `ragscope eval` as a
 * subprocess, the judge an OpenAI-compatible endpoint (a local fake that
 * rates only the first of the context's documents relevant), judging
 * context_precision_judged alone.
 *
 * By hand: the task retrieves three chunks — the gold evidence and two about
 * other topics — and answers with the evidence, which the reference answer
 * matches. The judge rates D1 relevant, D2 and D3 not: 1 / 3 relevant, below
 * the rubric's ">= 0.5", so the judge fails the case; every rule holds
 * (recall 1, the answer states the reference's number).
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

before(async () => {
  folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-context-noise-"));
  judge = await startFakeChatCompletionsServer();
  judge.respondWith((request) => {
    const labels = [...request.user.matchAll(/<<<DOCUMENT id="(D\d+)">>>/g)].map((match) => match[1]!);
    return reply.json({ documents: labels.map((id, index) => ({ id, relevant: index === 0 })), reason: "only the first document is about vacation days", confidence: "high" });
  });
});

after(async () => {
  await judge.close();
  await rm(folder, { recursive: true, force: true });
});

test("a failure whose only failing metric is the judge's context precision: root cause CONTEXT_NOISY", async () => {
  const dataset = path.join(folder, "noisy.json");
  const evidence = "Employees get 15 vacation days a year.";
  await writeFile(
    dataset,
    JSON.stringify({
      dataset_id: "noisy_set",
      dataset_version: "1",
      cases: [
        {
          case_id: "c_noisy",
          case_version: "1",
          input: "How many vacation days do I get?",
          reference_answer: "15 vacation days a year.",
          gold_evidence: [{ document_id: "hr_policy", chunk_id: "leave_01", text: evidence }],
          metadata: {
            retrieve: [
              { chunk: "leave_01", document: "hr_policy", text: evidence },
              { chunk: "cafeteria_01", document: "facilities", text: "The cafeteria opens at noon on weekdays." },
              { chunk: "parking_01", document: "facilities", text: "Parking permits are renewed every March." },
            ],
            answer: evidence,
          },
        },
      ],
    }),
  );
  const output = path.join(folder, "results.json");
  const environment = { RAGSCOPE_JUDGE_BASE_URL: judge.baseUrl, RAGSCOPE_JUDGE_MODEL: "fake-judge", RAGSCOPE_JUDGE_API_KEY: "sk-test", RAGSCOPE_JUDGE_METRICS: "context_precision_judged" };
  const result = await runRagscope(["eval", "--dataset", dataset, "--task", path.join(tasksFolder, "scripted-rag-task.ts"), "--run-id", "noisy", "--data-dir", path.join(folder, "store"), "--output", output], environment);
  assert.notEqual(result.status, 2, result.stdout + result.stderr);
  const results = JSON.parse(await readFile(output, "utf8")) as { case_results: { quality_status: string }[]; evaluation_results: { evaluator_id: string; outcome: string; reason: string; metric_values: Record<string, number | null> }[] };
  const failed = results.evaluation_results.filter((item) => item.outcome === "failed" && item.evaluator_id !== "root_cause");
  // The premise: the judge's context precision is the only failure.
  assert.deepEqual(failed.map((item) => [item.evaluator_id, item.metric_values.context_precision_judged]), [["judge.context_precision_judged", 1 / 3]]);
  assert.equal(results.case_results[0]!.quality_status, "failed");
  const rootCause = results.evaluation_results.find((item) => item.evaluator_id === "root_cause");
  assert.match(rootCause?.reason ?? "", /^CONTEXT_NOISY: context_precision_judged 0\.333\d* misses >= 0\.5: most of the context does not help answer the question/);
  assert.match(result.stdout, /root cause: CONTEXT_NOISY: /);
});
