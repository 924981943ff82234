/**
 * Online RAG traces for the Kafka tests and benchmark, recorded from the real
 * ragscope SDK stage wrappers (request → retrieve → context → generate → cite,
 * five spans) behind the OTel SDK, and serialized with the OTel SDK's own OTLP
 * serializers — what a service exporting to a receiver, or an OpenTelemetry
 * Collector, would send.
 *
 * Trace number i (1-based) records `output_tokens = i`, so the sum of that
 * metric over n traces is n(n+1)/2: a metric stored twice, or a trace lost,
 * changes the sum.
 */
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { traceCite, traceContext, traceGenerate, traceRequest, traceRetrieve } from "../../../../instrumentation/index.js";
import { startSpanRecorder, toOtlpJson, toOtlpProtobuf } from "../../../support/recorded-spans.js";

export interface RecordedTrace {
  traceId: string;
  index: number;
  spans: ReadableSpan[];
}

export const spansPerTrace = 5;

/** Σ output_tokens over traces 1..count. */
export function expectedOutputTokens(count: number): number {
  return (count * (count + 1)) / 2;
}

export async function recordTraces(count: number, firstIndex = 1): Promise<RecordedTrace[]> {
  const recorder = startSpanRecorder("kafka-test-service");
  try {
    for (let index = firstIndex; index < firstIndex + count; index += 1) {
      await traceRequest({ query: `question ${index}`, tenantId: `tenant-${index % 3}` }, async () => {
        const chunks = await traceRetrieve({ query: `question ${index}`, topK: 2 }, () => [
          { chunkId: `chunk-${index}-a`, documentId: "policy", sectionId: "s1", text: `passage a of ${index}`, score: 0.9 },
          { chunkId: `chunk-${index}-b`, documentId: "policy", sectionId: "s2", text: `passage b of ${index}`, score: 0.7 },
        ]);
        const packed = await traceContext({ tokenBudget: 100 }, () => ({ text: chunks[0]!.text!, chunkIds: [chunks[0]!.chunkId], tokenCount: 10, tokenBudget: 100 }));
        const answer = await traceGenerate({ model: "test-model", prompt: packed.text }, () => ({ text: `answer ${index}`, inputTokens: 20, outputTokens: index, cost: 0.0001 }));
        await traceCite(() => [chunks[0]!.chunkId]);
        return answer.text;
      });
    }
    const byTrace = new Map<string, ReadableSpan[]>();
    for (const span of recorder.spans()) {
      const traceId = span.spanContext().traceId;
      const spans = byTrace.get(traceId) ?? [];
      spans.push(span);
      byTrace.set(traceId, spans);
    }
    return [...byTrace].map(([traceId, spans], position) => ({ traceId, index: firstIndex + position, spans }));
  } finally {
    await recorder.shutdown();
  }
}

/** One OTLP request body per `tracesPerRequest` traces, as an exporter batches them. */
export function requestBodies(traces: readonly RecordedTrace[], tracesPerRequest: number, encoding: "protobuf" | "json" = "protobuf"): Uint8Array[] {
  const bodies: Uint8Array[] = [];
  for (let start = 0; start < traces.length; start += tracesPerRequest) {
    const spans = traces.slice(start, start + tracesPerRequest).flatMap((trace) => trace.spans);
    bodies.push(encoding === "json" ? toOtlpJson(spans) : toOtlpProtobuf(spans));
  }
  return bodies;
}

export function otlpBody(spans: ReadableSpan[], encoding: "protobuf" | "json"): Uint8Array {
  return encoding === "json" ? toOtlpJson(spans) : toOtlpProtobuf(spans);
}
