/**
 * Spans whose SDK dropped attributes at its count limit (OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT, 128 by default), as OTLP
 * `dropped_attributes_count` says. The JS SDK drops each NEW attribute set after the limit and keeps the ones it has
 * (`Span.setAttribute`; test/unit/otlp/dropped-attributes-cut-list.test.ts shows it on the real SDK), so documents
 * recorded in rank order lose their LAST ones whole: no index is missing. Before, such a list was read as carried —
 * a relevant document past the cut counted as not retrieved — and a gap's note called the limit only a possibility.
 *
 * The traces are recorded goldens (test/golden/traces/, recorded by record-goldens.ts), edited as an SDK at its limit
 * would have sent them: the attributes of the named documents removed and counted in `dropped_attributes_count`
 * (edited-golden-trace.ts `dropAttributes`). Replayed through the collector's consumer path (replay-golden.ts).
 *
 * Expected: a list cut at its end is not available (null), with one `unreadable_value` note saying the span lost N
 * attributes to its SDK's limit; a gap's note says so as a fact; a list whose recorded length matches what it carries
 * is read as recorded, whatever else the span lost.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { editGoldenTrace } from "./edited-golden-trace.js";
import { replayTrace } from "./replay-golden.js";
import { goldenCase } from "./scenarios/policy-corpus.js";

async function replayed(json: string) {
  const [evaluation, ...others] = await replayTrace(json, [goldenCase]);
  assert.equal(others.length, 0, "one trace, one Case Result");
  return evaluation!.caseResult.rag_observation;
}

type Observation = Awaited<ReturnType<typeof replayed>>;
const unreadable = (observation: Observation) => observation.malformed_attributes.filter((note) => note.kind === "unreadable_value");
const lost = (count: number) => new RegExp(`The span lost ${count} attributes to its SDK's limit OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT \\(128 by default; dropped_attributes_count ${count}\\); raise it`);

test("ragscope's SDK: a retrieval whose last document its SDK dropped is not available, its recorded count telling how many are missing", async () => {
  const trace = await editGoldenTrace("langchain-ragscope-adapter");
  const retrieve = trace.span("rag.retrieve");
  const dropped = trace.dropAttributes(retrieve, ["retrieval.documents.2.", "ragscope.documents.2."]);

  const observation = await replayed(trace.json());
  assert.equal(observation.retrieved_chunks, null, "recorded: leave_v2_s2, leave_v3_s2, leave_v3_s4; read as two, leave_v3_s4 would count as not retrieved");
  const notes = unreadable(observation);
  assert.deepEqual(notes.map((note) => [note.span_id, note.span_name, note.attribute]), [[retrieve.spanId, "rag.retrieve", "retrieval.documents.1"]]);
  assert.match(notes[0]!.error, /^is not the last document: the span carries retrieval\.documents\.0 to retrieval\.documents\.1 of the 3 documents its ragscope\.retrieval\.document_count says were recorded, so the last one was dropped/);
  assert.match(notes[0]!.error, /the retrieval's documents are not available/);
  assert.match(notes[0]!.error, lost(dropped));
});

test("ragscope's SDK: with its count dropped too, a list with no gap on a span that lost attributes may be cut, and is not read", async () => {
  const trace = await editGoldenTrace("langchain-ragscope-adapter");
  // Recorded by the JS SDK with its own resource: the language its default resource would name, for the JS order's note.
  trace.setSdkLanguage("nodejs");
  const retrieve = trace.span("rag.retrieve");
  const dropped = trace.dropAttributes(retrieve, ["retrieval.documents.2.", "ragscope.documents.2.", "ragscope.retrieval.document_count"]);

  const observation = await replayed(trace.json());
  assert.equal(observation.retrieved_chunks, null);
  const notes = unreadable(observation);
  assert.equal(notes.length, 1);
  assert.match(notes[0]!.error, /^may not be the last document: the span carries retrieval\.documents\.0 to retrieval\.documents\.1 with no gap, but an SDK past its attribute count limit drops the attributes set last/);
  assert.match(notes[0]!.error, lost(dropped));
});

test("ragscope's SDK: a list whose recorded count matches what it carries is read whole, though the span lost other attributes", async () => {
  const trace = await editGoldenTrace("langchain-ragscope-adapter");
  const retrieve = trace.span("rag.retrieve");
  trace.dropAttributes(retrieve, ["ragscope.retrieval.retriever"]);

  const observation = await replayed(trace.json());
  assert.deepEqual(
    observation.retrieved_chunks?.map((chunk) => [chunk.rank, chunk.chunk_id]),
    [
      [1, "leave_v2_s2"],
      [2, "leave_v3_s2"],
      [3, "leave_v3_s4"],
    ],
  );
  assert.deepEqual(unreadable(observation), []);
});

test("ragscope's SDK: a gap on a span whose SDK dropped attributes is named as the SDK's limit, with the count, not as a likely cause", async () => {
  const trace = await editGoldenTrace("langchain-ragscope-adapter");
  const retrieve = trace.span("rag.retrieve");
  const dropped = trace.dropAttributes(retrieve, ["retrieval.documents.1.", "ragscope.documents.1."]);

  const observation = await replayed(trace.json());
  assert.equal(observation.retrieved_chunks, null);
  const notes = unreadable(observation);
  assert.deepEqual(notes.map((note) => note.attribute), ["retrieval.documents.1"], "the gap's note only: the list has a gap, so no cut is guessed at");
  assert.match(notes[0]!.error, lost(dropped));
  assert.doesNotMatch(notes[0]!.error, /A gap is what a truncated span looks like/);
});

test("OpenInference (LlamaIndex): a retriever whose SDK dropped its last document (and the output set after it) is not available", async () => {
  const trace = await editGoldenTrace("llama-index-openinference");
  const retriever = trace.span("VectorIndexRetriever.retrieve");
  const dropped = trace.dropAttributes(retriever, ["retrieval.documents.2.", "output."]);

  const observation = await replayed(trace.json());
  // The rerank after it recorded its own input whole; the retriever's list is the one not read.
  const notes = unreadable(observation).filter((note) => note.span_id === retriever.spanId);
  assert.deepEqual(notes.map((note) => note.attribute), ["retrieval.documents.1"]);
  // A Python recording: its SDK evicts the oldest, so the note does not give the JS order as the only one.
  assert.match(notes[0]!.error, /^may not be the last document, nor the list whole: .*the span's SDK is "python" \(telemetry\.sdk\.language\), whose order of dropping is not relied on: .*one that evicts the oldest \(Python's\) its first documents.*the retrieval's documents are not available/);
  assert.match(notes[0]!.error, lost(dropped));
});
