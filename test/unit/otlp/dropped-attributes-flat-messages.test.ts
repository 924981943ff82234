/**
 * An LLM call recorded the way OpenLLMetry records it (`llm.request.type`, then the prompts `gen_ai.prompt.N.*`, then
 * the completions `gen_ai.completion.N.*`, each message's role before its content) on the real OpenTelemetry JS SDK
 * with a low attribute count limit (`attributeCountLimit`, OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT), written as OTLP/JSON by
 * the serializer its exporters use and evaluated through the collector's consumer path (test/golden/replay-golden.ts).
 *
 * It holds the premise of the flat-message cut (collector/04-normalize/unread-cut-list.ts, read-messages.ts) on the
 * real SDK: past its limit the SDK keeps a completion's role and drops its content, or drops the last completion
 * whole, with no index missing. Before, both read the completion before it as the answer, and said nothing.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import type { Attributes as OtelAttributes } from "@opentelemetry/api";
import { JsonTraceSerializer } from "@opentelemetry/otlp-transformer";
import { defaultResource, resourceFromAttributes } from "@opentelemetry/resources";
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { replayTrace } from "../../golden/replay-golden.js";

const exporter = new InMemorySpanExporter();
/** The request's attributes and one prompt: set before any completion, so always kept. */
const BEFORE_COMPLETIONS = 5;
const providers: NodeTracerProvider[] = [];
after(() => Promise.all(providers.map((provider) => provider.shutdown())));

/**
 * A provider whose SDK keeps `limit` attributes a span (not registered: each test names its own limit). Its resource
 * is the SDK's default one (telemetry.sdk.language "nodejs", which a provider given no resource has) with the service
 * name: the span says it comes from the JS SDK, whose order (the attributes set first kept) the notes then state.
 */
function providerKeeping(limit: number): NodeTracerProvider {
  const provider = new NodeTracerProvider({
    resource: defaultResource().merge(resourceFromAttributes({ "service.name": "dropped-flat-messages" })),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
    spanLimits: { attributeCountLimit: limit },
  });
  providers.push(provider);
  return provider;
}

/** One LLM span, its attributes set one by one in OpenLLMetry's order; the completions as given. */
async function recordCompletion(completions: readonly string[], limit: number) {
  exporter.reset();
  const provider = providerKeeping(limit);
  const span = provider.getTracer("openllmetry-order").startSpan("openai.chat");
  const request: OtelAttributes = { "llm.request.type": "chat", "gen_ai.system": "openai", "gen_ai.request.model": "gpt-4o-mini" };
  for (const [key, value] of Object.entries(request)) span.setAttribute(key, value!);
  span.setAttribute("gen_ai.prompt.0.role", "user");
  span.setAttribute("gen_ai.prompt.0.content", "Can unused annual leave be carried over?");
  completions.forEach((content, index) => {
    span.setAttribute(`gen_ai.completion.${index}.role`, "assistant");
    span.setAttribute(`gen_ai.completion.${index}.content`, content);
  });
  span.end();
  await provider.forceFlush();
  const spans = exporter.getFinishedSpans();
  const [evaluation, ...others] = await replayTrace(new TextDecoder().decode(JsonTraceSerializer.serializeRequest([...spans])!), []);
  assert.equal(others.length, 0);
  return { span: spans[0]!, caseResult: evaluation!.caseResult };
}

const unreadable = (caseResult: Awaited<ReturnType<typeof recordCompletion>>["caseResult"]) =>
  caseResult.rag_observation.malformed_attributes.filter((note) => note.kind === "unreadable_value");

test("within the limit, the last completion is the answer (the recording itself changes nothing)", async () => {
  const { span, caseResult } = await recordCompletion(["Up to 5 days."], 128);
  assert.equal(span.droppedAttributesCount, 0);
  assert.equal(caseResult.output, "Up to 5 days.");
  assert.deepEqual(unreadable(caseResult), []);
});

test("the real SDK keeps the last completion's role and drops its content: the answer is not available, not the choice before it", async () => {
  // Room for the first completion and the second one's role: its content is the first attribute dropped.
  const { span, caseResult } = await recordCompletion(["Unused leave lapses.", "Up to 5 days."], BEFORE_COMPLETIONS + 3);
  assert.equal(span.attributes["gen_ai.completion.1.role"], "assistant", "set before the limit: kept");
  assert.equal(span.attributes["gen_ai.completion.1.content"], undefined, "set past the limit: dropped");
  assert.equal(span.droppedAttributesCount, 1);
  assert.equal(caseResult.output, null, "not \"Unused leave lapses.\", the first choice");
  const notes = unreadable(caseResult);
  assert.deepEqual(notes.map((note) => [note.span_id, note.attribute]), [
    [span.spanContext().spanId, "gen_ai.completion.1"],
    [span.spanContext().spanId, "gen_ai.completion.1.content"],
  ]);
  assert.match(notes[0]!.error, /^may not be the last completion: the span carries gen_ai\.completion\.0 to gen_ai\.completion\.1 with no gap/);
  assert.match(notes[1]!.error, /^is absent beside gen_ai\.completion\.1\.role \("assistant"\), and the message records no tool call: its text was not recorded \(the role was set before the content, and the span's SDK dropped the attributes set last\)/);
  assert.match(notes[1]!.error, /The span lost 1 attribute to its SDK's limit OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT/);
});

test("the real SDK drops the last completion whole, no index missing: the answer is not available, not the choice before it", async () => {
  // Room for two completions whole: the third one's role and content are dropped.
  const { span, caseResult } = await recordCompletion(["Unused leave lapses.", "Leave lapses at year end.", "Up to 5 days."], BEFORE_COMPLETIONS + 4);
  assert.ok(!Object.keys(span.attributes).some((key) => key.startsWith("gen_ai.completion.2.")), "the third completion is dropped whole");
  assert.equal(span.attributes["gen_ai.completion.1.content"], "Leave lapses at year end.");
  assert.equal(span.droppedAttributesCount, 2);
  assert.equal(caseResult.output, null, "not \"Leave lapses at year end.\", the second choice");
  const notes = unreadable(caseResult);
  assert.deepEqual(notes.map((note) => note.attribute), ["gen_ai.completion.1"]);
  assert.match(notes[0]!.error, /^may not be the last completion: the span carries gen_ai\.completion\.0 to gen_ai\.completion\.1 with no gap, but an SDK past its attribute count limit drops the attributes set last/);
  assert.match(notes[0]!.error, /The span lost 2 attributes to its SDK's limit OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT \(128 by default; dropped_attributes_count 2\)/);
});

test("the real SDK drops every completion, set after the prompt: the answer is not available, and a note says the limit is the likely cause", async () => {
  // Room for the request's attributes and the prompt only: each completion's role and content are dropped.
  const { span, caseResult } = await recordCompletion(["Up to 5 days."], BEFORE_COMPLETIONS);
  assert.ok(!Object.keys(span.attributes).some((key) => key.startsWith("gen_ai.completion.")), "no completion is carried");
  assert.equal(span.droppedAttributesCount, 2);
  assert.equal(caseResult.output, null);
  const notes = unreadable(caseResult);
  assert.deepEqual(notes.map((note) => [note.span_id, note.attribute]), [[span.spanContext().spanId, "gen_ai.completion.0"]]);
  assert.match(notes[0]!.error, /^is absent, and so is every other completion and gen_ai\.output\.messages: .*the limit is the likely cause \(it carries its prompt, set before the completions;/);
  assert.match(notes[0]!.error, /The span lost 2 attributes to its SDK's limit OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT \(128 by default; dropped_attributes_count 2\)/);
});

test("a call recorded with no completion on a span that dropped nothing: no note, the answer simply not recorded", async () => {
  const { span, caseResult } = await recordCompletion([], 128);
  assert.equal(span.droppedAttributesCount, 0);
  assert.equal(caseResult.output, null);
  assert.deepEqual(unreadable(caseResult), []);
});
