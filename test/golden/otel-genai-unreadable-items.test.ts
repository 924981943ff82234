/**
 * OTel GenAI spans with items their reader cannot read. The GenAI conventions define `gen_ai.retrieval.documents`
 * as a list of `{"id", "score"}` objects and the messages as `[{"role", "parts": [{"type": "text", "content"}]}]`;
 * an instrumentation that writes a document as its bare id, a score as an object, or a text part under OpenAI's
 * `text` key instead of `content`, leaves that value unread — and before, nothing on the Case Result said so: a
 * document fewer, a score or an answer that looked as if the trace never carried them.
 *
 * The traces are the recorded golden (test/golden/traces/otel-genai.otlp.json, recorded by record-goldens.ts) with
 * one value edited each, as named in each test. Replayed through the collector's consumer path (replay-golden.ts).
 *
 * Expected: what could not be read stays null or left out (never taken from another document or message), and the
 * Case Result's `malformed_attributes` names the span, the attribute and the item as `unreadable_value`. The
 * unedited golden carries no such note (golden-traces.test.ts).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { editGoldenTrace } from "./edited-golden-trace.js";
import { replayTrace } from "./replay-golden.js";
import { goldenCase } from "./scenarios/policy-corpus.js";

const RETRIEVAL = "retrieval policy-index";
const REQUEST = "invoke_workflow policy_rag";

async function replayed(json: string) {
  const [evaluation, ...others] = await replayTrace(json, [goldenCase]);
  assert.equal(others.length, 0, "one trace, one Case Result");
  return evaluation!.caseResult;
}

test("GenAI retrieval documents: a bare id and a score that is no number are named; the list is not read in part, so no document moves up a rank", async () => {
  const trace = await editGoldenTrace("otel-genai");
  const retrieval = trace.span(RETRIEVAL);
  const documents = JSON.parse(trace.text(retrieval, "gen_ai.retrieval.documents")) as { id: string; score: unknown }[];
  assert.deepEqual(documents.map((document) => document.id), ["leave_v2_s2", "leave_v3_s2", "leave_v3_s4"], "the recorded ranking");
  const edited: unknown[] = [documents[0], { ...documents[1], score: { cosine: documents[1]!.score } }, documents[2]!.id];
  trace.setText(retrieval, "gen_ai.retrieval.documents", JSON.stringify(edited));

  const observation = (await replayed(trace.json())).rag_observation;
  assert.equal(observation.retrieved_chunks, null, "the bare id is no document, and the list is not read without it: the documents after it would rank one place higher than recorded");
  const notes = observation.malformed_attributes.filter((note) => note.kind === "unreadable_value");
  assert.deepEqual(
    notes.map((note) => [note.span_id, note.span_name, note.attribute]),
    [
      [retrieval.spanId, RETRIEVAL, "gen_ai.retrieval.documents"],
      [retrieval.spanId, RETRIEVAL, "gen_ai.retrieval.documents"],
    ],
  );
  assert.match(notes[0]!.error, /^\[1\]: its "score" is an object with the keys "cosine", not a number; those parts are not read/);
  assert.match(notes[1]!.error, /^\[2\] is the text "leave_v3_s4", not a document object \(\{"id", "score"\}\): the retrieval's 3 documents are not available/);
});

test("a GenAI list that is no list: the retrieval's documents are not available, and the Case Result says why", async () => {
  const trace = await editGoldenTrace("otel-genai");
  const retrieval = trace.span(RETRIEVAL);
  const documents = JSON.parse(trace.text(retrieval, "gen_ai.retrieval.documents")) as unknown[];
  trace.setText(retrieval, "gen_ai.retrieval.documents", JSON.stringify({ documents }));

  const observation = (await replayed(trace.json())).rag_observation;
  assert.equal(observation.retrieved_chunks, null, "not available");
  const notes = observation.malformed_attributes.filter((note) => note.kind === "unreadable_value");
  assert.deepEqual(notes.map((note) => [note.span_name, note.attribute]), [[RETRIEVAL, "gen_ai.retrieval.documents"]]);
  assert.match(notes[0]!.error, /^is an object with the keys "documents", not a list of documents .*: the retrieval's documents are not available$/);
});

test("GenAI messages: a text part under `text` instead of `content` leaves the answer not available, and the Case Result says which part", async () => {
  const trace = await editGoldenTrace("otel-genai");
  const request = trace.span(REQUEST);
  const messages = JSON.parse(trace.text(request, "gen_ai.output.messages")) as { role: string; parts: { type: string; content?: string; text?: string }[] }[];
  assert.equal(messages.length, 1);
  const part = messages[0]!.parts[0]!;
  assert.equal(part.type, "text");
  messages[0]!.parts[0] = { type: "text", text: part.content! };
  trace.setText(request, "gen_ai.output.messages", JSON.stringify(messages));

  const result = await replayed(trace.json());
  assert.equal(result.output, null, "the answer: not available (the chat span carries no output messages to take it from)");
  const notes = result.rag_observation.malformed_attributes.filter((note) => note.kind === "unreadable_value");
  assert.deepEqual(notes.map((note) => [note.span_id, note.span_name, note.attribute]), [[request.spanId, REQUEST, "gen_ai.output.messages"]]);
  assert.match(notes[0]!.error, /^\[0\]\.parts\[0\] is a text part whose "content" is missing \(an object with the keys "type", "text"\), not text: its text is not read; it may be the last message, the answer, so the answer is not available \(no earlier message is taken in its place\)$/);
});

/**
 * What an instrumentation that writes a message object it cannot serialise with Python's `str()` puts in the list
 * (the OpenAI SDK's message type's repr), as the Traceloop retriever writes a non-Document item.
 */
const UNSERIALISED_MESSAGE = "ChatCompletionMessage(content='可以。', refusal=None, role='assistant', annotations=[], audio=None, function_call=None, tool_calls=None)";

test("GenAI output messages: an item that is no message after the answer leaves the answer not available, not taken from the message before it", async () => {
  const trace = await editGoldenTrace("otel-genai");
  const request = trace.span(REQUEST);
  const messages = JSON.parse(trace.text(request, "gen_ai.output.messages")) as unknown[];
  assert.equal(messages.length, 1, "the recorded answer");
  trace.setText(request, "gen_ai.output.messages", JSON.stringify([...messages, UNSERIALISED_MESSAGE]));

  const result = await replayed(trace.json());
  assert.equal(result.output, null, "the last message is the answer, and it could not be read: the one before it is another answer");
  const notes = result.rag_observation.malformed_attributes.filter((note) => note.kind === "unreadable_value");
  assert.deepEqual(notes.map((note) => [note.span_id, note.span_name, note.attribute]), [[request.spanId, REQUEST, "gen_ai.output.messages"]]);
  assert.match(
    notes[0]!.error,
    /^\[1\] is the text "ChatCompletionMessage\(content='可以。', .*", not a message object \(\{"role", "parts"\}\): its role and text are not read; it may be the last message, the answer, so the answer is not available \(no earlier message is taken in its place\)$/,
  );
});

test("GenAI input messages, per field: an item that is no message after the user's leaves the query not available; one before it changes nothing", async () => {
  // The retrieval's own query text removed, so that the Case Result's query comes from the request's messages alone.
  const queryAfter = await editGoldenTrace("otel-genai");
  queryAfter.remove(queryAfter.span(RETRIEVAL), "gen_ai.retrieval.query.text");
  const request = queryAfter.span(REQUEST);
  const messages = JSON.parse(queryAfter.text(request, "gen_ai.input.messages")) as { role: string; parts: { content: string }[] }[];
  assert.deepEqual(messages.map((message) => message.role), ["user"], "the recorded question");
  const question = messages[0]!.parts[0]!.content;
  queryAfter.setText(request, "gen_ai.input.messages", JSON.stringify([...messages, "user: 那病假呢？"]));

  const after = (await replayed(queryAfter.json())).rag_observation;
  assert.equal(after.query, null, "the item after the user's message may be a later question: the one before it is not taken for the query");
  const afterNotes = after.malformed_attributes.filter((note) => note.kind === "unreadable_value");
  assert.deepEqual(afterNotes.map((note) => [note.span_name, note.attribute]), [[REQUEST, "gen_ai.input.messages"]]);
  assert.match(afterNotes[0]!.error, /^\[1\] is the text "user: 那病假呢？", not a message object .*: its role and text are not read; it may be the last user message, the query, so the query is not available/);

  const queryBefore = await editGoldenTrace("otel-genai");
  queryBefore.remove(queryBefore.span(RETRIEVAL), "gen_ai.retrieval.query.text");
  queryBefore.setText(queryBefore.span(REQUEST), "gen_ai.input.messages", JSON.stringify(["system: 只根据资料回答。", ...messages]));

  const before = (await replayed(queryBefore.json())).rag_observation;
  assert.equal(before.query, question, "the last user message is read whole: what came before it is not the query");
  const beforeNotes = before.malformed_attributes.filter((note) => note.kind === "unreadable_value");
  assert.equal(beforeNotes.length, 1);
  assert.match(beforeNotes[0]!.error, /^\[0\] is the text "system: 只根据资料回答。", not a message object \(\{"role", "parts"\}\): its role and text are not read$/, "named, without a cost it did not have");
});
