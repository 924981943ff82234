/**
 * The notes a reader adds for values it could not read are bounded (explain-unread-value.ts): a span with thousands
 * of unreadable items adds a handful of notes, the last counting the rest, and each quotes a value in part. And what
 * is no error is not noted: absent or null parts (not recorded), a tool-call message part (no text, rightly).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { openInferenceMapper } from "../../../collector/04-normalize/openinference-mapper.js";
import { otelGenAiMapper } from "../../../collector/04-normalize/otel-genai-mapper.js";
import { spanRecord } from "./span-fixture.js";

const retrieval = (documents: unknown) =>
  otelGenAiMapper.map(spanRecord({ attributes: { "gen_ai.operation.name": "retrieval", "gen_ai.retrieval.documents": JSON.stringify(documents) } }));

test("thousands of unreadable scores: five notes and one that counts the rest", () => {
  const observation = retrieval(Array.from({ length: 2000 }, (_, index) => ({ id: `c${index}`, score: "high" })));
  assert.equal(observation.stage, "retrieve");
  const notes = observation.unreadable ?? [];
  assert.equal(notes.length, 6);
  assert.match(notes[0]!.error, /^\[0\]: its "score" is the text "high", not a number/);
  assert.match(notes[4]!.error, /^\[4\]:/);
  assert.equal(notes[5]!.error, "and 1995 more values of this span that could not be read (only the first 5 are described)");
  assert.ok(observation.stage === "retrieve" && observation.documents?.length === 2000 && observation.documents.every((document) => document.score === null), "each score not available, none made up");
});

test("a long unreadable value is quoted in part", () => {
  const observation = retrieval(["x".repeat(100_000)]);
  const error = observation.unreadable![0]!.error;
  assert.ok(error.startsWith(`[0] is the text "${"x".repeat(120)}…", not a document object`), error.slice(0, 160));
  assert.ok(error.length < 400);
});

test("an item that is no document makes the list unreadable rather than moving the documents after it up a rank", () => {
  const observation = retrieval([{ id: "c1" }, "c2", { id: "c3" }, "c4"]);
  assert.ok(observation.stage === "retrieve" && observation.documents === null, "not read in part: c3 would rank second, not third");
  const notes = observation.unreadable ?? [];
  assert.match(notes[0]!.error, /^\[1\] is the text "c2", .*the retrieval's 4 documents are not available \(without it, each document after it would be ranked one place higher than recorded\)$/);
  assert.match(notes[1]!.error, /^\[3\] is the text "c4", .*the retrieval's 4 documents are not available/);
});

test("absent and null parts, and messages without text parts, are no error", () => {
  assert.equal(retrieval([{ id: "c1" }, { id: "c2", score: null, content: null, metadata: null }]).unreadable, undefined);
  const chat = otelGenAiMapper.map(
    spanRecord({
      attributes: {
        "gen_ai.operation.name": "chat",
        "gen_ai.output.messages": JSON.stringify([{ role: "assistant", parts: [{ type: "tool_call", name: "search", arguments: {} }] }, { role: "assistant", content: "Five days." }]),
      },
    }),
  );
  assert.equal(chat.unreadable, undefined);
});

test("an index gap is counted, not walked: a document at index 10^9 beside index 0 costs one bounded note, and no document is read", () => {
  const observation = openInferenceMapper.map(
    spanRecord({
      attributes: {
        "openinference.span.kind": "RETRIEVER",
        "retrieval.documents.0.document.id": "c0",
        "retrieval.documents.1000000000.document.id": "c1",
      },
    }),
  );
  assert.ok(observation.stage === "retrieve" && observation.documents === null, "not read: c1 is not the second document");
  const notes = observation.unreadable ?? [];
  assert.equal(notes.length, 1);
  assert.equal(notes[0]!.attribute, "retrieval.documents.1");
  assert.match(notes[0]!.error, /^is missing: the span carries retrieval\.documents\.1000000000 but no attribute of retrieval\.documents\.1, retrieval\.documents\.2, retrieval\.documents\.3, retrieval\.documents\.4, retrieval\.documents\.5 and 999999994 more \(2 of 1000000001 items recorded\)/);
  assert.ok(notes[0]!.error.length < 700);
});
