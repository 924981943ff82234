/**
 * A retrieval recorded by ragscope's SDK on the real OpenTelemetry JS SDK with a low attribute count limit
 * (OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT's `attributeCountLimit`), written as OTLP/JSON by the serializer its exporters use
 * and evaluated through the collector's consumer path (test/golden/replay-golden.ts).
 *
 * It holds the premise of collector/04-normalize/unread-cut-list.ts on the real SDK: past its limit `Span.setAttribute`
 * drops each NEW key and keeps the ones it has, so a list recorded in rank order keeps its first documents and loses
 * its last ones — no index missing, only `dropped_attributes_count` and the list's recorded length tell. Before, the
 * list was read as carried, a relevant document past the cut counted as not retrieved. A rerank's input is read by its
 * recorded length as well: before the SDK recorded it, any drop on a rerank span made its input not available. And, through the receiver's
 * preparation, that a long key the receiver drops itself (also added to `dropped_attributes_count`) is not taken for
 * the SDK's drop: before the receiver recorded how many were its own, a whole list without a recorded length was
 * taken as cut.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { JsonTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { trace } from "@opentelemetry/api";
import { traceRequest, traceRerank, traceRetrieve, type ChunkRecord } from "../../../instrumentation/index.js";
import { prepareTraceMessages } from "../../../collector/01-receive/prepare-trace-messages.js";
import { createMapperRegistry } from "../../../collector/04-normalize/normalize-spans.js";
import { replayTrace } from "../../golden/replay-golden.js";
import { limits } from "./request-fixtures.js";

const exporter = new InMemorySpanExporter();
// Low enough to cut a five-document retrieval inside its third document (each takes eight attributes or so).
const ATTRIBUTE_LIMIT = 24;
const provider = new NodeTracerProvider({
  resource: resourceFromAttributes({ "service.name": "dropped-attributes" }),
  spanProcessors: [new SimpleSpanProcessor(exporter)],
  spanLimits: { attributeCountLimit: ATTRIBUTE_LIMIT },
});
provider.register();
after(() => provider.shutdown());

const chunks: ChunkRecord[] = ["refund-1", "shipping-1", "refund-2", "returns-1", "refund-3"].map((chunkId, index) => ({
  chunkId,
  documentId: chunkId.split("-")[0]!,
  text: `text of ${chunkId}`,
  score: 0.9 - index / 10,
}));

async function recordRetrieval() {
  exporter.reset();
  await traceRequest({ query: "how do refunds work?" }, () => traceRetrieve({ query: "how do refunds work?", retriever: "vector" }, () => chunks));
  await provider.forceFlush();
  return exporter.getFinishedSpans();
}

test("the real SDK past its attribute limit keeps a retrieval's first documents and its recorded count, and drops the last documents whole", async () => {
  const retrieve = (await recordRetrieval()).find((span) => span.name === "rag.retrieve")!;
  const keys = Object.keys(retrieve.attributes);
  assert.equal(keys.length, ATTRIBUTE_LIMIT);
  assert.ok(retrieve.droppedAttributesCount > 0);
  assert.equal(retrieve.attributes["ragscope.retrieval.document_count"], chunks.length, "set before the documents, so kept");
  assert.ok(keys.includes("retrieval.documents.0.document.id"));
  assert.ok(!keys.some((key) => key.startsWith("retrieval.documents.4.")), "the last document is dropped whole: no gap to see");
});

test("evaluated, that retrieval is not available, with a note saying the span lost its attributes to the SDK's limit", async () => {
  const spans = await recordRetrieval();
  const retrieve = spans.find((span) => span.name === "rag.retrieve")!;
  const json = new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans)!);
  const [evaluation, ...others] = await replayTrace(json, []);
  assert.equal(others.length, 0);
  const observation = evaluation!.caseResult.rag_observation;
  assert.equal(observation.retrieved_chunks, null, "not the first documents read as the whole list");
  const notes = observation.malformed_attributes.filter((note) => note.kind === "unreadable_value");
  assert.equal(notes.length, 1);
  assert.equal(notes[0]!.span_id, retrieve.spanContext().spanId);
  assert.match(notes[0]!.error, new RegExp(`of the ${chunks.length} documents its ragscope\\.retrieval\\.document_count says were recorded`));
  assert.match(notes[0]!.error, new RegExp(`The span lost ${retrieve.droppedAttributesCount} attributes to its SDK's limit OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT`));
});

/** The named span as ragscope's receiver prepares it from the SDK's OTLP/JSON export, and its normalized observation. */
function received(spans: ReadableSpan[], name: string) {
  const body = JsonTraceSerializer.serializeRequest(spans)!;
  const prepared = prepareTraceMessages({ body, encoding: "json", limits, tenant: null, output: "decoded" });
  assert.equal(prepared.kind, "decoded");
  if (prepared.kind !== "decoded") throw new Error("not decoded");
  const span = prepared.traces.flatMap((item) => item.spans).find((item) => item.name === name)!;
  return { span, observation: createMapperRegistry()(span).observation };
}

async function recordRerank(input: readonly ChunkRecord[], output: readonly ChunkRecord[]) {
  exporter.reset();
  await traceRequest({ query: "how do refunds work?" }, () => traceRerank({ query: "how do refunds work?", input: [...input], model: "cross-encoder" }, () => [...output]));
  await provider.forceFlush();
  return exporter.getFinishedSpans();
}

test("a rerank whose SDK cut its output reads its input whole: the input's recorded length matches the documents carried", async () => {
  // Two input documents fit the limit; the output, set after them, is cut inside its first document.
  const spans = await recordRerank(chunks.slice(0, 2), [chunks[1]!, chunks[0]!]);
  const recorded = spans.find((span) => span.name === "rag.rerank")!;
  assert.ok(recorded.droppedAttributesCount > 0);
  assert.equal(recorded.attributes["ragscope.rerank.input_document_count"], 2);
  const { observation } = received(spans, "rag.rerank");
  assert.equal(observation.stage, "rerank");
  if (observation.stage !== "rerank") return;
  assert.deepEqual(observation.input?.map((document) => document.chunkId), ["refund-1", "shipping-1"]);
  assert.equal(observation.output, null);
  assert.deepEqual(
    observation.unreadable?.map((note) => note.attribute),
    ["reranker.output_documents.0"],
    "only the output's note: the input is not taken as cut",
  );
  assert.match(observation.unreadable![0]!.error, /of the 2 documents its ragscope\.rerank\.output_document_count says were recorded, so the last one was dropped/);
});

test("a rerank whose SDK cut its input is not available, the input's recorded length saying how many documents are missing", async () => {
  // Five input documents: the limit falls inside the third; the output is lost whole.
  const spans = await recordRerank(chunks, chunks.slice(0, 2));
  const recorded = spans.find((span) => span.name === "rag.rerank")!;
  const { observation } = received(spans, "rag.rerank");
  assert.equal(observation.stage, "rerank");
  if (observation.stage !== "rerank") return;
  assert.equal(observation.input, null, "not the first three documents read as the whole input");
  const notes = observation.unreadable ?? [];
  assert.deepEqual(notes.map((note) => note.attribute), ["reranker.input_documents.2"]);
  assert.match(
    notes[0]!.error,
    /^is not the last document: the span carries reranker\.input_documents\.0 to reranker\.input_documents\.2 of the 5 documents its ragscope\.rerank\.input_document_count says were recorded, so the last 2 were dropped/,
  );
  assert.match(notes[0]!.error, /the rerank's input documents are not available/);
  assert.match(notes[0]!.error, new RegExp(`The span lost ${recorded.droppedAttributesCount} attributes to its SDK's limit OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT`));
});

test("a rerank given no documents records a length of 0, read as an empty input, not as one not recorded", async () => {
  const { observation } = received(await recordRerank([], []), "rag.rerank");
  assert.equal(observation.stage, "rerank");
  if (observation.stage !== "rerank") return;
  assert.deepEqual(observation.input, []);
  assert.deepEqual(observation.output, []);
});

test("a long key the receiver dropped itself is not counted as the SDK's: an OpenInference rerank's input (no recorded length) is read whole", async () => {
  // An OpenInference reranker span (as Arize's instrumentations write it: no list's length recorded) fits the limit
  // with a long key beside it; the receiver drops the key (RAGSCOPE_MAX_ATTRIBUTE_KEY_BYTES) and adds it to
  // dropped_attributes_count, recording how many were its own. Only that record tells the list was not cut.
  const longKey = `x.${"k".repeat(limits.maxAttributeKeyBytes)}`;
  exporter.reset();
  trace.getTracer("openinference-like").startActiveSpan("reranker", (span) => {
    span.setAttribute("openinference.span.kind", "RERANKER");
    span.setAttribute("reranker.query", "how do refunds work?");
    chunks.slice(0, 2).forEach((chunk, index) => {
      span.setAttribute(`reranker.input_documents.${index}.document.id`, chunk.chunkId);
      span.setAttribute(`reranker.input_documents.${index}.document.content`, chunk.text!);
    });
    span.setAttribute(longKey, "x");
    span.end();
  });
  await provider.forceFlush();
  const spans = exporter.getFinishedSpans();
  assert.equal(spans[0]!.droppedAttributesCount, 0, "the SDK dropped nothing");
  const { span, observation } = received(spans, "reranker");
  assert.equal(span.droppedAttributesCount, 1, "the receiver counted the key it dropped");
  assert.equal(observation.stage, "rerank");
  if (observation.stage !== "rerank") return;
  assert.deepEqual(observation.input?.map((document) => document.chunkId), ["refund-1", "shipping-1"]);
  assert.equal(observation.unreadable, undefined);
});
