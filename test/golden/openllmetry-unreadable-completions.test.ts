/**
 * A generation recorded in the deprecated flat attributes OpenLLMetry writes — `gen_ai.completion.N.{role,content}`,
 * one N per choice — that its reader cannot read whole: an index missing below the highest (what a span truncated at
 * its SDK's attribute count limit looks like), or a content that is no text. Before, the reader took the last
 * completion it could read as the answer — another choice than the last one recorded — and said nothing.
 *
 * The trace is the recorded golden test/golden/traces/otel-genai.otlp.json (recorded by record-goldens.ts), edited:
 * the request span's `gen_ai.output.messages` removed, so that the answer is the chat span's, and the chat span given
 * flat completions as named in each test. Replayed through the collector's consumer path (replay-golden.ts).
 *
 * Expected: the answer is not available (null), never another completion's text, and the Case Result's
 * `malformed_attributes` names the chat span, the missing index or the content, as `unreadable_value`.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { editGoldenTrace, type EditedGoldenTrace } from "./edited-golden-trace.js";
import { replayTrace } from "./replay-golden.js";
import { goldenCase } from "./scenarios/policy-corpus.js";

const REQUEST = "invoke_workflow policy_rag";
const CHAT = "chat fake-policy-model";

/** The golden with the answer left to the chat span, and the recorded answer's text. */
async function answerFromTheChatSpan(): Promise<{ trace: EditedGoldenTrace; answer: string }> {
  const trace = await editGoldenTrace("otel-genai");
  const request = trace.span(REQUEST);
  const messages = JSON.parse(trace.text(request, "gen_ai.output.messages")) as { parts: { content: string }[] }[];
  trace.remove(request, "gen_ai.output.messages");
  return { trace, answer: messages[0]!.parts[0]!.content };
}

async function replayed(json: string) {
  const [evaluation, ...others] = await replayTrace(json, [goldenCase]);
  assert.equal(others.length, 0, "one trace, one Case Result");
  return evaluation!.caseResult;
}

test("flat completions read whole: the last one is the answer (the edit itself changes nothing)", async () => {
  const { trace, answer } = await answerFromTheChatSpan();
  const chat = trace.span(CHAT);
  trace.add(chat, "gen_ai.completion.0.role", { stringValue: "assistant" });
  trace.add(chat, "gen_ai.completion.0.content", { stringValue: answer });

  const result = await replayed(trace.json());
  assert.equal(result.output, answer);
  assert.deepEqual(result.rag_observation.malformed_attributes.filter((note) => note.kind === "unreadable_value"), []);
});

test("a gap in the flat completions: the answer is not available, and the Case Result names the missing index as a truncated span's", async () => {
  const { trace, answer } = await answerFromTheChatSpan();
  const chat = trace.span(CHAT);
  trace.add(chat, "gen_ai.completion.0.role", { stringValue: "assistant" });
  trace.add(chat, "gen_ai.completion.0.content", { stringValue: "年假不可结转。" });
  trace.add(chat, "gen_ai.completion.2.role", { stringValue: "assistant" });
  trace.add(chat, "gen_ai.completion.2.content", { stringValue: answer });

  const result = await replayed(trace.json());
  assert.equal(result.output, null, "which completion was the last one is not known: one is missing, and so may others after it be");
  const notes = result.rag_observation.malformed_attributes.filter((note) => note.kind === "unreadable_value");
  assert.deepEqual(notes.map((note) => [note.span_id, note.span_name, note.attribute]), [[chat.spanId, CHAT, "gen_ai.completion.1"]]);
  assert.match(notes[0]!.error, /^is missing: the span carries gen_ai\.completion\.2 but no attribute of gen_ai\.completion\.1 \(2 of 3 items recorded\); .*so the answer is not available/);
  assert.match(notes[0]!.error, /A gap is what a truncated span looks like: .*OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT, 128 by default/);
});

test("a flat completion whose content is no text: not read, and the answer is not available rather than the completion before it", async () => {
  const { trace, answer } = await answerFromTheChatSpan();
  const chat = trace.span(CHAT);
  trace.add(chat, "gen_ai.completion.0.role", { stringValue: "assistant" });
  trace.add(chat, "gen_ai.completion.0.content", { stringValue: "年假不可结转。" });
  trace.add(chat, "gen_ai.completion.1.role", { stringValue: "assistant" });
  // The content's parts as a list, as an instrumentation that records a multi-part content without joining it would.
  trace.add(chat, "gen_ai.completion.1.content", { arrayValue: { values: [{ stringValue: answer.slice(0, 3) }, { stringValue: answer.slice(3) }] } });

  const result = await replayed(trace.json());
  assert.equal(result.output, null, "the last completion is the answer, and it could not be read");
  const notes = result.rag_observation.malformed_attributes.filter((note) => note.kind === "unreadable_value");
  assert.deepEqual(notes.map((note) => [note.span_id, note.span_name, note.attribute]), [[chat.spanId, CHAT, "gen_ai.completion.1.content"]]);
  assert.equal(
    notes[0]!.error,
    "is a list of 2 items, not text: the message's text is not read; it may be the last message, the answer, so the answer is not available (no earlier message is taken in its place)",
  );
});
