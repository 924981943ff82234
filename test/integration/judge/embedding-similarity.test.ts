/**
 * answer_embedding_similarity through an OpenAI-compatible embeddings endpoint
 * (a real local HTTP server with chosen vectors): the value is SciPy's cosine
 * (test/data/embeddings/cosine-reference.json, with the command that made it)
 * against the best-matching reference answer; it is a measurement, never a
 * pass; vectors are cached by model and text; an endpoint failure is an error
 * result with its reason, never a 0; and the settings reach it from the
 * environment (RAGSCOPE_EMBEDDINGS_*).
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { after, before, beforeEach, describe, test } from "node:test";
import { loadSettings } from "../../../collector/wiring/config/load-settings.js";
import { judgeEndpointSettings, onlineSettings } from "../../../collector/wiring/config/settings-schema.js";
import { createConfiguredEmbeddings } from "../../../collector/wiring/online/embeddings-config.js";
import { createConfiguredJudge } from "../../../collector/wiring/online/judge-config.js";
import { embeddingSimilarityEvaluations } from "../../../evaluators/embeddings/embedding-similarity.js";
import { EmbeddingsClient } from "../../../evaluators/embeddings/embeddings-client.js";
import { buildCase, buildCaseResult } from "../../support/case-results.js";
import { startFakeEmbeddingsServer, type FakeEmbeddingsServer } from "../../support/fake-embeddings-server.js";

interface Reference {
  vectors: Record<"answer" | "reference_close" | "reference_far", number[]>;
  similarity: Record<"reference_close" | "reference_far", number>;
}

const reference = JSON.parse(await readFile(new URL("../../data/embeddings/cosine-reference.json", import.meta.url), "utf8")) as Reference;
const texts = { answer: "员工每年享有5天年假。", reference_close: "每位员工每年有5天年假。", reference_far: "报销需在30天内提交。" } as const;
const FAST = { initialDelayMs: 5, maxDelayMs: 10, maxAttempts: 2, deadlineMs: 5_000 };
const EVALUATED_AT = "2026-12-01T10:00:00.000Z";

describe("answer_embedding_similarity against a fake embeddings endpoint", () => {
  let server: FakeEmbeddingsServer;
  before(async () => {
    const vectorOf = new Map<string, number[]>(Object.entries(texts).map(([name, text]) => [text, reference.vectors[name as keyof typeof texts]]));
    server = await startFakeEmbeddingsServer((text) => vectorOf.get(text) ?? [0, 0, 0, 0]);
  });
  after(async () => {
    await server.close();
  });
  beforeEach(() => {
    server.requests.length = 0;
  });
  const client = (options: Partial<ConstructorParameters<typeof EmbeddingsClient>[0]> = {}) => new EmbeddingsClient({ baseUrl: server.baseUrl, apiKey: "k", model: "embedder", retryPolicy: FAST, ...options });

  test("the cosine with the best-matching reference answer, SciPy's value, as a measurement (not a pass)", async () => {
    const caseResult = buildCaseResult({ output: texts.answer });
    const evalCase = buildCase({ reference_answer: [texts.reference_far, texts.reference_close] });
    const [result, ...rest] = await embeddingSimilarityEvaluations(client(), caseResult, evalCase, EVALUATED_AT);
    assert.equal(rest.length, 0);
    assert.ok(result);
    assert.equal(result.outcome, "measured");
    assert.equal(result.evaluator_id, "embedding.answer_similarity");
    assert.equal(result.evaluator_version, "answer_embedding_similarity@1+embedder");
    const value = result.metric_values.answer_embedding_similarity;
    assert.ok(typeof value === "number" && Math.abs(value - reference.similarity.reference_close) < 1e-12, `${value} vs SciPy ${reference.similarity.reference_close}`);
    assert.match(result.reason, /best of 2 reference answers.*auxiliary, not a verdict/);
    // One request with the answer and both references, floats asked for explicitly.
    assert.deepEqual(server.requests, [{ input: [texts.answer, texts.reference_far, texts.reference_close], model: "embedder", encodingFormat: "float" }]);
  });

  test("a negative similarity is kept as it is (SciPy's value), not clipped to 0", async () => {
    const [result] = await embeddingSimilarityEvaluations(client(), buildCaseResult({ output: texts.answer }), buildCase({ reference_answer: texts.reference_far }), EVALUATED_AT);
    const value = result?.metric_values.answer_embedding_similarity;
    assert.ok(typeof value === "number" && Math.abs(value - reference.similarity.reference_far) < 1e-12);
  });

  test("vectors are cached by model and text: the second evaluation sends nothing", async () => {
    const embeddings = client();
    const caseResult = buildCaseResult({ output: texts.answer });
    const evalCase = buildCase({ reference_answer: texts.reference_close });
    await embeddingSimilarityEvaluations(embeddings, caseResult, evalCase, EVALUATED_AT);
    const [again] = await embeddingSimilarityEvaluations(embeddings, caseResult, evalCase, EVALUATED_AT);
    assert.equal(server.requests.length, 1);
    assert.match(again?.reason ?? "", /cached embeddings/);
    // Another model does not reuse them.
    await embeddingSimilarityEvaluations(client({ model: "other-embedder" }), caseResult, evalCase, EVALUATED_AT);
    assert.equal(server.requests.length, 2);
  });

  test("no reference answer or no answer: nothing is measured (no result, no request)", async () => {
    assert.deepEqual(await embeddingSimilarityEvaluations(client(), buildCaseResult({ output: texts.answer }), buildCase(), EVALUATED_AT), []);
    assert.deepEqual(await embeddingSimilarityEvaluations(client(), buildCaseResult({ output: texts.answer }), null, EVALUATED_AT), []);
    assert.equal(server.requests.length, 0);
  });

  test("a 503 is retried; a 400 is an error result with its reason and a null value, never 0", async () => {
    const caseResult = buildCaseResult({ output: texts.answer });
    server.failNext(503);
    const [retried] = await embeddingSimilarityEvaluations(client(), caseResult, buildCase({ reference_answer: texts.reference_close }), EVALUATED_AT);
    assert.equal(retried?.outcome, "measured");
    assert.equal(server.requests.length, 2);

    server.failNext(400);
    const [failed] = await embeddingSimilarityEvaluations(client(), buildCaseResult({ output: texts.answer }), buildCase({ reference_answer: texts.reference_close }), EVALUATED_AT);
    assert.ok(failed);
    assert.equal(failed.outcome, "error");
    assert.equal(failed.error_type, "evaluator_error");
    assert.equal(failed.metric_values.answer_embedding_similarity, null);
    assert.match(failed.reason, /HTTP 400/);
  });

  test("a zero vector cannot be compared: an error result, not NaN", async () => {
    const [result] = await embeddingSimilarityEvaluations(client(), buildCaseResult({ output: "unknown text" }), buildCase({ reference_answer: texts.reference_close }), EVALUATED_AT);
    assert.equal(result?.outcome, "error");
    assert.equal(result?.metric_values.answer_embedding_similarity, null);
  });
});

describe("embeddings settings", () => {
  test("RAGSCOPE_EMBEDDINGS_* configure the client; a base URL without a model is an error naming both variables", () => {
    const loaded = loadSettings({ environment: { RAGSCOPE_EMBEDDINGS_BASE_URL: "http://127.0.0.1:8081/v1", RAGSCOPE_EMBEDDINGS_MODEL: "nomic-embed-text", RAGSCOPE_EMBEDDINGS_CACHE_ENTRIES: "50" } });
    assert.ok(loaded.ok);
    const section = onlineSettings(loaded.value).embeddingsEndpoint;
    assert.deepEqual(section, { baseUrl: "http://127.0.0.1:8081/v1", model: "nomic-embed-text", apiKey: "", requestTimeoutMs: 30_000, cacheEntries: 50, sampleRate: 1, tokenEmbeddingsUrl: null, tokenEmbeddingsModel: null });
    const configured = createConfiguredEmbeddings(section);
    assert.equal(configured?.similarity?.model, "nomic-embed-text");
    assert.equal(configured?.tokenMatching, null);
    assert.equal(configured?.sampleRate, 1, "every trace with a reference answer by default");

    const unset = loadSettings({ environment: {} });
    assert.ok(unset.ok);
    assert.equal(createConfiguredEmbeddings(onlineSettings(unset.value).embeddingsEndpoint), null);

    const half = loadSettings({ environment: { RAGSCOPE_EMBEDDINGS_BASE_URL: "http://127.0.0.1:8081/v1" } });
    assert.equal(half.ok, false);
    assert.match(JSON.stringify(half.ok ? null : half.error), /RAGSCOPE_EMBEDDINGS_BASE_URL and RAGSCOPE_EMBEDDINGS_MODEL/);
  });

  test("RAGSCOPE_EMBEDDINGS_SAMPLE_RATE and RAGSCOPE_TOKEN_EMBEDDINGS_URL / _MODEL; a rate above 1 and a URL without a model are errors naming the setting", () => {
    const loaded = loadSettings({ environment: { RAGSCOPE_TOKEN_EMBEDDINGS_URL: "http://127.0.0.1:8082/embeddings", RAGSCOPE_TOKEN_EMBEDDINGS_MODEL: "bge-m3", RAGSCOPE_EMBEDDINGS_SAMPLE_RATE: "0.25" } });
    assert.ok(loaded.ok, JSON.stringify(loaded.ok ? null : loaded.error));
    const configured = createConfiguredEmbeddings(onlineSettings(loaded.value).embeddingsEndpoint);
    assert.equal(configured?.similarity, null);
    assert.equal(configured?.tokenMatching?.url, "http://127.0.0.1:8082/embeddings");
    assert.equal(configured?.sampleRate, 0.25);
    assert.match(configured?.describe ?? "", /BERTScore-style token matching with bge-m3 at http:\/\/127.0.0.1:8082\/embeddings \(sample rate 0.25\)/);

    const tooHigh = loadSettings({ environment: { RAGSCOPE_EMBEDDINGS_SAMPLE_RATE: "1.5" } });
    assert.equal(tooHigh.ok, false);
    assert.match(JSON.stringify(tooHigh.ok ? null : tooHigh.error), /environment variable RAGSCOPE_EMBEDDINGS_SAMPLE_RATE: must be at most 1/);
    const half = loadSettings({ environment: { RAGSCOPE_TOKEN_EMBEDDINGS_URL: "http://127.0.0.1:8082/embeddings" } });
    assert.equal(half.ok, false);
    assert.match(JSON.stringify(half.ok ? null : half.error), /RAGSCOPE_TOKEN_EMBEDDINGS_URL and RAGSCOPE_TOKEN_EMBEDDINGS_MODEL/);
  });

  test("RAGSCOPE_JUDGE_METRICS: only the listed judged metrics; an unknown name is refused with the list", () => {
    const loaded = loadSettings({ environment: { RAGSCOPE_JUDGE_BASE_URL: "http://127.0.0.1:8080/v1", RAGSCOPE_JUDGE_MODEL: "local", RAGSCOPE_JUDGE_METRICS: "faithfulness,answer_correctness" } });
    assert.ok(loaded.ok, JSON.stringify(loaded.ok ? null : loaded.error));
    const configured = createConfiguredJudge(judgeEndpointSettings(loaded.value));
    assert.deepEqual(configured.judge.metrics, ["faithfulness", "answer_correctness"]);
    assert.match(configured.describe, /metrics faithfulness, answer_correctness/);
    const unknown = loadSettings({ environment: { RAGSCOPE_JUDGE_METRICS: "faithfulness,vibes" } });
    assert.equal(unknown.ok, false);
    assert.match(JSON.stringify(unknown.ok ? null : unknown.error), /RAGSCOPE_JUDGE_METRICS.*must be judged metrics: faithfulness, answer_relevance/);
  });

  test("RAGSCOPE_JUDGE_STRUCTURED_OUTPUT and RAGSCOPE_JUDGE_MAX_OUTPUT_TOKENS reach the judge endpoint; a wrong form is refused", () => {
    const loaded = loadSettings({ environment: { RAGSCOPE_JUDGE_BASE_URL: "http://127.0.0.1:8080/v1", RAGSCOPE_JUDGE_MODEL: "local", RAGSCOPE_JUDGE_STRUCTURED_OUTPUT: "instructions", RAGSCOPE_JUDGE_MAX_OUTPUT_TOKENS: "512" } });
    assert.ok(loaded.ok);
    // No RAGSCOPE_JUDGE_API_KEY: a local server needs none, and the judge is built without one.
    assert.match(createConfiguredJudge(loaded.value.judgeEndpoint).describe, /LLM judge local at http:\/\/127.0.0.1:8080\/v1 \(structured output instructions\)/);
    assert.equal(loaded.value.judgeEndpoint.structuredOutput, "instructions");
    assert.equal(loaded.value.judgeEndpoint.maxOutputTokens, 512);
    const wrong = loadSettings({ environment: { RAGSCOPE_JUDGE_STRUCTURED_OUTPUT: "grammar" } });
    assert.equal(wrong.ok, false);
    assert.match(JSON.stringify(wrong.ok ? null : wrong.error), /auto, json_schema, json_object or instructions/);
  });
});
