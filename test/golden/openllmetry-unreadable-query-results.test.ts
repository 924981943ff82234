/**
 * An OpenLLMetry vector search (`db.query.result` events, one a hit) whose hit carries a value its reader cannot
 * read. Before, the value was read as absent and nothing on the Case Result said so: a chunk id that looked as if
 * the trace never carried one.
 *
 * The trace is the Cohere rerank recording (test/data/openllmetry-cohere-rerank/, recorded with the real
 * instrumentations by test/golden/python/openllmetry_cohere_rerank.py: Chroma returned refund-1, shipping-1,
 * refund-2), its second hit's `db.query.result.id` edited to a list holding the id — what an instrumentation writes
 * that takes Chroma's `ids` (a list per query) one level too shallow. Replayed through the collector's consumer path
 * (replay-golden.ts).
 *
 * Expected: the hit keeps its rank, its chunk id not available (never another hit's; the rerank, which names its
 * documents by the retrieved chunks' texts, then gives way to the retrieval's ranking), and the Case Result's
 * `malformed_attributes` names the span, the event and the value as `unreadable_value`.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { editRecordedTrace } from "./edited-golden-trace.js";
import { replayTrace } from "./replay-golden.js";

const COHERE_RECORDING = fileURLToPath(new URL("../data/openllmetry-cohere-rerank/cohere-rerank.otlp.json", import.meta.url));

test("a db.query.result hit whose id is no id: the hit keeps its rank without an id, and the Case Result names the event and the value", async () => {
  const trace = await editRecordedTrace(COHERE_RECORDING, "the Cohere rerank recording");
  const query = trace.span("chroma.query");
  trace.setEventValue(query, "db.query.result", 1, "db.query.result.id", { arrayValue: { values: [{ stringValue: "shipping-1" }] } });

  const [evaluation, ...others] = await replayTrace(trace.json(), []);
  assert.equal(others.length, 0, "one trace, one Case Result");
  const observation = evaluation!.caseResult.rag_observation;
  assert.deepEqual(
    observation.retrieved_chunks?.map((chunk) => [chunk.rank, chunk.chunk_id, chunk.text]),
    [
      [1, "refund-1", "Refunds are paid within 30 days of the return."],
      [2, null, "Shipping takes 5 days."],
      [3, "refund-2", "Refunds for shipping damage need a photo."],
    ],
    "Chroma's ranking as recorded, the unreadable id not available; it stays the final ranking, since the rerank's documents (texts) are named by the retrieved chunks' ids only when every one has one (name-reranked-by-text.ts)",
  );
  assert.equal(observation.pre_rerank_chunks, null);
  const notes = observation.malformed_attributes.filter((note) => note.kind === "unreadable_value");
  assert.deepEqual(notes.map((note) => [note.span_id, note.span_name, note.attribute]), [[query.spanId, "chroma.query", "db.query.result"]]);
  assert.match(notes[0]!.error, /^event \[1\]: its "db\.query\.result\.id" is a list of 1 items, not an id \(a non-empty text or a number\); those parts are not read/);
});
