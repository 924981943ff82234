/**
 * What an application hands the SDK that cannot be recorded as it is, recorded by ragscope's SDK on the real
 * OpenTelemetry JS SDK, written as OTLP/JSON by the serializer its exporters use and evaluated through the
 * collector's consumer path (test/golden/replay-golden.ts):
 * - a chunk list with elements that have no chunk id: the good chunks keep their places (their indexes), the list's
 *   count is its whole length and the number not recorded is beside it, so the evaluated ranking is not available,
 *   with a note saying why. Before, the good chunks were recorded one after another and counted as the whole list: a
 *   chunk after a bad element was read one place higher (raising MRR and Hit@k), and a list of only bad elements read
 *   as a retrieval that returned nothing (every retrieval metric 0, the gate failing on values nobody measured);
 * - a negative token count, cost or time to first token: the SDK leaves it off the span and says so, and a span
 *   that carries one anyway (another instrumentation) has its Case Result stored with that value not available and a
 *   note, rather than dead-lettered whole for one number.
 */
import assert from "node:assert/strict";
import { after, beforeEach, test } from "node:test";
import { JsonTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { context, trace } from "@opentelemetry/api";
import { configureRagscope, instrumentationErrors, traceCite, traceContext, traceGenerate, traceRequest, traceRerank, traceRetrieve, type ChunkRecord } from "../../../instrumentation/index.js";
import { replayTrace } from "../../golden/replay-golden.js";

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ resource: resourceFromAttributes({ "service.name": "unrecordable-values" }), spanProcessors: [new SimpleSpanProcessor(exporter)] });
provider.register();
after(() => provider.shutdown());
beforeEach(() => exporter.reset());

const good = (chunkId: string): ChunkRecord => ({ chunkId, text: `text of ${chunkId}`, score: 0.5 });
const noId = { text: "an element without a chunk id" } as unknown as ChunkRecord;

async function evaluated() {
  await provider.forceFlush();
  const spans = exporter.getFinishedSpans();
  const [evaluation, ...others] = await replayTrace(new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans)!), []);
  assert.equal(others.length, 0);
  return { spans, observation: evaluation!.caseResult.rag_observation };
}

function notes(observation: { malformed_attributes: { kind: string; attribute: string; error: string }[] }) {
  return observation.malformed_attributes.filter((note) => note.kind === "unreadable_value");
}

test("a retrieval with an element of no chunk id: the others keep their places, and the ranking is not available, with a note", async () => {
  const errorsBefore = instrumentationErrors();
  await traceRequest({ query: "refunds?" }, () => traceRetrieve({ query: "refunds?" }, () => [good("r1"), noId, good("r3")]));
  assert.equal(instrumentationErrors(), errorsBefore + 1, "the SDK says so once");
  const { spans, observation } = await evaluated();
  const attributes = spans.find((span) => span.name === "rag.retrieve")!.attributes;
  assert.equal(attributes["retrieval.documents.0.document.id"], "r1");
  assert.equal(attributes["retrieval.documents.1.document.id"], undefined, "the bad element's place is left empty");
  assert.equal(attributes["retrieval.documents.2.document.id"], "r3", "r3 stays at its own place, not one higher");
  assert.equal(attributes["ragscope.documents.2.rank"], 3);
  assert.equal(attributes["ragscope.retrieval.document_count"], 3, "the list's whole length");
  assert.equal(attributes["ragscope.retrieval.unrecorded_document_count"], 1);

  assert.equal(observation.retrieved_chunks, null, "not [r1, r3] read as ranks 1 and 2");
  const [note, ...more] = notes(observation);
  assert.equal(more.length, 0, "one note, in place of the gap's, which would name an attribute limit");
  assert.equal(note!.attribute, "retrieval.documents");
  assert.match(note!.error, /^1 element of the 3 it returned could not be recorded by the SDK \(no chunk id/);
});

test("a retrieval of only elements with no chunk id is not available, not a retrieval that returned nothing", async () => {
  await traceRequest({ query: "refunds?" }, () => traceRetrieve({ query: "refunds?" }, () => [noId, noId]));
  const { observation } = await evaluated();
  assert.equal(observation.retrieved_chunks, null, "not [] (every retrieval metric 0)");
  assert.match(notes(observation)[0]!.error, /^2 elements of the 2 it returned could not be recorded/);
});

test("a retrieval whose last element has no chunk id is not read as a whole shorter list", async () => {
  await traceRequest({ query: "refunds?" }, () => traceRetrieve({ query: "refunds?" }, () => [good("r1"), good("r2"), noId]));
  const { observation } = await evaluated();
  assert.equal(observation.retrieved_chunks, null);
  assert.match(notes(observation)[0]!.error, /^1 element of the 3 it returned/);
});

test("a rerank whose output has an element of no chunk id: the final ranking is not available, the retrieval's kept as the one before", async () => {
  await traceRequest({ query: "refunds?" }, async () => {
    const retrieved = await traceRetrieve({ query: "refunds?" }, () => [good("r1"), good("r2"), good("r3")]);
    return traceRerank({ query: "refunds?", input: retrieved }, () => [good("r3"), noId, good("r1")]);
  });
  const { observation } = await evaluated();
  assert.equal(observation.retrieved_chunks, null);
  assert.deepEqual(observation.pre_rerank_chunks?.map((chunk) => chunk.chunk_id), ["r1", "r2", "r3"]);
  assert.ok(notes(observation).some((note) => note.attribute === "reranker.output_documents" && /could not be recorded by the SDK/.test(note.error)));
});

test("a whole list is read as before: ranks in order, no note", async () => {
  await traceRequest({ query: "refunds?" }, () => traceRetrieve({ query: "refunds?" }, () => [good("r1"), good("r2")]));
  const { spans, observation } = await evaluated();
  assert.equal(spans.find((span) => span.name === "rag.retrieve")!.attributes["ragscope.retrieval.unrecorded_document_count"], undefined);
  assert.deepEqual(observation.retrieved_chunks?.map((chunk) => [chunk.rank, chunk.chunk_id]), [[1, "r1"], [2, "r2"]]);
  assert.deepEqual(notes(observation), []);
});

test("a negative token count, cost or time to first token given to the SDK is left off the span and said", async () => {
  const errorsBefore = instrumentationErrors();
  await traceRequest({ query: "refunds?" }, () => traceGenerate({ model: "m" }, () => ({ text: "an answer", inputTokens: 110, outputTokens: -3, cost: -1, timeToFirstTokenMs: -5 })));
  assert.equal(instrumentationErrors(), errorsBefore + 3);
  const { spans, observation } = await evaluated();
  const attributes = spans.find((span) => span.name === "rag.generate")!.attributes;
  assert.equal(attributes["llm.token_count.prompt"], 110);
  assert.equal(attributes["llm.token_count.completion"], undefined);
  assert.equal(attributes["llm.token_count.total"], undefined, "no total made from a negative part");
  assert.equal(attributes["llm.cost.total"], undefined);
  assert.equal(observation.generation.input_tokens, 110);
  assert.equal(observation.generation.output_tokens, null);
});

test("a span that carries negative usage anyway is stored with those values not available and noted, not dead-lettered", async () => {
  // Another instrumentation's LLM span (OpenInference attributes), set through the OpenTelemetry API directly.
  const tracer = trace.getTracer("another-instrumentation");
  const root = tracer.startSpan("chat request", { attributes: { "openinference.span.kind": "CHAIN", "input.value": "refunds?", "output.value": "an answer" } });
  const call = tracer.startSpan(
    "llm call",
    {
      attributes: {
        "openinference.span.kind": "LLM",
        "llm.model_name": "m",
        "llm.token_count.prompt": -1,
        "llm.token_count.completion": 12,
        "llm.cost.total": -0.5,
        "llm.output_messages.0.message.role": "assistant",
        "llm.output_messages.0.message.content": "an answer",
      },
    },
    trace.setSpan(context.active(), root),
  );
  call.end();
  root.end();
  const { observation } = await evaluated();
  assert.equal(observation.generation.input_tokens, null);
  assert.equal(observation.generation.output_tokens, 12, "the call's other count is kept");
  assert.equal(observation.generation.total_tokens, null, "no total made from a negative part");
  assert.equal(observation.generation.cost, null);
  const errors = notes(observation).map((note) => `${note.attribute}: ${note.error}`);
  assert.ok(errors.some((error) => /^generation\.input_tokens: is -1, below 0: a token count cannot be negative/.test(error)), errors.join("\n"));
  assert.ok(errors.some((error) => /^generation\.cost: is -0\.5, below 0/.test(error)));
});

test("citations given as chunk records: the warning names the element and what to give", async () => {
  const written: string[] = [];
  const write = process.stderr.write;
  process.stderr.write = ((chunk: string | Uint8Array) => written.push(String(chunk)) > 0) as typeof process.stderr.write;
  try {
    await traceRequest({ query: "refunds?" }, () => traceCite(() => ["r1", { chunkId: "r2" }] as unknown as string[]));
  } finally {
    process.stderr.write = write;
  }
  // Before: "expected an array of chunk id strings, got an array", whatever the array held.
  assert.match(written.join(""), /rag\.cite: expected an array of chunk id strings, got object at element 1 \(a chunk record: give its chunkId\)/);
});

test("a text the SDK cut to its maxTextLength is noted on the Case Result, with its length before the cut", async () => {
  configureRagscope({ maxTextLength: 40 });
  try {
    const answer = `Refunds reach the original payment method within 7 days. ${"More. ".repeat(20)}`;
    await traceRequest({ query: "refunds?" }, () => traceGenerate({ model: "m" }, () => ({ text: answer })));
    const { spans, observation } = await evaluated();
    const generate = spans.find((span) => span.name === "rag.generate")!;
    assert.equal((generate.attributes["ragscope.answer"] as string).length, 40);
    assert.equal(generate.attributes["ragscope.cut.ragscope.answer"], answer.length);
    assert.equal(generate.attributes["ragscope.cut"], true, "the span is marked, so the collector looks only on such spans");
    const cut = observation.malformed_attributes.filter((note) => note.kind === "truncated" && note.attribute === "ragscope.answer");
    assert.equal(cut.length, 1, JSON.stringify(observation.malformed_attributes));
    assert.equal(cut[0]!.error, `the SDK cut this text from ${answer.length} characters to 40 (maxTextLength, RAGSCOPE_MAX_TEXT_LENGTH): metrics read from it see only its beginning; raise the limit to record it whole`);
    assert.equal(observation.malformed_attributes.filter((note) => note.attribute === "ragscope.query").length, 0, "a text under the limit is not noted");
  } finally {
    configureRagscope({ maxTextLength: 32_768 });
  }
});

// The application builds these records and knows the ids of what it packed and cited: an empty one is a mistake it is
// told about. (The LangChain adapter's own context record keeps an empty id for a Document without one, which the
// collector reads as a packed chunk without an id: langchain-adapter.test.ts, case-result-checks.test.ts.)
test("an empty chunk id among packed or cited chunks of an application's record is not recorded, and said", async () => {
  const errorsBefore = instrumentationErrors();
  await traceRequest({ query: "refunds?" }, async () => {
    await traceContext({}, () => ({ text: "Refunds take 7 days.", chunkIds: ["r1", ""] }));
    await traceGenerate({ model: "m" }, () => ({ text: "7 days." }));
    await traceCite(() => ["r1", ""]);
  });
  assert.equal(instrumentationErrors(), errorsBefore + 2);
  const { spans, observation } = await evaluated();
  assert.equal(spans.find((span) => span.name === "rag.context")!.attributes["ragscope.context.chunk_ids"], undefined);
  assert.equal(spans.find((span) => span.name === "rag.cite")!.attributes["ragscope.citations.chunk_ids"], undefined);
  assert.equal(observation.context_chunks, null, "stored, with the packed chunks not available");
  assert.equal(observation.citations, null);
});
