/**
 * `ragscope demo` and `ragscope eval` as a user runs them (subprocesses of
 * bin/ragscope.js), judging with a real llama.cpp `llama-server`
 * (SmolLM2-135M, test/real-judge/prepare-llama-server.sh) through
 * RAGSCOPE_JUDGE_BASE_URL, and measuring answer_embedding_similarity with a
 * second one started with `--embeddings` through RAGSCOPE_EMBEDDINGS_BASE_URL.
 *
 * Bounded: one English case of the example dataset, two of its judged
 * metrics (RAGSCOPE_JUDGE_METRICS; each is one real call, a minute or more on
 * a loaded 2-core machine), answers capped at 64 tokens. BERTScore-style
 * token matching comes from a third server, `--pooling none`. The model is far too small to judge
 * well, so nothing says what a verdict should be. Read back from the store
 * (demo) and from the results JSON (eval), each judged metric is a validated
 * value in 0..1 with a pass or a fail, or an `error` with the grader's reason
 * and a null value — never NaN, never a pass without a value; and the tokens
 * and cost recorded are exactly the usage the server reported, seen by a
 * recording proxy between ragscope and the server, priced at the configured
 * prices.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { parse as parseYaml } from "yaml";
import { openClickHouse } from "../../store/clickhouse/clickhouse-connection.js";
import { queryRows } from "../support/temporary-store.js";
import { prepareLlamaServer, startLlamaServer, startRecordingProxy, type ProxiedExchange, type RecordingProxy, type RunningLlamaServer } from "./llama-server-process.js";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const ragscope = path.join(projectRoot, "bin/ragscope.js");
const CASE_ID = "rag_return_window_en_001";
const JUDGED_METRICS = ["faithfulness", "answer_correctness"];
const INPUT_PRICE_PER_1K = 0.5;
const OUTPUT_PRICE_PER_1K = 1.5;
/** Each command must end before the test runner's 15-minute limit of a test. */
const COMMAND_TIMEOUT_MS = 840_000;

interface StoredEvaluation {
  evaluator_id: string;
  outcome: string;
  reason: string;
  error_type: string;
  metric_values: Record<string, number | null>;
}

function run(args: string[], environment: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [ragscope, ...args], { cwd: projectRoot, env: { ...process.env, RAGSCOPE_CONFIG: "", ...environment } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), COMMAND_TIMEOUT_MS + 30_000);
    child.on("exit", (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

function reportedUsage(exchanges: readonly ProxiedExchange[]): { inputTokens: number; outputTokens: number; answered: number } {
  let inputTokens = 0;
  let outputTokens = 0;
  let answered = 0;
  for (const exchange of exchanges) {
    const usage = (exchange.response as { usage?: { prompt_tokens?: number; completion_tokens?: number } }).usage;
    if (exchange.status !== 200 || usage === undefined) continue;
    answered += 1;
    inputTokens += usage.prompt_tokens ?? 0;
    outputTokens += usage.completion_tokens ?? 0;
  }
  return { inputTokens, outputTokens, answered };
}

/** The honesty rules of a judged metric, and the usage and cost it recorded; returns its usage. */
function assertHonestJudged(evaluation: StoredEvaluation): { inputTokens: number; outputTokens: number } {
  const metric = evaluation.evaluator_id.slice("judge.".length);
  const value = evaluation.metric_values[metric];
  assert.ok(metric in evaluation.metric_values, `${evaluation.evaluator_id} carries its metric`);
  if (evaluation.outcome === "error") {
    assert.equal(value, null, `${evaluation.evaluator_id}: a grader error has no value`);
    assert.equal(evaluation.error_type, "evaluator_error");
    assert.match(evaluation.reason, /^grader error \((unparseable|refusal)\) from openai:smollm2-135m: ./, `${evaluation.evaluator_id}: an error of the answer, with its reason: ${evaluation.reason}`);
  } else {
    assert.ok(evaluation.outcome === "passed" || evaluation.outcome === "failed", `${evaluation.evaluator_id}: ${evaluation.outcome}`);
    assert.ok(typeof value === "number" && Number.isFinite(value) && value >= 0 && value <= 1, `${evaluation.evaluator_id}: a value in 0..1, got ${value}`);
    assert.equal(evaluation.error_type, "none");
  }
  const inputTokens = evaluation.metric_values.judge_input_tokens;
  const outputTokens = evaluation.metric_values.judge_output_tokens;
  const cost = evaluation.metric_values.judge_cost;
  assert.ok(typeof inputTokens === "number" && inputTokens > 0 && typeof outputTokens === "number" && typeof cost === "number", `${evaluation.evaluator_id} recorded its usage`);
  assert.ok(Math.abs(cost - ((inputTokens / 1000) * INPUT_PRICE_PER_1K + (outputTokens / 1000) * OUTPUT_PRICE_PER_1K)) < 1e-9, `${evaluation.evaluator_id}: the cost is the usage at the configured prices`);
  return { inputTokens, outputTokens };
}

function assertLedgerIsTheServers(evaluations: readonly StoredEvaluation[], exchanges: readonly ProxiedExchange[], label: string): void {
  const judged = evaluations.filter((evaluation) => evaluation.evaluator_id.startsWith("judge."));
  assert.deepEqual(judged.map((evaluation) => evaluation.evaluator_id).sort(), JUDGED_METRICS.map((metric) => `judge.${metric}`).sort(), `${label}: every configured judged metric was recorded`);
  let inputTokens = 0;
  let outputTokens = 0;
  for (const evaluation of judged) {
    const usage = assertHonestJudged(evaluation);
    inputTokens += usage.inputTokens;
    outputTokens += usage.outputTokens;
  }
  const reported = reportedUsage(exchanges.filter((exchange) => exchange.path.endsWith("/chat/completions")));
  assert.ok(reported.answered >= judged.length, `${label}: at least one answered call per judged metric`);
  assert.deepEqual({ inputTokens, outputTokens }, { inputTokens: reported.inputTokens, outputTokens: reported.outputTokens }, `${label}: the ledger holds the usage the server reported`);
  // llama-server reports its own timings with each answer: the figures LOCAL-JUDGE.md quotes per call.
  const timings = exchanges
    .map((exchange) => (exchange.response as { timings?: { prompt_ms?: number; predicted_ms?: number; prompt_per_second?: number; predicted_per_second?: number } }).timings)
    .filter((timing) => timing !== undefined)
    .map((timing) => `${Math.round(((timing.prompt_ms ?? 0) + (timing.predicted_ms ?? 0)) / 1000)} s (prompt ${Math.round(timing.prompt_per_second ?? 0)} tokens/s, generation ${(timing.predicted_per_second ?? 0).toFixed(1)} tokens/s)`);
  console.log(`[real ${label}] server timings per call: ${timings.join("; ")}; load average ${os.loadavg().map((load) => load.toFixed(1)).join(" ")}`);
  const outcomes = judged.map((evaluation) => `${evaluation.evaluator_id.slice(6)}=${evaluation.outcome === "error" ? evaluation.reason.slice(0, 60) : evaluation.metric_values[evaluation.evaluator_id.slice(6)]}`);
  console.log(`[real ${label}] ${judged.length} judged metrics, ${reported.answered} answered calls, ${inputTokens} input and ${outputTokens} output tokens (${Math.round(inputTokens / judged.length)} / ${Math.round(outputTokens / judged.length)} per call): ${outcomes.join("; ")}`);

  const similarity = evaluations.find((evaluation) => evaluation.evaluator_id === "embedding.answer_similarity");
  assert.ok(similarity, `${label}: answer_embedding_similarity was measured`);
  assert.equal(similarity.outcome, "measured", `${label}: a measurement, never a pass: ${similarity.reason}`);
  const value = similarity.metric_values.answer_embedding_similarity;
  assert.ok(typeof value === "number" && value >= -1 && value <= 1, `${label}: a cosine, got ${value}`);

  const matching = evaluations.find((evaluation) => evaluation.evaluator_id === "embedding.answer_token_matching");
  assert.ok(matching, `${label}: BERTScore-style token matching was measured`);
  assert.equal(matching.outcome, "measured", `${label}: a measurement, never a pass: ${matching.reason}`);
  for (const metric of ["answer_bertscore_precision", "answer_bertscore_recall", "answer_bertscore_f1"]) {
    const measured = matching.metric_values[metric];
    assert.ok(typeof measured === "number" && measured >= -1 && measured <= 1, `${label}: ${metric} = ${measured}`);
  }
  console.log(`[real ${label}] ${similarity.reason}; ${matching.reason}`);
}

describe("ragscope demo and eval judging with llama-server (SmolLM2-135M)", () => {
  let folder: string;
  let dataset: string;
  let chat: RunningLlamaServer;
  let embeddings: RunningLlamaServer;
  let tokenEmbeddings: RunningLlamaServer;
  let proxy: RecordingProxy;
  let environment: Record<string, string>;

  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-real-cli-"));
    const source = parseYaml(await readFile(path.join(projectRoot, "examples/datasets/policy-regression.yaml"), "utf8"), { maxAliasCount: -1 }) as { dataset_id: string; dataset_version: string; cases: { case_id: string }[] };
    const chosen = source.cases.filter((item) => item.case_id === CASE_ID);
    assert.equal(chosen.length, 1);
    dataset = path.join(folder, "one-case.json");
    await writeFile(dataset, JSON.stringify({ dataset_id: source.dataset_id, dataset_version: source.dataset_version, cases: chosen }));

    const prepared = await prepareLlamaServer();
    // Two slots: the demo's judge worker and eval's may send two calls at once.
    chat = await startLlamaServer(prepared, ["-np", "2", "-c", "8192"]);
    embeddings = await startLlamaServer(prepared, ["--embeddings", "--pooling", "mean"]);
    tokenEmbeddings = await startLlamaServer(prepared, ["--embeddings", "--pooling", "none"]);
    proxy = await startRecordingProxy(chat.baseUrl);
    environment = {
      RAGSCOPE_JUDGE_BASE_URL: proxy.baseUrl,
      RAGSCOPE_JUDGE_MODEL: "smollm2-135m",
      RAGSCOPE_JUDGE_TIMEOUT_MS: "600000",
      RAGSCOPE_JUDGE_MAX_OUTPUT_TOKENS: "64",
      // Two of the case's seven judged metrics: each is a real call of a minute or more here.
      RAGSCOPE_JUDGE_METRICS: JUDGED_METRICS.join(","),
      RAGSCOPE_JUDGE_INPUT_PRICE_PER_1K: String(INPUT_PRICE_PER_1K),
      RAGSCOPE_JUDGE_OUTPUT_PRICE_PER_1K: String(OUTPUT_PRICE_PER_1K),
      RAGSCOPE_EMBEDDINGS_BASE_URL: embeddings.baseUrl,
      RAGSCOPE_EMBEDDINGS_MODEL: "smollm2-135m",
      RAGSCOPE_EMBEDDINGS_TIMEOUT_MS: "600000",
      RAGSCOPE_TOKEN_EMBEDDINGS_URL: `${tokenEmbeddings.baseUrl.replace(/\/v1$/, "")}/embeddings`,
      RAGSCOPE_TOKEN_EMBEDDINGS_MODEL: "smollm2-135m",
    };
  });
  after(async () => {
    await proxy?.close();
    await chat?.stop();
    await embeddings?.stop();
    await tokenEmbeddings?.stop();
    await rm(folder, { recursive: true, force: true });
  });

  test("ragscope demo: every judged metric stored as a value or a grader error with its reason, at the server's usage", async () => {
    proxy.exchanges.length = 0;
    const dataDir = path.join(folder, "demo-store");
    const finished = await run(["demo", "--dataset", dataset, "--data-dir", dataDir, "--run-id", "real-demo", "--timeout-ms", String(COMMAND_TIMEOUT_MS)], environment);
    assert.equal(finished.status, 0, `${finished.stdout}\n${finished.stderr}`);
    assert.match(finished.stdout, /judging with the LLM judge smollm2-135m at .*metrics faithfulness, answer_correctness; embedding similarity with smollm2-135m at .*; BERTScore-style token matching with smollm2-135m at /);

    const connection = await openClickHouse({ url: null, username: "default", password: "", database: "ragscope", dataPath: dataDir });
    try {
      const rows = await queryRows<{ payload: string }>(connection, "SELECT payload FROM {{database}}.evaluation_results FINAL WHERE run_id = {run:String} AND case_id = {case:String}", { run: "real-demo", case: CASE_ID });
      assertLedgerIsTheServers(rows.map((row) => JSON.parse(row.payload) as StoredEvaluation), proxy.exchanges, "demo");
    } finally {
      await connection.close();
    }
  });

  test("ragscope eval: the same in its results JSON", async () => {
    proxy.exchanges.length = 0;
    const output = path.join(folder, "results.json");
    const finished = await run(["eval", "--dataset", dataset, "--task", "examples/policy-assistant/eval-task.ts", "--run-id", "real-eval", "--data-dir", path.join(folder, "eval-store"), "--output", output], environment);
    // 0 or 1: the gate decided (the example pipeline may fail a rule); 2 would be a run that could not decide.
    assert.ok(finished.status === 0 || finished.status === 1, `exit ${finished.status}\n${finished.stdout}\n${finished.stderr}`);
    const results = JSON.parse(await readFile(output, "utf8")) as { case_results: { case_id: string; case_result_id: string }[]; evaluation_results: (StoredEvaluation & { case_result_id: string })[] };
    assert.equal(results.case_results.length, 1);
    const caseResultId = results.case_results[0]!.case_result_id;
    assertLedgerIsTheServers(results.evaluation_results.filter((evaluation) => evaluation.case_result_id === caseResultId), proxy.exchanges, "eval");
  });
});
