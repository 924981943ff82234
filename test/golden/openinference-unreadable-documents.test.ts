/**
 * OpenInference retriever spans with document values their reader cannot read (read-documents.ts
 * `readDocuments`): a score that is no number, a returned document in `output.value` that is no LangChain
 * Document, a document with neither content nor an id, an `output.value` that holds no documents list. Each was
 * read as absent — and before, nothing on the Case Result said so: a score, an id or the retrieval's documents
 * looked as if the trace never carried them.
 *
 * The traces are recorded goldens (test/golden/traces/, recorded by record-goldens.ts and
 * python/record-python-goldens.ts) with what each test names edited. Replayed through the collector's consumer path
 * (replay-golden.ts).
 *
 * Expected: what could not be read stays null (never taken from another document), and the Case Result's
 * `malformed_attributes` names the span, the attribute and the item as `unreadable_value`. The unedited goldens
 * carry no such note (golden-traces.test.ts), nor does LlamaIndex's `<NodeWithScore(…)>` output beside attributes
 * that carry every id (the LlamaIndex golden, unedited).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { editGoldenTrace } from "./edited-golden-trace.js";
import { replayTrace } from "./replay-golden.js";
import { goldenCase } from "./scenarios/policy-corpus.js";

const SCORED_RETRIEVER = "ScoredPolicyRetriever";

async function replayed(json: string) {
  const [evaluation, ...others] = await replayTrace(json, [goldenCase]);
  assert.equal(others.length, 0, "one trace, one Case Result");
  return evaluation!.caseResult.rag_observation;
}

const unreadable = (observation: Awaited<ReturnType<typeof replayed>>) => observation.malformed_attributes.filter((note) => note.kind === "unreadable_value");

test("a LlamaIndex retrieval's score of NaN: not read, the document's score not available, and the Case Result names the attribute", async () => {
  const trace = await editGoldenTrace("llama-index-openinference");
  const retriever = trace.span("VectorIndexRetriever.retrieve");
  // proto3 JSON, which OTLP/JSON is, writes a double NaN as the text "NaN" (a score from a zero-length embedding).
  trace.setValue(retriever, "retrieval.documents.1.document.score", { doubleValue: "NaN" });

  const observation = await replayed(trace.json());
  assert.deepEqual(
    observation.pre_rerank_chunks?.map((chunk) => [chunk.chunk_id, chunk.score]),
    [
      ["leave_v2_s2", 0.5990024930757497],
      ["leave_v3_s2", null],
      ["leave_v3_s4", 0.3368165348543039],
    ],
    "the retrieval's ranking as recorded, the unreadable score not available",
  );
  const notes = unreadable(observation);
  assert.deepEqual(
    notes.map((note) => [note.span_id, note.span_name, note.attribute]),
    [[retriever.spanId, "VectorIndexRetriever.retrieve", "retrieval.documents.1.document.score"]],
    "only the retriever's score: not the inner retrieval's <NodeWithScore(…)> output, whose documents are not used",
  );
  assert.match(notes[0]!.error, /^is NaN, no finite number, not a number: not read; the score comes from the metadata when it carries one, else is not available$/);
});

test("a returned document in output.value that is no Document: the ids it gives are not read, and the Case Result says which item", async () => {
  const trace = await editGoldenTrace("langchain-openinference-scored-retriever");
  const retriever = trace.span(SCORED_RETRIEVER);
  const output = JSON.parse(trace.text(retriever, "output.value")) as { documents: { pageContent: string; metadata: { score: number }; id: string }[] };
  assert.deepEqual(output.documents.map((document) => document.id), ["leave_v3_s2", "leave_v2_s2"], "the ids are in the output only");
  const second = output.documents[1]!;
  (output.documents as unknown[])[1] = [{ pageContent: second.pageContent, metadata: second.metadata, id: second.id }, second.metadata.score];
  trace.setText(retriever, "output.value", JSON.stringify(output));

  const observation = await replayed(trace.json());
  assert.deepEqual(
    observation.retrieved_chunks?.map((chunk) => [chunk.chunk_id, chunk.score]),
    [
      [null, 0.91],
      [null, 0.74],
    ],
    "the returned documents are read all or none: no id is taken from them, none lent to the other",
  );
  const notes = unreadable(observation);
  assert.deepEqual(notes.map((note) => [note.span_id, note.span_name, note.attribute]), [[retriever.spanId, SCORED_RETRIEVER, "output.value"]]);
  assert.match(notes[0]!.error, /^documents\[1\] is a list of 2 items, not a LangChain Document .*none of its 2 is read; the ids they would give the documents of retrieval.documents are not read$/);
});

test("a retrieved document with neither content nor an id: its text and chunk id are not available, and the Case Result says which", async () => {
  const trace = await editGoldenTrace("langchain-openinference-scored-retriever");
  const retriever = trace.span(SCORED_RETRIEVER);
  // Outputs hidden (no output.value), and the second document's content left out: only its metadata, which has no id.
  trace.remove(retriever, "output.value");
  trace.remove(retriever, "output.mime_type");
  trace.remove(retriever, "retrieval.documents.1.document.content");

  const observation = await replayed(trace.json());
  assert.deepEqual(
    observation.retrieved_chunks?.map((chunk) => [chunk.chunk_id, chunk.text === null, chunk.score]),
    [
      [null, false, 0.91],
      [null, true, 0.74],
    ],
  );
  const notes = unreadable(observation);
  assert.deepEqual(notes.map((note) => [note.span_id, note.attribute]), [[retriever.spanId, "retrieval.documents.1"]], "the first document has content: only its id is not recorded, which is no error");
  assert.match(notes[0]!.error, /^carries neither document.content nor an id .*: the document's text and chunk id are not available$/);
});

test("an output.value that holds no documents list, on a retriever without retrieval.documents: not available, and the Case Result says why", async () => {
  const trace = await editGoldenTrace("langchain-openinference-scored-retriever");
  const retriever = trace.span(SCORED_RETRIEVER);
  for (const key of ["retrieval.documents.0.document.content", "retrieval.documents.0.document.metadata", "retrieval.documents.1.document.content", "retrieval.documents.1.document.metadata"]) {
    trace.remove(retriever, key);
  }
  const output = JSON.parse(trace.text(retriever, "output.value")) as { documents: unknown[] };
  trace.setText(retriever, "output.value", JSON.stringify({ results: output.documents }));

  const observation = await replayed(trace.json());
  assert.equal(observation.retrieved_chunks, null, "not available, none made up");
  const notes = unreadable(observation);
  assert.deepEqual(notes.map((note) => [note.span_id, note.attribute]), [[retriever.spanId, "output.value"]]);
  assert.match(notes[0]!.error, /^is an object with the keys "results", which holds no list of documents .*the span has no retrieval.documents attributes: the retrieval's documents are not available$/);
});
