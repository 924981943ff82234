/**
 * A reranker's input chunks are set on its span right after the span starts,
 * not handed to the sampler with the start attributes (stage-span.ts,
 * StageDefinition.recordInput): OTel copies start attributes twice for its
 * sampler, which for a list of chunks was a fifth of recording a request.
 */
import { afterEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { context, propagation, trace, type Attributes } from "@opentelemetry/api";
import { InMemorySpanExporter, SamplingDecision, SimpleSpanProcessor, type Sampler } from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { traceRerank, traceRetrieve, type ChunkRecord } from "../../../instrumentation/index.js";
import { instrumentationErrors } from "../../../instrumentation/instrumentation-errors.js";

const input: ChunkRecord[] = [
  { chunkId: "leave-policy#3", documentId: "leave-policy", text: "Employees accrue 25 days of annual leave.", score: 0.91 },
  { chunkId: "leave-policy#4", documentId: "leave-policy", text: "Carry-over is capped at 5 days.", score: 0.78 },
];

let provider: NodeTracerProvider | undefined;

function startTracing(sampler: Sampler, spanLimits?: { attributeCountLimit: number }): InMemorySpanExporter {
  const exporter = new InMemorySpanExporter();
  provider = new NodeTracerProvider({ sampler, spanProcessors: [new SimpleSpanProcessor(exporter)], ...(spanLimits ? { spanLimits } : {}) });
  provider.register();
  return exporter;
}

afterEach(async () => {
  await provider?.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
});

describe("rag.rerank input chunks", () => {
  test("the sampler sees the query, model and top-k; the span carries the input chunks as well", async () => {
    const seen: Attributes[] = [];
    const exporter = startTracing({
      shouldSample: (_context, _traceId, _name, _kind, attributes) => {
        seen.push({ ...attributes });
        return { decision: SamplingDecision.RECORD_AND_SAMPLED };
      },
      toString: () => "recording sampler",
    });
    await traceRerank({ query: "carry-over", input, model: "rerank-small", topK: 1 }, () => input.slice(0, 1));
    assert.equal(seen.length, 1);
    assert.equal(seen[0]!["reranker.query"], "carry-over");
    assert.equal(seen[0]!["reranker.model_name"], "rerank-small");
    assert.equal(seen[0]!["reranker.top_k"], 1);
    assert.deepEqual(Object.keys(seen[0]!).filter((key) => key.includes("input_documents")), []);
    const [span] = exporter.getFinishedSpans();
    assert.equal(span!.attributes["reranker.input_documents.1.document.id"], "leave-policy#4");
    assert.equal(span!.attributes["ragscope.rerank.input_documents.1.rank"], 2);
    assert.equal(span!.attributes["reranker.output_documents.0.document.id"], "leave-policy#3");
  });

  test("the input chunks are on the span when the reranker throws", async () => {
    const exporter = startTracing({ shouldSample: () => ({ decision: SamplingDecision.RECORD_AND_SAMPLED }), toString: () => "always" });
    await assert.rejects(
      traceRerank({ query: "carry-over", input, model: "rerank-small" }, () => {
        throw new Error("reranker down");
      }),
      /reranker down/,
    );
    const [span] = exporter.getFinishedSpans();
    assert.equal(span!.attributes["reranker.input_documents.0.document.id"], "leave-policy#3");
    assert.equal(span!.attributes["reranker.input_documents.1.document.content"], "Carry-over is capped at 5 days.");
    assert.equal(span!.attributes["reranker.output_documents.0.document.id"], undefined);
    assert.equal(span!.status.code, 2);
  });

  test("a span the sampler does not record gets no input chunks and costs no recording", async () => {
    const exporter = startTracing({ shouldSample: () => ({ decision: SamplingDecision.NOT_RECORD }), toString: () => "never" });
    let read = 0;
    const counted = new Proxy(input, {
      get(target, property, receiver) {
        if (property === "length") read += 1;
        return Reflect.get(target, property, receiver);
      },
    });
    await traceRerank({ query: "carry-over", input: counted, model: "rerank-small" }, () => input);
    assert.equal(exporter.getFinishedSpans().length, 0);
    assert.equal(read, 0);
  });

  test("the span's attribute count limit applies to the input chunks, and what it drops is counted", async () => {
    const exporter = startTracing({ shouldSample: () => ({ decision: SamplingDecision.RECORD_AND_SAMPLED }), toString: () => "always" }, { attributeCountLimit: 10 });
    await traceRerank({ query: "carry-over", input, model: "rerank-small" }, () => input);
    const [span] = exporter.getFinishedSpans();
    assert.equal(Object.keys(span!.attributes).length, 10);
    assert.ok(span!.droppedAttributesCount > 0);
  });

  test("what the limit drops is reported as an instrumentation problem, once a span, never silently; a span within the limit reports nothing", async () => {
    const exporter = startTracing({ shouldSample: () => ({ decision: SamplingDecision.RECORD_AND_SAMPLED }), toString: () => "always" }, { attributeCountLimit: 40 });
    const chunks = Array.from({ length: 10 }, (_, index): ChunkRecord => ({ chunkId: `c${index}`, documentId: `d${index}`, text: `chunk ${index}`, score: 1 - index / 10 }));
    const before = instrumentationErrors();
    await traceRetrieve({ query: "carry-over" }, () => chunks.slice(0, 2));
    assert.equal(instrumentationErrors(), before, "two chunks fit in 40 attributes");
    await traceRetrieve({ query: "carry-over" }, () => chunks);
    await traceRerank({ query: "carry-over", input: chunks, model: "rerank-small" }, () => chunks);
    const spans = exporter.getFinishedSpans();
    assert.ok(spans.slice(1).every((span) => span.droppedAttributesCount > 0));
    assert.equal(instrumentationErrors(), before + 2, "one report for each span that lost attributes");
  });
});
