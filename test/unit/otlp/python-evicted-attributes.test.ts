/**
 * An LLM call recorded the way OpenLLMetry records it (the prompts `gen_ai.prompt.N.*`, then the completions
 * `gen_ai.completion.N.*`, each message's role before its content) on a span whose SDK evicts the OLDEST attribute past
 * its count limit, as the OTel Python SDK does (opentelemetry-sdk `BoundedAttributes`: `popitem(last=False)`), where
 * the JS SDK (test/unit/otlp/dropped-attributes-flat-messages.test.ts) drops the newest.
 *
 * No Python SDK runs in the tests: the eviction is simulated by building the OTLP/JSON span with its attributes in the
 * order they were set and the first ones removed, counted in `dropped_attributes_count`, under a resource saying
 * `telemetry.sdk.language = python`, as Python's default resource does. The span is evaluated through the collector's
 * consumer path (test/golden/replay-golden.ts).
 *
 * `llm.request.type` is set LAST here, so that it survives: the instrumentation passes it when it starts the span, so
 * Python's SDK evicts it first, and a span that lost it is not read as OpenLLMetry's at all (for the Cohere rerank, see
 * test/golden/dropped-rerank-output.test.ts). These tests are about what the lists keep.
 *
 * Expected: a list that lost its first items shows a gap at index 0 and is not read; one with no gap is not read as
 * whole either, and no note states the JS order (the attributes set last dropped) as the only one.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { replayTrace } from "../../golden/replay-golden.js";

type Attribute = [key: string, value: string];

/** One LLM span's attributes in the order OpenLLMetry sets them: the prompt, then each completion's role and content. */
function openLlmetryOrder(completions: readonly string[]): Attribute[] {
  return [
    ["gen_ai.system", "openai"],
    ["gen_ai.request.model", "gpt-4o-mini"],
    ["gen_ai.prompt.0.role", "user"],
    ["gen_ai.prompt.0.content", "Can unused annual leave be carried over?"],
    ...completions.flatMap((content, index): Attribute[] => [
      [`gen_ai.completion.${index}.role`, "assistant"],
      [`gen_ai.completion.${index}.content`, content],
    ]),
    ["llm.request.type", "chat"],
  ];
}

/** The span as Python's SDK sends it when it keeps `limit` attributes: the oldest evicted, their number counted. */
async function replayPythonSpan(attributes: readonly Attribute[], limit: number, language: string | null = "python") {
  const kept = attributes.slice(Math.max(0, attributes.length - limit));
  const resource = [{ key: "service.name", value: { stringValue: "python-evicted-attributes" } }, ...(language === null ? [] : [{ key: "telemetry.sdk.language", value: { stringValue: language } }])];
  const span = {
    traceId: "5b8efff798038103d269b633813fc60c",
    spanId: "eee19b7ec3c1b174",
    name: "openai.chat",
    kind: 3,
    startTimeUnixNano: "1700000000000000000",
    endTimeUnixNano: "1700000001000000000",
    attributes: kept.map(([key, value]) => ({ key, value: { stringValue: value } })),
    droppedAttributesCount: attributes.length - kept.length,
    status: {},
  };
  const json = JSON.stringify({ resourceSpans: [{ resource: { attributes: resource }, scopeSpans: [{ scope: { name: "opentelemetry.instrumentation.openai" }, spans: [span] }] }] });
  const [evaluation, ...others] = await replayTrace(json, []);
  assert.equal(others.length, 0);
  const caseResult = evaluation!.caseResult;
  return { dropped: span.droppedAttributesCount, caseResult, notes: caseResult.rag_observation.malformed_attributes.filter((note) => note.kind === "unreadable_value") };
}

const THREE_CHOICES = ["Unused leave lapses.", "Leave lapses at year end.", "Up to 5 days."];
const JS_ORDER_ONLY = /\(the JS SDK keeps the first ones\)/;

test("within the limit, the last completion is the answer", async () => {
  const { dropped, caseResult, notes } = await replayPythonSpan(openLlmetryOrder(THREE_CHOICES), 128);
  assert.equal(dropped, 0);
  assert.equal(caseResult.output, "Up to 5 days.");
  assert.deepEqual(notes, []);
});

test("Python's SDK evicts the prompt and the first completion: a gap at index 0, the answer not available (the list not read), named", async () => {
  // 11 attributes; keeping 5 evicts gen_ai.system, the model, the prompt (role and content) and the first completion.
  const { dropped, caseResult, notes } = await replayPythonSpan(openLlmetryOrder(THREE_CHOICES), 5);
  assert.equal(dropped, 6);
  assert.equal(caseResult.output, null, "read without completion 0, the list's items would move up a place");
  assert.deepEqual(notes.map((note) => note.attribute), ["gen_ai.completion.0"]);
  assert.match(notes[0]!.error, /^is missing: the span carries gen_ai\.completion\.2 but no attribute of gen_ai\.completion\.0 \(2 of 3 items recorded\); .*the answer is not available/);
  assert.match(notes[0]!.error, /The span lost 6 attributes to its SDK's limit OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT/);
});

test("Python's SDK evicts the first completion's role only: no gap, the list not read as whole, and the note gives both orders, not the JS one alone", async () => {
  const { dropped, caseResult, notes } = await replayPythonSpan(openLlmetryOrder(THREE_CHOICES), 6);
  assert.equal(dropped, 5);
  assert.equal(caseResult.output, null);
  const cut = notes.find((note) => note.attribute === "gen_ai.completion.2");
  assert.ok(cut !== undefined, JSON.stringify(notes));
  assert.match(cut.error, /^may not be the last completion, nor the list whole: the span carries gen_ai\.completion\.0 to gen_ai\.completion\.2 with no gap, but its SDK dropped attributes past its count limit, and the span's SDK is "python" \(telemetry\.sdk\.language\)/);
  assert.match(cut.error, /one that evicts the oldest \(Python's\) its first completions, or the fields the first completion set first/);
  assert.doesNotMatch(cut.error, JS_ORDER_ONLY);
});

test("a span whose resource does not name its SDK's language is read as if either order could have cut it", async () => {
  const { caseResult, notes } = await replayPythonSpan(openLlmetryOrder(THREE_CHOICES), 6, null);
  assert.equal(caseResult.output, null);
  const cut = notes.find((note) => note.attribute === "gen_ai.completion.2");
  assert.match(cut?.error ?? "", /the span's resource does not name its SDK's language \(no telemetry\.sdk\.language\), whose order of dropping is not relied on/);
  assert.doesNotMatch(cut?.error ?? "", JS_ORDER_ONLY);
});

test("a Python span that dropped attributes and carries no completion: the note does not call the limit the likely cause (Python's SDK keeps the completions, set last)", async () => {
  const { caseResult, notes } = await replayPythonSpan(openLlmetryOrder([]).concat([["gen_ai.response.model", "gpt-4o-mini"]]), 3);
  assert.equal(caseResult.output, null);
  assert.deepEqual(notes.map((note) => note.attribute), ["gen_ai.completion.0"]);
  assert.match(notes[0]!.error, /the limit may be the cause, or no completion was recorded \(.*the span's SDK is "python" \(telemetry\.sdk\.language\): .*one that evicts the oldest, as Python's does, keeps them\)/);
  assert.doesNotMatch(notes[0]!.error, /the limit is the likely cause/);
});

test("a Python span whose last completion carries its role and no content: the note does not say the SDK dropped the content (Python's evicts the role first)", async () => {
  // The instrumentation wrote no content for the last completion; the SDK then evicted the oldest two attributes.
  const attributes = openLlmetryOrder(["Unused leave lapses."]);
  const withoutContent: Attribute[] = [...attributes.slice(0, -1), ["gen_ai.completion.1.role", "assistant"], attributes.at(-1)!];
  const { dropped, caseResult, notes } = await replayPythonSpan(withoutContent, withoutContent.length - 2);
  assert.equal(dropped, 2);
  assert.equal(caseResult.output, null);
  const absent = notes.find((note) => note.attribute === "gen_ai.completion.1.content");
  assert.ok(absent !== undefined, JSON.stringify(notes));
  assert.match(absent.error, /its text was not recorded \(the span's SDK dropped attributes, and the span's SDK is "python" \(telemetry\.sdk\.language\): .*one that evicts the oldest \(Python's\) would have dropped the role first/);
  assert.doesNotMatch(absent.error, /the role was set before the content, and the span's SDK dropped the attributes set last/);
});
