/**
 * An OpenLLMetry vector search (`db.query.result` events, one a hit, in rank order) whose SDK dropped events. An SDK
 * past its event count limit (OTEL_SPAN_EVENT_COUNT_LIMIT, 128 by default) drops the OLDEST events (JS
 * `Span.addEvent` shifts its list; test/unit/otlp/dropped-counts.test.ts shows it on the real SDK) and counts them in
 * the span's `dropped_events_count`. Before, the hits left were read as the ranking: the best-ranked hit missing and
 * every other one moved up a rank.
 *
 * The trace is the Cohere rerank recording (test/data/openllmetry-cohere-rerank/, recorded with the real
 * instrumentations by test/golden/python/openllmetry_cohere_rerank.py: Chroma returned refund-1, shipping-1,
 * refund-2), edited as an SDK with a limit of 2 events would have sent it: its first hit (refund-1) gone and
 * `dropped_events_count` 1. Replayed through the collector's consumer path (replay-golden.ts).
 *
 * Expected: the retrieval's documents are not available (null; no shipping-1 ranked first), the rerank — which names
 * its documents by the retrieved chunks' texts — is not used either, and the Case Result's `malformed_attributes`
 * names the span's dropped_events_count as `unreadable_value`, saying the SDK's limit and that the oldest were dropped.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { editRecordedTrace } from "./edited-golden-trace.js";
import { replayTrace } from "./replay-golden.js";

const COHERE_RECORDING = fileURLToPath(new URL("../data/openllmetry-cohere-rerank/cohere-rerank.otlp.json", import.meta.url));

async function replayed(json: string) {
  const [evaluation, ...others] = await replayTrace(json, []);
  assert.equal(others.length, 0, "one trace, one Case Result");
  return evaluation!.caseResult.rag_observation;
}

test("a vector search whose SDK dropped its oldest db.query.result event: the ranking is not available rather than shipping-1 ranked first", async () => {
  const trace = await editRecordedTrace(COHERE_RECORDING, "the Cohere rerank recording");
  const query = trace.span("chroma.query");
  trace.dropOldestEvents(query, 1);

  const observation = await replayed(trace.json());
  assert.equal(observation.retrieved_chunks, null, "recorded: refund-1, shipping-1, refund-2; shipping-1 must not be ranked first");
  assert.equal(observation.pre_rerank_chunks, null);
  const notes = observation.malformed_attributes.filter((note) => note.kind === "unreadable_value");
  assert.deepEqual(notes.map((note) => [note.span_id, note.span_name, note.attribute]), [[query.spanId, "chroma.query", "dropped_events_count"]], "one note for the span, not one per hit");
  assert.match(notes[0]!.error, /^is 1: the span's SDK dropped 1 of its events \(2 db\.query\.result events kept\)/);
  assert.match(notes[0]!.error, /OTEL_SPAN_EVENT_COUNT_LIMIT, 128 by default\) drops the oldest ones/);
  assert.match(notes[0]!.error, /the retrieval's documents are not available/);
});

test("the same search with no event dropped (dropped_events_count 0 written out): read whole, as recorded", async () => {
  const trace = await editRecordedTrace(COHERE_RECORDING, "the Cohere rerank recording");
  trace.dropOldestEvents(trace.span("chroma.query"), 0);

  const observation = await replayed(trace.json());
  assert.deepEqual(
    observation.pre_rerank_chunks?.map((chunk) => [chunk.rank, chunk.chunk_id]),
    [
      [1, "refund-1"],
      [2, "shipping-1"],
      [3, "refund-2"],
    ],
  );
  assert.deepEqual(observation.malformed_attributes, []);
});
