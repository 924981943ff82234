/**
 * A document that is read, with a part that cannot be (unread-document-fields.ts): the part is read as absent and
 * named, in the readers that take documents from records — a Traceloop chain step's returned LangChain documents,
 * Traceloop Python's retriever span, OpenInference's returned documents in `output.value`.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { openInferenceMapper } from "../../../collector/04-normalize/openinference-mapper.js";
import { openLlmetryMapper } from "../../../collector/04-normalize/openllmetry-mapper.js";
import { spanRecord } from "./span-fixture.js";

test("a Traceloop JS step's document whose id is empty and whose metadata is no object: both not read, both named", () => {
  const observation = openLlmetryMapper.map(
    spanRecord({
      attributes: {
        "traceloop.span.kind": "task",
        "traceloop.entity.input": JSON.stringify({ input: "carry over?" }),
        "traceloop.entity.output": JSON.stringify({ output: [{ pageContent: "Five days.", metadata: { chunk_id: "c1" } }, { pageContent: "None.", id: "", metadata: "c2" }] }),
      },
    }),
  );
  assert.equal(observation.stage, "retrieve");
  assert.deepEqual(observation.stage === "retrieve" && observation.documents?.map((document) => document.chunkId), ["c1", null], "nothing taken from the neighbour");
  assert.deepEqual(observation.unreadable?.map((note) => note.attribute), ["traceloop.entity.output"]);
  assert.match(observation.unreadable![0]!.error, /^document \[1\]: its "id" is the text "", not an id .*; its "metadata" is the text "c2", not an object; those parts are not read/);
});

test("a Traceloop Python retriever's documents, all readable: nothing said", () => {
  const observation = openLlmetryMapper.map(
    spanRecord({
      attributes: {
        "traceloop.span.kind": "task",
        "gen_ai.operation.name": "vector_db_retrieve",
        "traceloop.entity.input": JSON.stringify({ query: "carry over?" }),
        "traceloop.entity.output": JSON.stringify({ documents: [{ page_content: "Five days.", metadata: { chunk_id: "c1" } }], count: 1 }),
      },
    }),
  );
  assert.equal(observation.unreadable, undefined);
});

test("OpenInference: a returned document's id that is no id, when it would have named an attribute document", () => {
  const observation = openInferenceMapper.map(
    spanRecord({
      attributes: {
        "openinference.span.kind": "RETRIEVER",
        "output.mime_type": "application/json",
        "output.value": JSON.stringify({ documents: [{ pageContent: "Five days.", metadata: {}, id: { uuid: "c1" } }] }),
        "retrieval.documents.0.document.content": "Five days.",
      },
    }),
  );
  assert.deepEqual(observation.stage === "retrieve" && observation.documents?.map((document) => document.chunkId), [null]);
  assert.deepEqual(observation.unreadable?.map((note) => note.attribute), ["output.value"]);
  assert.match(observation.unreadable![0]!.error, /^documents\[0\]: its "id" is an object with the keys "uuid", not an id/);
});
