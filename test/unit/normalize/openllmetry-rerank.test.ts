/**
 * OpenLLMetry's rerank span (`llm.request.type = rerank`, Python
 * opentelemetry-instrumentation-cohere's `cohere.rerank`): read as the rerank
 * only when it can be read whole, and named by the retrieval's texts in the
 * rebuild, all or none. The attribute layout is the instrumentation's
 * span_utils.py (documents as system prompts, the query as the last user
 * prompt, completions "Doc <index>, Score: <relevance>", the text after a
 * newline when returned); a recording of the real instrumentation is replayed
 * by test/golden/openllmetry-cohere-rerank.test.ts.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Attributes } from "../../../collector/00-otlp/span-record.js";
import { createTraceNormalizer } from "../../../collector/04-normalize/normalize-spans.js";
import { openLlmetryMapper } from "../../../collector/04-normalize/openllmetry-mapper.js";
import type { ObservedDocument } from "../../../collector/04-normalize/stage-observation.js";
import { nameRerankedByText } from "../../../collector/06-rebuild/name-reranked-by-text.js";
import { rebuildCaseResult } from "../../../collector/06-rebuild/rebuild-case-result.js";
import { event, spanRecord } from "./span-fixture.js";

const REFUND = "Refunds are paid within 30 days of the return.";
const SHIPPING = "Shipping takes 5 days.";
const DAMAGE = "Refunds for shipping damage need a photo.";

/** A `cohere.rerank` span's attributes: the documents, the query, then the completions as given. */
function rerankAttributes(documents: readonly string[], query: string, completions: readonly string[]): Attributes {
  const attributes: Attributes = { "llm.request.type": "rerank", "gen_ai.system": "Cohere", "gen_ai.request.model": "rerank-v3.5" };
  documents.forEach((text, index) => {
    attributes[`gen_ai.prompt.${index}.role`] = "system";
    attributes[`gen_ai.prompt.${index}.content`] = text;
  });
  attributes[`gen_ai.prompt.${documents.length}.role`] = "user";
  attributes[`gen_ai.prompt.${documents.length}.content`] = query;
  completions.forEach((content, index) => {
    attributes[`gen_ai.completion.${index}.role`] = "assistant";
    attributes[`gen_ai.completion.${index}.content`] = content;
  });
  return attributes;
}

const read = (attributes: Attributes) => openLlmetryMapper.map(spanRecord({ name: "cohere.rerank", attributes }));

describe("OpenLLMetry rerank span", () => {
  test("read whole: the query, the documents in the order passed, the ranking by index with its scores", () => {
    const observation = read(rerankAttributes([REFUND, SHIPPING, DAMAGE], "How long do refunds take?", ["Doc 2, Score: 0.91", `Doc 0, Score: 0.63\n${REFUND}`]));
    assert.equal(observation.stage, "rerank");
    if (observation.stage !== "rerank") return;
    assert.equal(observation.query, "How long do refunds take?");
    assert.deepEqual(observation.input?.map((document) => [document.chunkId, document.text, document.score]), [
      [null, REFUND, null],
      [null, SHIPPING, null],
      [null, DAMAGE, null],
    ]);
    assert.deepEqual(observation.output?.map((document) => [document.chunkId, document.text, document.score]), [
      [null, DAMAGE, 0.91],
      [null, REFUND, 0.63],
    ]);
    assert.equal(observation.documentsNamedByText, true);
  });

  test("an echoed document text may hold newlines of its own; Python's exponent notation is a score", () => {
    const multiline = "Line one.\nLine two.";
    const observation = read(rerankAttributes([multiline, SHIPPING], "q", [`Doc 0, Score: 0.5\n${multiline}`, "Doc 1, Score: 1e-05"]));
    assert.equal(observation.stage, "rerank");
    assert.deepEqual(observation.stage === "rerank" && observation.output?.map((document) => [document.text, document.score]), [
      [multiline, 0.5],
      [SHIPPING, 0.00001],
    ]);
  });

  const notRead: [string, Attributes][] = [
    ["no completions (the call failed, or content tracing was off for the response)", rerankAttributes([REFUND, SHIPPING], "q", [])],
    ["an index past the documents", rerankAttributes([REFUND, SHIPPING], "q", ["Doc 2, Score: 0.9"])],
    ["two documents with the same text", rerankAttributes([REFUND, REFUND, SHIPPING], "q", ["Doc 0, Score: 0.9", "Doc 1, Score: 0.8"])],
    ["the same index twice", rerankAttributes([REFUND, SHIPPING], "q", ["Doc 0, Score: 0.9", "Doc 0, Score: 0.8"])],
    ["a score that is no number", rerankAttributes([REFUND, SHIPPING], "q", ["Doc 0, Score: nan"])],
    ["a completion in another form", rerankAttributes([REFUND, SHIPPING], "q", ["The first document."])],
    ["an echoed text that is not the document's", rerankAttributes([REFUND, SHIPPING], "q", [`Doc 0, Score: 0.9\n${SHIPPING}`])],
    ["no documents, only the query", rerankAttributes([], "q", ["Doc 0, Score: 0.9"])],
  ];
  for (const [what, attributes] of notRead) {
    test(`not read as the rerank, nor as a generation: ${what}`, () => {
      assert.deepEqual(read(attributes), { stage: "other" });
    });
  }

  test("not read: a document the instrumentation did not record (an empty text, an object), which leaves a hole in the prompts", () => {
    const attributes = rerankAttributes([REFUND, SHIPPING, DAMAGE], "q", ["Doc 2, Score: 0.9"]);
    delete attributes["gen_ai.prompt.1.content"];
    assert.deepEqual(read(attributes), { stage: "other" });
    const withoutQuery = rerankAttributes([REFUND, SHIPPING], "q", ["Doc 1, Score: 0.9"]);
    withoutQuery["gen_ai.prompt.2.role"] = "system";
    assert.deepEqual(read(withoutQuery), { stage: "other" }, "the last prompt is the query, role user");
  });
});

describe("rebuild: a rerank named by text gets the retrieved chunks' ids, all or none", () => {
  const normalize = createTraceNormalizer();
  type Hit = { id?: string; text: string; score: number };
  /** A request, a vector search whose hits are `db.query.result` events (as OpenLLMetry's vector-store instrumentations write them), the rerank. */
  function rebuild(hits: readonly Hit[], rerank: Attributes) {
    const root = spanRecord({ spanId: "aaaaaaaaaaaaaaaa", parentSpanId: "", attributes: { "traceloop.span.kind": "workflow", "traceloop.entity.input": JSON.stringify({ args: ["How long do refunds take?"] }) } });
    const search = spanRecord({
      spanId: "bbbbbbbbbbbbbbbb",
      parentSpanId: root.spanId,
      name: "chroma.query",
      attributes: { "db.system": "chroma" },
      events: hits.map((hit) => event("db.query.result", { ...(hit.id === undefined ? {} : { "db.query.result.id": hit.id }), "db.query.result.document": hit.text, "db.query.result.score": hit.score })),
    });
    const reranker = spanRecord({ spanId: "cccccccccccccccc", parentSpanId: root.spanId, name: "cohere.rerank", attributes: rerank });
    const spans = [root, search, reranker];
    return rebuildCaseResult({ traceId: root.traceId, spans, complete: true, reason: "complete", reopened: false, sources: [], bytes: 0, lastSpanAt: 0 }, normalize(spans)).rag_observation;
  }
  const retrieved: Hit[] = [
    { id: "refund-1", text: REFUND, score: 0.8 },
    { id: "shipping-1", text: SHIPPING, score: 0.6 },
    { id: "refund-2", text: DAMAGE, score: 0.5 },
  ];
  const ranking = (chunks: { rank: number; chunk_id: string | null; score: number | null }[] | null) => chunks?.map((chunk) => [chunk.rank, chunk.chunk_id, chunk.score]) ?? null;

  test("every text one retrieved chunk: the rerank's ranking is the final one, under the chunks' ids; the retrieval's is kept before it", () => {
    const observation = rebuild(retrieved, rerankAttributes([REFUND, SHIPPING, DAMAGE], "How long do refunds take?", ["Doc 2, Score: 0.91", "Doc 0, Score: 0.63"]));
    assert.deepEqual(ranking(observation.retrieved_chunks), [
      [1, "refund-2", 0.91],
      [2, "refund-1", 0.63],
    ]);
    assert.deepEqual(observation.retrieved_chunks?.map((chunk) => chunk.text), [DAMAGE, REFUND]);
    assert.deepEqual(ranking(observation.pre_rerank_chunks), [
      [1, "refund-1", 0.8],
      [2, "shipping-1", 0.6],
      [3, "refund-2", 0.5],
    ]);
    assert.deepEqual(observation.stage_timings.map((timing) => timing.stage), ["request", "retrieve", "rerank"]);
  });

  const retrievalStands: [string, Hit[], string[]][] = [
    ["a reranked text the retrieval did not record", retrieved, [REFUND, "Refunds are paid within 30 days."]],
    ["a text two retrieved chunks share", [...retrieved, { id: "refund-1-copy", text: REFUND, score: 0.4 }], [REFUND, SHIPPING]],
    ["a text only a retrieved document without an id holds", [...retrieved, { text: "No id here.", score: 0.3 }], [REFUND, "No id here."]],
    ["a text equal to a retrieved one but for its case and punctuation (no normalisation: a near match is not the chunk)", retrieved, [REFUND, "shipping takes 5 days"]],
  ];
  for (const [what, hits, texts] of retrievalStands) {
    test(`the retrieval's ranking stands, with no pre-rerank list: ${what}`, () => {
      const observation = rebuild(hits, rerankAttributes(texts, "q", ["Doc 1, Score: 0.9", "Doc 0, Score: 0.2"]));
      assert.deepEqual(
        observation.retrieved_chunks?.map((chunk) => chunk.chunk_id),
        hits.map((hit) => hit.id ?? null),
      );
      assert.equal(observation.pre_rerank_chunks, null);
    });
  }

  test("the same chunk retrieved twice (two retrievers) is one chunk: its text names it", () => {
    const observation = rebuild([...retrieved, { id: "refund-1", text: REFUND, score: 0.7 }], rerankAttributes([REFUND, SHIPPING], "q", ["Doc 1, Score: 0.9", "Doc 0, Score: 0.2"]));
    assert.deepEqual(ranking(observation.retrieved_chunks), [
      [1, "shipping-1", 0.9],
      [2, "refund-1", 0.2],
    ]);
  });
});

test("naming by text: a rerank given one text twice is not named (both would be one chunk, listed twice)", () => {
  // The mapper reads no such span; a rerank observation of another reader could still carry one.
  const document = (chunkId: string | null, text: string, score: number | null): ObservedDocument => ({
    chunkId, documentId: null, documentVersion: null, sectionId: null, text, score, effectiveFrom: null, effectiveTo: null, acl: null, tenantId: null,
  });
  const retrieved = [document("refund-1", REFUND, 0.8), document("shipping-1", SHIPPING, 0.6)];
  const rerank = { stage: "rerank" as const, query: "q", input: [document(null, REFUND, null), document(null, REFUND, null)], output: [document(null, REFUND, 0.9), document(null, REFUND, 0.8)], documentsNamedByText: true };
  assert.equal(nameRerankedByText(rerank, retrieved), null);
  const named = nameRerankedByText({ ...rerank, input: [document(null, REFUND, null), document(null, SHIPPING, null)], output: [document(null, SHIPPING, 0.9)] }, retrieved);
  assert.deepEqual(named?.output?.map((item) => [item.chunkId, item.score]), [["shipping-1", 0.9]]);
});
