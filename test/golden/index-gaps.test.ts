/**
 * Flattened lists with an index missing below the highest — `retrieval.documents.0.*` and `.2.*` but no `.1.*`, the
 * same in OpenLLMetry's `gen_ai.prompt.N.*` — which is what a span truncated at its SDK's attribute count limit
 * (OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT, 128 by default) looks like. Before, the readers compacted the list: each document
 * after the gap ranked one place higher than recorded, which raises Hit@k and MRR (trec_eval's ranks are the list's
 * positions), and nothing said so.
 *
 * The traces are recorded goldens (test/golden/traces/, recorded by record-goldens.ts and
 * python/record-python-goldens.ts) and the Cohere rerank recording (test/data/openllmetry-cohere-rerank/), with
 * every attribute of one index removed, as named in each test. Replayed through the collector's consumer path
 * (replay-golden.ts).
 *
 * Expected: the list is not available (null) — no missing rank filled by a neighbour — and the Case Result's
 * `malformed_attributes` names the missing index as `unreadable_value`, saying a truncated span looks so.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { editGoldenTrace, editRecordedTrace, type EditedGoldenTrace, type OtlpSpan } from "./edited-golden-trace.js";
import { replayTrace } from "./replay-golden.js";
import { goldenCase } from "./scenarios/policy-corpus.js";

const COHERE_RECORDING = fileURLToPath(new URL("../data/openllmetry-cohere-rerank/cohere-rerank.otlp.json", import.meta.url));
const TRUNCATED = /A gap is what a truncated span looks like: a span whose SDK reached its attribute count limit \(OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT, 128 by default\) loses attributes so/;

/** Removes every attribute of the span under one of the prefixes (e.g. `retrieval.documents.1.`); returns how many. */
function removeUnder(trace: EditedGoldenTrace, span: OtlpSpan, prefixes: readonly string[]): number {
  const keys = span.attributes.map((attribute) => attribute.key).filter((key) => prefixes.some((prefix) => key.startsWith(prefix)));
  for (const key of keys) trace.remove(span, key);
  return keys.length;
}

async function replayed(json: string, cases = [goldenCase]) {
  const [evaluation, ...others] = await replayTrace(json, cases);
  assert.equal(others.length, 0, "one trace, one Case Result");
  return evaluation!.caseResult.rag_observation;
}

const unreadable = (observation: Awaited<ReturnType<typeof replayed>>) => observation.malformed_attributes.filter((note) => note.kind === "unreadable_value");

test("ragscope's SDK: a retrieval without its second document is not available rather than its third ranked second", async () => {
  const trace = await editGoldenTrace("langchain-ragscope-adapter");
  const retrieve = trace.span("rag.retrieve");
  assert.ok(removeUnder(trace, retrieve, ["retrieval.documents.1.", "ragscope.documents.1."]) > 0);

  const observation = await replayed(trace.json());
  assert.equal(observation.retrieved_chunks, null, "recorded: leave_v2_s2, leave_v3_s2, leave_v3_s4; leave_v3_s4 must not be ranked second");
  const notes = unreadable(observation);
  assert.deepEqual(notes.map((note) => [note.span_id, note.span_name, note.attribute]), [[retrieve.spanId, "rag.retrieve", "retrieval.documents.1"]]);
  assert.match(notes[0]!.error, /^is missing: the span carries retrieval\.documents\.2 but no attribute of retrieval\.documents\.1 \(2 of 3 items recorded\); .*the retrieval's documents are not available/);
  assert.match(notes[0]!.error, TRUNCATED);
});

test("OpenInference (LlamaIndex): the retriever's list with a gap is not read, and the ranking before the rerank is the one the reranker recorded whole", async () => {
  const trace = await editGoldenTrace("llama-index-openinference");
  const retriever = trace.span("VectorIndexRetriever.retrieve");
  assert.equal(removeUnder(trace, retriever, ["retrieval.documents.1."]), 4, "its id, content, score and metadata");

  const observation = await replayed(trace.json());
  assert.deepEqual(
    observation.pre_rerank_chunks?.map((chunk) => [chunk.rank, chunk.chunk_id]),
    [
      [1, "leave_v2_s2"],
      [2, "leave_v3_s2"],
      [3, "leave_v3_s4"],
    ],
    "the reranker's recorded input, leave_v3_s4 third as retrieved; not the retriever's two documents with leave_v3_s4 moved up to second",
  );
  const notes = unreadable(observation).filter((note) => note.span_id === retriever.spanId);
  assert.deepEqual(notes.map((note) => note.attribute), ["retrieval.documents.1"], "the gap only: its output's <NodeWithScore(…)> texts are not used, and cost nothing");
  assert.match(notes[0]!.error, /^is missing: .*\(2 of 3 items recorded\); .*the documents of retrieval\.documents are not available\. /);
  assert.match(notes[0]!.error, TRUNCATED);
});

test("OpenLLMetry's Cohere rerank without its second document's prompt: still the rerank, its ranking not known, so no final ranking, and the Case Result names the gap", async () => {
  const trace = await editRecordedTrace(COHERE_RECORDING, "the Cohere rerank recording");
  const rerank = trace.span("cohere.rerank");
  assert.equal(removeUnder(trace, rerank, ["gen_ai.prompt.1."]), 2, "its role and content");

  const observation = await replayed(trace.json(), []);
  assert.equal(observation.retrieved_chunks, null, "not Chroma's ranking: the rerank's 'Doc 2' cannot be told without its second document, and its ranking is the final one");
  assert.deepEqual(
    observation.pre_rerank_chunks?.map((chunk) => [chunk.rank, chunk.chunk_id]),
    [
      [1, "refund-1"],
      [2, "shipping-1"],
      [3, "refund-2"],
    ],
    "Chroma's ranking, as recorded: the one before the rerank",
  );
  const notes = unreadable(observation);
  assert.deepEqual(notes.map((note) => [note.span_id, note.span_name, note.attribute]), [
    [rerank.spanId, "cohere.rerank", "gen_ai.prompt.1"],
    [rerank.spanId, "cohere.rerank", "retrieved_chunks"],
  ]);
  assert.match(notes[0]!.error, /^is missing: the span carries gen_ai\.prompt\.3 but no attribute of gen_ai\.prompt\.1 \(3 of 4 items recorded\); .*the rerank's documents and query are not read, so its ranking, the final one, is not known\. /);
  assert.match(notes[0]!.error, TRUNCATED);
  assert.match(notes[1]!.error, /^this rerank's output is not available \(this span's other notes say why\)/);
});
