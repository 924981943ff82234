/**
 * Flat message lists (`gen_ai.completion.N.*`, `gen_ai.prompt.N.*`, as OpenLLMetry writes them) on a span whose SDK
 * dropped attributes past its count limit (OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT), and a flat completion that carries its
 * role but no content. The SDK keeps the attributes set first and drops the ones set after (OpenLLMetry sets each
 * message's role, then its content; the prompts, then the completions), so the message a value is taken from — the
 * last completion (the answer), the last prompt (a rerank's query) — is the one lost, with no index missing.
 *
 * Traces: the recorded golden test/golden/traces/otel-genai.otlp.json with the answer left to its chat span (the
 * request's `gen_ai.output.messages` removed) and flat completions given to the chat span; the recorded OpenLLMetry
 * Cohere rerank (test/data/openllmetry-cohere-rerank/). What the SDK would have dropped is removed and counted in
 * `dropped_attributes_count` (edited-golden-trace.ts `dropAttributes`). Replayed through the collector's consumer
 * path (replay-golden.ts).
 *
 * Expected: the answer (or the rerank) is not available, never an earlier message read in its place, and one
 * `unreadable_value` note says why; before, the earlier message was read as the answer, the cut ranking as the rerank's.
A Cohere rerank that may be cut is still the rerank, its ranking (the final one) not available: neither the cut ranking
nor the retrieval's stands in for it.
 * A chat span that lost every completion says so too (its answer was null before, with no note), and one that simply
 * carries no completion and dropped nothing says nothing.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { editGoldenTrace, editRecordedTrace, type EditedGoldenTrace } from "./edited-golden-trace.js";
import { replayTrace } from "./replay-golden.js";
import { goldenCase } from "./scenarios/policy-corpus.js";

const REQUEST = "invoke_workflow policy_rag";
const CHAT = "chat fake-policy-model";
const OTHER_CHOICE = "年假不可结转。";
const cohereRecording = fileURLToPath(new URL("../data/openllmetry-cohere-rerank/cohere-rerank.otlp.json", import.meta.url));

/**
 * The Cohere rerank recording as the JS SDK would send it: recorded in Python, whose SDK evicts the oldest attributes
 * (never the ranking, set last), it is given the JS SDK's language so that the drops these tests make, of the
 * attributes set last, are what its SDK does (sdk-attribute-order.ts).
 */
async function cohereFromTheJsSdk(): Promise<EditedGoldenTrace> {
  const trace = await editRecordedTrace(cohereRecording, "openllmetry-cohere-rerank");
  trace.setSdkLanguage("nodejs");
  return trace;
}

/**
 * The golden with the answer left to the chat span, and the recorded answer's text. It was recorded by the JS SDK,
 * given its own resource (no telemetry.sdk.language): the language is set, as the SDK's default resource would, so the
 * drops these tests make (the attributes set last) are the JS SDK's, whose order the notes then state.
 */
async function answerFromTheChatSpan(): Promise<{ trace: EditedGoldenTrace; answer: string }> {
  const trace = await editGoldenTrace("otel-genai");
  trace.setSdkLanguage("nodejs");
  const request = trace.span(REQUEST);
  const messages = JSON.parse(trace.text(request, "gen_ai.output.messages")) as { parts: { content: string }[] }[];
  trace.remove(request, "gen_ai.output.messages");
  return { trace, answer: messages[0]!.parts[0]!.content };
}

/** Flat completions on the chat span, in the order OpenLLMetry sets them: each one's role, then its content. */
function addCompletions(trace: EditedGoldenTrace, contents: readonly string[]) {
  const chat = trace.span(CHAT);
  contents.forEach((content, index) => {
    trace.add(chat, `gen_ai.completion.${index}.role`, { stringValue: "assistant" });
    trace.add(chat, `gen_ai.completion.${index}.content`, { stringValue: content });
  });
  return chat;
}

async function replayed(json: string, cases = [goldenCase]) {
  const [evaluation, ...others] = await replayTrace(json, cases);
  assert.equal(others.length, 0, "one trace, one Case Result");
  return evaluation!.caseResult;
}

type CaseResult = Awaited<ReturnType<typeof replayed>>;
const unreadable = (result: CaseResult) => result.rag_observation.malformed_attributes.filter((note) => note.kind === "unreadable_value");
const lost = (count: number) => new RegExp(`The span lost ${count} attributes? to its SDK's limit OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT \\(128 by default; dropped_attributes_count ${count}\\)`);

test("flat completions with no gap on a span whose SDK dropped attributes: the last may be lost, so the answer is not available, not the one before", async () => {
  const { trace, answer } = await answerFromTheChatSpan();
  const chat = addCompletions(trace, [OTHER_CHOICE, answer]);
  const dropped = trace.dropAttributes(chat, ["gen_ai.completion.1."]);

  const result = await replayed(trace.json());
  assert.equal(result.output, null, `read as carried, the answer was "${OTHER_CHOICE}", a choice that is not the last one recorded`);
  const notes = unreadable(result);
  assert.deepEqual(notes.map((note) => [note.span_id, note.span_name, note.attribute]), [[chat.spanId, CHAT, "gen_ai.completion.0"]]);
  assert.match(notes[0]!.error, /^may not be the last completion: the span carries gen_ai\.completion\.0 with no gap, but an SDK past its attribute count limit drops the attributes set last/);
  assert.match(notes[0]!.error, /an earlier completion would be taken for the answer, .*so the list is not read and the answer is not available/);
  assert.match(notes[0]!.error, lost(dropped));
});

test("the same completions on a span whose SDK dropped nothing are read: the last one is the answer", async () => {
  const { trace, answer } = await answerFromTheChatSpan();
  addCompletions(trace, [OTHER_CHOICE, answer]);

  const result = await replayed(trace.json());
  assert.equal(result.output, answer);
  assert.deepEqual(unreadable(result), []);
});

test("flat completions the span carries beside an answer from gen_ai.output.messages are unused: no note, though the span lost attributes", async () => {
  const { trace, answer } = await answerFromTheChatSpan();
  const chat = addCompletions(trace, [OTHER_CHOICE, answer]);
  trace.add(chat, "gen_ai.output.messages", { stringValue: JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: answer }] }]) });
  trace.dropAttributes(chat, ["gen_ai.completion.1."]);

  const result = await replayed(trace.json());
  assert.equal(result.output, answer);
  assert.deepEqual(unreadable(result), []);
});

test("a last completion with its role and no content (its SDK dropped no attribute): the answer is not available, not the choice before it, and the note says what is missing", async () => {
  const { trace, answer } = await answerFromTheChatSpan();
  const chat = addCompletions(trace, [OTHER_CHOICE, answer]);
  trace.remove(chat, "gen_ai.completion.1.content");

  const result = await replayed(trace.json());
  assert.equal(result.output, null, `read as no text, the answer was "${OTHER_CHOICE}"`);
  const notes = unreadable(result);
  assert.deepEqual(notes.map((note) => [note.span_id, note.attribute]), [[chat.spanId, "gen_ai.completion.1.content"]]);
  assert.equal(
    notes[0]!.error,
    'is absent beside gen_ai.completion.1.role ("assistant"), and the message records no tool call: its text was not recorded (the instrumentation wrote none (OpenLLMetry leaves out an empty content), or it was dropped), so whether it held text is not known and it is not read as none; ' +
      "it may be the last message, the answer, so the answer is not available (no earlier message is taken in its place)",
  );
});

test("the only completion with its role and no content: the note says so, where the answer was silently absent", async () => {
  const { trace } = await answerFromTheChatSpan();
  const chat = trace.span(CHAT);
  trace.add(chat, "gen_ai.completion.0.role", { stringValue: "assistant" });

  const result = await replayed(trace.json());
  assert.equal(result.output, null);
  const notes = unreadable(result);
  assert.deepEqual(notes.map((note) => note.attribute), ["gen_ai.completion.0.content"]);
  assert.match(notes[0]!.error, /^is absent beside gen_ai\.completion\.0\.role \("assistant"\).*so the answer is not available/);
});

test("a completion that records a tool call and no content holds no text, rightly: nothing is said about it", async () => {
  const { trace } = await answerFromTheChatSpan();
  const chat = trace.span(CHAT);
  trace.add(chat, "gen_ai.completion.0.role", { stringValue: "assistant" });
  trace.add(chat, "gen_ai.completion.0.tool_calls.0.name", { stringValue: "search_policies" });

  const result = await replayed(trace.json());
  assert.equal(result.output, null);
  assert.deepEqual(unreadable(result), []);
});

test("a chat span whose SDK dropped every completion (its prompt kept): the answer is not available, and a note says why, where it was silently absent", async () => {
  const { trace } = await answerFromTheChatSpan();
  const chat = trace.span(CHAT);
  trace.add(chat, "gen_ai.prompt.0.role", { stringValue: "user" });
  trace.add(chat, "gen_ai.prompt.0.content", { stringValue: "年假可以结转吗？" });
  addCompletions(trace, [OTHER_CHOICE]);
  const dropped = trace.dropAttributes(chat, ["gen_ai.completion."]);

  const result = await replayed(trace.json());
  assert.equal(result.output, null);
  const notes = unreadable(result);
  assert.deepEqual(notes.map((note) => [note.span_id, note.span_name, note.attribute]), [[chat.spanId, CHAT, "gen_ai.completion.0"]]);
  assert.match(notes[0]!.error, /^is absent, and so is every other completion and gen_ai\.output\.messages: the span carries no answer, and its SDK dropped attributes past its count limit; the limit is the likely cause \(it carries its prompt, set before the completions;/);
  assert.match(notes[0]!.error, /so the answer is not available from this span/);
  assert.match(notes[0]!.error, lost(dropped));
});

test("a chat span whose SDK dropped gen_ai.output.messages (its input messages kept): the note names what it still carries", async () => {
  const { trace } = await answerFromTheChatSpan();
  const chat = trace.span(CHAT);
  trace.add(chat, "gen_ai.input.messages", { stringValue: JSON.stringify([{ role: "user", parts: [{ type: "text", content: "年假可以结转吗？" }] }]) });
  trace.add(chat, "gen_ai.output.messages", { stringValue: JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: OTHER_CHOICE }] }]) });
  trace.dropAttributes(chat, ["gen_ai.output.messages"]);

  const result = await replayed(trace.json());
  assert.equal(result.output, null);
  const notes = unreadable(result);
  assert.deepEqual(notes.map((note) => note.attribute), ["gen_ai.completion.0"]);
  assert.match(notes[0]!.error, /the limit is the likely cause \(it carries gen_ai\.input\.messages, set before the output;/);
});

test("a chat span that dropped attributes but carries its answer in gen_ai.output.messages, and one with no completion that dropped nothing: no note", async () => {
  const { trace, answer } = await answerFromTheChatSpan();
  const noCompletion = await replayed(trace.json());
  assert.equal(noCompletion.output, null, "the recording's chat span carries no content");
  assert.deepEqual(unreadable(noCompletion), [], "nothing was lost: the span simply has no completion");

  const chat = trace.span(CHAT);
  trace.add(chat, "gen_ai.output.messages", { stringValue: JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: answer }] }]) });
  trace.dropAttributes(chat, ["server."]);
  const answered = await replayed(trace.json());
  assert.equal(answered.output, answer);
  assert.deepEqual(unreadable(answered), []);
});

test("OpenLLMetry's Cohere rerank whose SDK kept its first ranking entry only: still the rerank, the final ranking not available, the cut named", async () => {
  const trace = await cohereFromTheJsSdk();
  const rerank = trace.span("cohere.rerank");
  const dropped = trace.dropAttributes(rerank, ["gen_ai.completion.1."]);

  const result = await replayed(trace.json(), []);
  const observation = result.rag_observation;
  assert.equal(observation.retrieved_chunks, null, "neither a rerank that kept refund-2 only (it kept refund-2 and refund-1) nor the retrieval's ranking");
  assert.deepEqual(observation.pre_rerank_chunks?.map((chunk) => chunk.chunk_id), ["refund-1", "shipping-1", "refund-2"], "the retrieval's ranking, the one before the rerank");
  const notes = unreadable(result);
  assert.deepEqual(notes.map((note) => [note.span_id, note.attribute]), [
    [rerank.spanId, "gen_ai.completion.0"],
    [rerank.spanId, "retrieved_chunks"],
  ]);
  assert.match(notes[0]!.error, /^may not be the last completion: .*the ranking would end at the cut.*the rerank's ranking is not read, and it is the final one, so the final ranking is not known/);
  assert.match(notes[0]!.error, lost(dropped));
  assert.match(notes[1]!.error, /^this rerank's output is not available .*retrieved_chunks is not available, and the retrieval's ranking, .* is not taken in its place \(it is kept as pre_rerank_chunks/);
});

test("OpenLLMetry's Cohere rerank whose SDK dropped its query prompt and the completions after it: still the rerank, the prompts' cut named", async () => {
  const trace = await cohereFromTheJsSdk();
  const rerank = trace.span("cohere.rerank");
  const dropped = trace.dropAttributes(rerank, ["gen_ai.prompt.3.", "gen_ai.response.", "gen_ai.completion."]);

  const result = await replayed(trace.json(), []);
  assert.equal(result.rag_observation.retrieved_chunks, null, "not the retrieval's ranking refund-1, shipping-1, refund-2");
  assert.deepEqual(result.rag_observation.pre_rerank_chunks?.map((chunk) => chunk.chunk_id), ["refund-1", "shipping-1", "refund-2"]);
  const notes = unreadable(result);
  assert.deepEqual(notes.map((note) => [note.span_id, note.attribute]), [
    [rerank.spanId, "gen_ai.prompt.2"],
    [rerank.spanId, "retrieved_chunks"],
  ]);
  assert.match(notes[0]!.error, /^may not be the last prompt: the span carries gen_ai\.prompt\.0 to gen_ai\.prompt\.2 with no gap.*a document would be taken for the query, which is the last prompt/);
  assert.match(notes[0]!.error, /the rerank's documents and query are not read, so its ranking, the final one, is not known/);
  assert.match(notes[0]!.error, lost(dropped));
});

/** The trace with every span saying its SDK dropped `count` attributes, and nothing else changed. */
function everySpanDropped(json: string, count: number): string {
  const trace = JSON.parse(json) as { resourceSpans: { scopeSpans: { spans: { droppedAttributesCount?: number }[] }[] }[] };
  for (const span of trace.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans))) span.droppedAttributesCount = count;
  return JSON.stringify(trace);
}

// A list held in one JSON attribute is kept or dropped whole (unread-cut-list.ts): these hold that its readers do not
// take a span that lost other attributes for one whose list was cut.
test("Traceloop's entity documents (one JSON value each): retrieved and packed whole though every span lost attributes", async () => {
  const trace = await editGoldenTrace("openllmetry");
  const whole = await replayed(trace.json());
  const lostOthers = await replayed(everySpanDropped(trace.json(), 3));
  assert.deepEqual(lostOthers.rag_observation.retrieved_chunks?.map((chunk) => chunk.chunk_id), ["leave_v2_s2", "leave_v3_s2", "leave_v3_s4"]);
  assert.deepEqual(lostOthers.rag_observation.context_chunks, whole.rag_observation.context_chunks);
  assert.ok((whole.rag_observation.context_chunks?.length ?? 0) > 0, "the golden's context assembly is read");
  assert.deepEqual(unreadable(lostOthers), []);
});

test("LlamaIndex's LLMRerank CHAIN span (its nodes one JSON value): read as the rerank though its SDK dropped other attributes", async () => {
  const trace = await editRecordedTrace(fileURLToPath(new URL("../data/llama-index-llm-rerank/llm-rerank.otlp.json", import.meta.url)), "llama-index-llm-rerank");
  const rerank = trace.span("LLMRerank._postprocess_nodes");
  rerank.droppedAttributesCount = 3;
  const result = await replayed(trace.json(), []);
  assert.deepEqual(result.rag_observation.retrieved_chunks?.map((chunk) => chunk.chunk_id), ["shipping-1", "refund-1"]);
  assert.deepEqual(unreadable(result).filter((note) => note.span_id === rerank.spanId), []);
});
