/**
 * A generation whose messages are span events, as the GenAI conventions had them before v1.37: the answer from its
 * `gen_ai.choice` events. The shapes are the producers' own: Semantic Kernel for .NET's ModelDiagnostics (operation
 * `chat.completions` / `text.completions`; a chat choice `{"index": 0, "message": {"role": "Assistant", "content":
 * …}, "tool_calls": [], "finish_reason": "Stop"}`, a text choice's `message` the text itself) and the Azure AI
 * Inference client library's instrumentor (`{"message": {"content": …}, "finish_reason": "stop", "index": 0}`, or
 * `{"finish_reason": "stop", "index": 0}` with content recording off; recorded in
 * test/golden/traces/azure-ai-inference-python.otlp.json and test/data/azure-ai-inference-without-content/). The
 * same events sent as OpenTelemetry log records and joined to the span by the assembler carry a body (a
 * `gen_ai.choice` record's choice), or the conventions' newer operation-details record with the call's messages.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Attributes, SpanEventRecord } from "../../../collector/00-otlp/span-record.js";
import { findMalformedJson } from "../../../collector/04-normalize/find-malformed-json.js";
import { otelGenAiMapper } from "../../../collector/04-normalize/otel-genai-mapper.js";
import type { StageObservation } from "../../../collector/04-normalize/stage-observation.js";
import { event, spanRecord } from "./span-fixture.js";

const choice = (content: unknown): SpanEventRecord => event("gen_ai.choice", { "gen_ai.system": "openai", "gen_ai.event.content": typeof content === "string" ? content : JSON.stringify(content) });
const userMessage = event("gen_ai.user.message", { "gen_ai.event.content": JSON.stringify({ role: "User", content: "Can leave carry over?" }) });

function chat(events: SpanEventRecord[], attributes: Attributes = {}, operation = "chat.completions") {
  const span = spanRecord({
    name: `${operation} gpt-4o`,
    attributes: { "gen_ai.operation.name": operation, "gen_ai.system": "openai", "gen_ai.request.model": "gpt-4o", "gen_ai.usage.input_tokens": 30, "gen_ai.usage.output_tokens": 9, ...attributes },
    events,
  });
  return { span, observation: otelGenAiMapper.map(span) };
}

function answerOf(observation: StageObservation): string | null | undefined {
  return observation.stage === "generate" ? observation.answer : undefined;
}

describe("GenAI generations whose messages are span events", () => {
  test("Semantic Kernel's chat.completions span is a generation: model, tokens, and the answer from its choice event", () => {
    const { observation } = chat([userMessage, choice({ index: 0, message: { role: "Assistant", content: "Up to five days." }, tool_calls: [], finish_reason: "Stop" })]);
    assert.deepEqual(observation, { stage: "generate", model: "gpt-4o", inputTokens: 30, outputTokens: 9, totalTokens: 39, cost: null, timeToFirstTokenMs: null, answer: "Up to five days.", abstained: null });
  });

  test("Semantic Kernel's text.completions span: the choice's message is the text itself", () => {
    assert.equal(answerOf(chat([choice({ index: 0, message: "Up to five days.", finish_reason: "Stop" })], {}, "text.completions").observation), "Up to five days.");
  });

  test("the answer is choice 0, whatever order the choice events came in; without indexes, the first", () => {
    const choices = [choice({ index: 1, message: { content: "Second choice." } }), choice({ index: 0, message: { content: "First choice." } })];
    assert.equal(answerOf(chat(choices).observation), "First choice.");
    assert.equal(answerOf(chat([choice({ message: { content: "One." } }), choice({ message: { content: "Two." } })]).observation), "One.");
  });

  test("a choice without content (content recording off), or a tool call, records no answer: null, not empty, and no note", () => {
    for (const content of [{ finish_reason: "stop", index: 0 }, { index: 0, message: { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: {} }] }, finish_reason: "tool_calls" }]) {
      const { observation } = chat([choice(content)], {}, "chat");
      assert.equal(answerOf(observation), null, JSON.stringify(content));
      assert.equal(observation.unreadable, undefined);
    }
  });

  test("content that is no text is named, and the answer not available: no other choice stands in for choice 0", () => {
    const { observation } = chat([choice({ index: 0, message: { content: [{ type: "text", text: "Up to five days." }] } }), choice({ index: 1, message: { content: "Another choice." } })]);
    assert.equal(answerOf(observation), null);
    assert.deepEqual(observation.unreadable?.map((note) => note.attribute), ["gen_ai.choice: gen_ai.event.content"]);
    assert.match(observation.unreadable![0]!.error, /its message's content is a list of 1 items, no text\): the answer is not available/);
  });

  test("a choice whose JSON does not parse is named as malformed JSON, and read as not recorded", () => {
    const { span, observation } = chat([choice('{"index": 0, "message": {"content": "Up to')]);
    assert.equal(answerOf(observation), null);
    assert.deepEqual(findMalformedJson(span).map((note) => note.attribute), ["gen_ai.choice: gen_ai.event.content"]);
  });

  test("the message attributes come first: beside gen_ai.output.messages or flat completions, the events are not read", () => {
    const events = [choice({ index: 0, message: { content: "From the event." } })];
    const structured = JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: "From the attribute." }] }]);
    assert.equal(answerOf(chat(events, { "gen_ai.output.messages": structured }, "chat").observation), "From the attribute.");
    assert.equal(answerOf(chat(events, { "gen_ai.completion.0.content": "From the flat completion." }, "chat").observation), "From the flat completion.");
  });

  test("joined from log records: a gen_ai.choice record's body is its choice; an operation-details record's output messages are the span's", () => {
    const fromBody = { name: "gen_ai.choice", timeUnixNano: 5n, attributes: { "gen_ai.system": "openai" }, body: { index: 0, finish_reason: "stop", message: { role: "assistant", content: "From the record's body." } } };
    assert.equal(answerOf(chat([fromBody], {}, "chat").observation), "From the record's body.");
    const outputMessages = [{ role: "assistant", parts: [{ type: "text", content: "From the details record." }], finish_reason: "stop" }];
    const details = event("gen_ai.client.inference.operation.details", { "gen_ai.operation.name": "chat", "gen_ai.output.messages": outputMessages });
    assert.equal(answerOf(chat([details], {}, "chat").observation), "From the details record.");
  });

  test("an operation-details record's unreadable output message is named where it was, and leaves the answer not available", () => {
    const details = event("gen_ai.client.inference.operation.details", { "gen_ai.output.messages": [{ role: "assistant", parts: [{ type: "text", content: 42 }] }] });
    const { observation } = chat([details], {}, "chat");
    assert.equal(answerOf(observation), null);
    assert.deepEqual(observation.unreadable?.map((note) => note.attribute), ["gen_ai.client.inference.operation.details: gen_ai.output.messages"]);
  });
});
