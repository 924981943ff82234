/**
 * A request that retrieves twice (two top-level retrieve spans, their documents joined in time order into one
 * ranking), one of the two retrievals' documents not available. Before, the unavailable one was joined as an empty
 * list: the ranking lacked its block, and every document after it moved up.
 *
 * The trace is the ragscope SDK golden (test/golden/traces/langchain-ragscope-adapter: one rag.retrieve recording
 * leave_v2_s2, leave_v3_s2, leave_v3_s4), with a second rag.retrieve — a copy of the first under another span id, as
 * a second call of the retriever writes it — whose second document's attributes are removed (a gap: its list is not
 * available, test/golden/index-gaps.test.ts), or whose documents are all removed (it recorded none). Replayed through
 * the collector's consumer path (replay-golden.ts).
 *
 * Expected: the joined ranking (retrieved_chunks) is not available (null), and the Case Result's
 * `malformed_attributes` says why on the retrieval without documents (`retrieved_chunks`, kind `unreadable_value`).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { editGoldenTrace, type EditedGoldenTrace, type OtlpSpan } from "./edited-golden-trace.js";
import { replayTrace } from "./replay-golden.js";
import { goldenCase } from "./scenarios/policy-corpus.js";

const SECOND_RETRIEVAL = "1001000000000009";

function removeUnder(trace: EditedGoldenTrace, span: OtlpSpan, prefixes: readonly string[]): number {
  const keys = span.attributes.map((attribute) => attribute.key).filter((key) => prefixes.some((prefix) => key.startsWith(prefix)));
  for (const key of keys) trace.remove(span, key);
  return keys.length;
}

async function replayed(json: string) {
  const [evaluation, ...others] = await replayTrace(json, [goldenCase]);
  assert.equal(others.length, 0, "one trace, one Case Result");
  return evaluation!;
}

const isOriginal = (span: OtlpSpan) => span.spanId !== SECOND_RETRIEVAL;

for (const [what, prefixes] of [
  ["with a gap in its list", ["retrieval.documents.1.", "ragscope.documents.1."]],
  ["that recorded no documents", ["retrieval.documents.", "ragscope.documents."]],
] as const) {
  test(`two retrievals, one ${what}: the joined ranking is not available rather than missing that retrieval's block`, async () => {
    const trace = await editGoldenTrace("langchain-ragscope-adapter");
    const copy = trace.copySpan(trace.span("rag.retrieve"), SECOND_RETRIEVAL);
    assert.ok(removeUnder(trace, copy, prefixes) > 0);

    const evaluation = await replayed(trace.json());
    const observation = evaluation.caseResult.rag_observation;
    assert.equal(observation.retrieved_chunks, null, "not the first retrieval's leave_v2_s2, leave_v3_s2, leave_v3_s4 alone, as if the second had returned nothing");
    const joined = observation.malformed_attributes.filter((note) => note.attribute === "retrieved_chunks");
    assert.deepEqual(joined.map((note) => [note.span_id, note.span_name, note.kind]), [[SECOND_RETRIEVAL, "rag.retrieve", "unreadable_value"]]);
    assert.match(joined[0]!.error, /one of the trace's 2 retrievals, whose documents are joined in time order into one ranking; .* so the joined ranking \(retrieved_chunks, or pre_rerank_chunks under a rerank\) is not available/);
    assert.ok(
      observation.malformed_attributes.every((note) => note.span_id === SECOND_RETRIEVAL),
      "the first retrieval, read whole, has nothing to say",
    );
  });
}

test("two retrievals, both read whole: joined in order, the copy's documents after the first's (the edit itself hides nothing)", async () => {
  const trace = await editGoldenTrace("langchain-ragscope-adapter");
  trace.copySpan(trace.span("rag.retrieve", isOriginal), SECOND_RETRIEVAL);

  const observation = (await replayed(trace.json())).caseResult.rag_observation;
  assert.deepEqual(observation.retrieved_chunks?.map((chunk) => chunk.chunk_id), ["leave_v2_s2", "leave_v3_s2", "leave_v3_s4", "leave_v2_s2", "leave_v3_s2", "leave_v3_s4"]);
  assert.deepEqual(observation.malformed_attributes, []);
});
