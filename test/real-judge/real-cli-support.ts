/**
 * What the real-server CLI tests share (cli-demo-… and cli-eval-against-llama-server.test.ts):
 * the one-case dataset, the servers and the environment that points ragscope at
 * them, and the honesty and ledger checks of what a run recorded. Each command
 * has its own test file, so each stays within the runner's 15 minutes per file
 * on a loaded machine.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parse as parseYaml } from "yaml";
import { prepareLlamaServer, startLlamaServer, startRecordingProxy, type ProxiedExchange, type RecordingProxy, type RunningLlamaServer } from "./llama-server-process.js";

export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const ragscope = path.join(projectRoot, "bin/ragscope.js");
export const CASE_ID = "rag_return_window_en_001";
export const JUDGED_METRICS = ["faithfulness", "answer_correctness"];
export const INPUT_PRICE_PER_1K = 0.5;
export const OUTPUT_PRICE_PER_1K = 1.5;
/** The command, with the servers' start before it, must end within the test runner's 15 minutes per file. */
export const COMMAND_TIMEOUT_MS = 780_000;

export interface StoredEvaluation {
  evaluator_id: string;
  outcome: string;
  reason: string;
  error_type: string;
  metric_values: Record<string, number | null>;
}

export function run(args: string[], environment: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string }> {
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

export function reportedUsage(exchanges: readonly ProxiedExchange[]): { inputTokens: number; outputTokens: number; answered: number } {
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
export function assertHonestJudged(evaluation: StoredEvaluation): { inputTokens: number; outputTokens: number } {
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

export function assertLedgerIsTheServers(evaluations: readonly StoredEvaluation[], exchanges: readonly ProxiedExchange[], label: string): void {
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


export interface RealJudgeFixture {
  folder: string;
  /** A dataset of the one case. */
  dataset: string;
  /** Between ragscope and the chat server: what the server answered, usage and timings included. */
  proxy: RecordingProxy;
  /** The variables that point ragscope at the servers. */
  environment: Record<string, string>;
  stop(): Promise<void>;
}

/** The one-case dataset, the chat server behind a recording proxy, and the pooled and per-token embeddings servers. */
export async function startRealJudgeFixture(): Promise<RealJudgeFixture> {
  const folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-real-cli-"));
  const source = parseYaml(await readFile(path.join(projectRoot, "examples/datasets/policy-regression.yaml"), "utf8"), { maxAliasCount: -1 }) as { dataset_id: string; dataset_version: string; cases: { case_id: string }[] };
  const chosen = source.cases.filter((item) => item.case_id === CASE_ID);
  assert.equal(chosen.length, 1);
  const dataset = path.join(folder, "one-case.json");
  await writeFile(dataset, JSON.stringify({ dataset_id: source.dataset_id, dataset_version: source.dataset_version, cases: chosen }));

  const started: RunningLlamaServer[] = [];
  let proxy: RecordingProxy | undefined;
  const stop = async () => {
    await proxy?.close();
    for (const server of started) await server.stop();
    await rm(folder, { recursive: true, force: true });
  };
  try {
    const prepared = await prepareLlamaServer();
    const chat = await startLlamaServer(prepared, ["-np", "2", "-c", "8192"]);
    started.push(chat);
    const embeddings = await startLlamaServer(prepared, ["--embeddings", "--pooling", "mean"]);
    started.push(embeddings);
    const tokenEmbeddings = await startLlamaServer(prepared, ["--embeddings", "--pooling", "none"]);
    started.push(tokenEmbeddings);
    proxy = await startRecordingProxy(chat.baseUrl);
    const environment = {
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
    return { folder, dataset, proxy, environment, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
