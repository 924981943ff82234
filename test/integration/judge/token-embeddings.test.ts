/**
 * The token embeddings client and the BERTScore-style measurement against a
 * fake of llama-server's native `/embeddings` (a real node:http server on
 * 127.0.0.1 answering `[{index, embedding: [[…], …]}]`): values as the NumPy
 * reference computes them, the cache bounded by the numbers it holds, and
 * every failure an `error` result with its reason — never a 0, never a pass.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, beforeEach, describe, test } from "node:test";
import { TokenEmbeddingsClient } from "../../../evaluators/embeddings/token-embeddings-client.js";
import { tokenMatchingEvaluations } from "../../../evaluators/embeddings/token-matching-similarity.js";
import { buildCase, buildCaseResult } from "../../support/case-results.js";

const reference = JSON.parse(await readFile(new URL("../../data/embeddings/greedy-token-matching-reference.json", import.meta.url), "utf8")) as {
  candidate: number[][];
  references: Record<"close" | "far", number[][]>;
  expected: Record<"close" | "far", { precision: number; recall: number; f1: number }>;
};
const texts = { answer: "the answer text", close: "the close reference", far: "the far reference" } as const;
const tokensOf = new Map<string, number[][]>([
  [texts.answer, reference.candidate],
  [texts.close, reference.references.close],
  [texts.far, reference.references.far],
]);
const FAST = { initialDelayMs: 5, maxDelayMs: 10, maxAttempts: 2, deadlineMs: 5_000 };
const EVALUATED_AT = "2026-12-01T10:00:00.000Z";

describe("BERTScore-style token matching against a fake llama-server /embeddings", () => {
  let server: Server;
  let url: string;
  const requests: string[][] = [];
  let answer: (input: string[]) => { status: number; body: unknown } = () => ({ status: 500, body: {} });
  before(async () => {
    server = createServer((request, response) => {
      let text = "";
      request.on("data", (chunk: Buffer) => (text += chunk.toString()));
      request.on("end", () => {
        const input = (JSON.parse(text) as { input: string[] }).input;
        requests.push(input);
        const { status, body } = answer(input);
        response.writeHead(status, { "content-type": "application/json" });
        response.end(JSON.stringify(body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/embeddings`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    requests.length = 0;
    answer = (input) => ({ status: 200, body: input.map((item, index) => ({ index, embedding: tokensOf.get(item) ?? [[0, 0]] })).reverse() });
  });
  const client = (options: Partial<ConstructorParameters<typeof TokenEmbeddingsClient>[0]> = {}) => new TokenEmbeddingsClient({ url, model: "token-embedder", retryPolicy: FAST, ...options });

  test("precision, recall and F1 of the best reference as NumPy computes them, measured and not a pass; cached the second time", async () => {
    const tokens = client();
    const caseResult = buildCaseResult({ output: texts.answer });
    const evalCase = buildCase({ reference_answer: [texts.far, texts.close] });
    const [result, ...rest] = await tokenMatchingEvaluations(tokens, caseResult, evalCase, EVALUATED_AT);
    assert.equal(rest.length, 0);
    assert.equal(result?.outcome, "measured");
    assert.equal(result?.error_type, "none");
    assert.equal(result?.evaluator_id, "embedding.answer_token_matching");
    const expected = reference.expected.close;
    assert.ok(Math.abs(result!.metric_values.answer_bertscore_precision! - expected.precision) < 1e-12);
    assert.ok(Math.abs(result!.metric_values.answer_bertscore_recall! - expected.recall) < 1e-12);
    assert.ok(Math.abs(result!.metric_values.answer_bertscore_f1! - expected.f1) < 1e-12);
    assert.match(result!.reason, /greedy matching of 5 answer tokens with 7 tokens of the best of 2 reference answers, token-embedder; BERTScore-style: no idf, no baseline rescaling\): auxiliary, not a verdict$/);
    assert.deepEqual(requests, [[texts.answer, texts.far, texts.close]], "one request, the entries put back in order by index");

    const [again] = await tokenMatchingEvaluations(tokens, caseResult, evalCase, EVALUATED_AT);
    assert.equal(requests.length, 1, "no second request");
    assert.match(again!.reason, /\(cached embeddings\)/);
    assert.equal(tokens.cachedValues, (5 + 7 + 3) * 8);
  });

  test("the cache is bounded by the numbers it holds: the least recently used text goes first", async () => {
    const tokens = client({ cacheValues: (5 + 7) * 8 });
    assert.ok((await tokens.embedTokens([texts.answer, texts.close])).ok);
    assert.equal(tokens.cachedValues, 96);
    assert.ok((await tokens.embedTokens([texts.far])).ok);
    assert.equal(tokens.cachedValues, (7 + 3) * 8, "the answer (least recently used) was evicted");
    requests.length = 0;
    assert.ok((await tokens.embedTokens([texts.close, texts.answer])).ok);
    assert.deepEqual(requests, [[texts.answer]]);
  });

  test("a server with pooling on (one vector per text) is an error that says to start it with --pooling none", async () => {
    answer = (input) => ({ status: 200, body: input.map((_, index) => ({ index, embedding: [[0.1, 0.2, 0.3]] })) });
    const [result] = await tokenMatchingEvaluations(client(), buildCaseResult({ output: texts.answer }), buildCase({ reference_answer: texts.close }), EVALUATED_AT);
    assert.equal(result?.outcome, "error");
    assert.deepEqual(result?.metric_values, { answer_bertscore_precision: null, answer_bertscore_recall: null, answer_bertscore_f1: null });
    assert.match(result!.reason, /one vector per text, not one per token: start llama-server with --embeddings --pooling none/);
  });

  test("an OpenAI-style flat vector, an HTTP error and mismatched lengths are errors with their reasons, never a 0", async () => {
    answer = (input) => ({ status: 200, body: input.map((_, index) => ({ index, embedding: [0.1, 0.2] })) });
    const [flat] = await tokenMatchingEvaluations(client(), buildCaseResult({ output: texts.answer }), buildCase({ reference_answer: texts.close }), EVALUATED_AT);
    assert.equal(flat?.outcome, "error");
    assert.match(flat!.reason, /\(unparseable\).*without token vectors.*--pooling none/);

    answer = () => ({ status: 400, body: { error: { code: 400, message: "Pooling type 'none' is not OAI compatible", type: "invalid_request_error" } } });
    const [refused] = await tokenMatchingEvaluations(client(), buildCaseResult({ output: texts.answer }), buildCase({ reference_answer: texts.close }), EVALUATED_AT);
    assert.equal(refused?.outcome, "error");
    assert.match(refused!.reason, /token embeddings endpoint error \(http_error\).*400/);
    assert.equal(refused?.metric_values.answer_bertscore_f1, null);

    answer = (input) => ({ status: 200, body: input.map((_, index) => ({ index, embedding: index === 0 ? [[1, 0, 0], [0, 1, 0]] : [[1, 0]] })) });
    const [mismatched] = await tokenMatchingEvaluations(client(), buildCaseResult({ output: texts.answer }), buildCase({ reference_answer: texts.close }), EVALUATED_AT);
    assert.equal(mismatched?.outcome, "error");
    assert.match(mismatched!.reason, /cannot be matched/);
  });

  test("no answer or no reference answer: nothing measured", async () => {
    assert.deepEqual(await tokenMatchingEvaluations(client(), buildCaseResult({ output: null }), buildCase({ reference_answer: texts.close }), EVALUATED_AT), []);
    assert.deepEqual(await tokenMatchingEvaluations(client(), buildCaseResult({ output: texts.answer }), buildCase({}), EVALUATED_AT), []);
    assert.equal(requests.length, 0);
  });
});
