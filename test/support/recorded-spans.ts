/**
 * Records real spans from the ragscope SDK's stage wrappers (an in-memory
 * exporter behind the OTel SDK's own provider) and serializes them with the
 * OTel SDK's own OTLP serializers, as an exporter would send them.
 */
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { ProtobufTraceSerializer, JsonTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";

export interface SpanRecorder {
  spans(): ReadableSpan[];
  reset(): void;
  shutdown(): Promise<void>;
}

/**
 * `attributeCountLimit`: the OTel SDK's own default (128) unless given. `setupRagscope()` raises it
 * (RAGSCOPE_ATTRIBUTE_COUNT_LIMIT), so traffic meant to be what an application sends — the benchmarks' — passes that:
 * under 128 a rerank span of ten chunks loses its last attributes.
 */
export function startSpanRecorder(serviceName = "policy-assistant", options: { attributeCountLimit?: number } = {}): SpanRecorder {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ "service.name": serviceName }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
    ...(options.attributeCountLimit === undefined ? {} : { spanLimits: { attributeCountLimit: options.attributeCountLimit } }),
  });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  trace.setGlobalTracerProvider(provider);
  return {
    spans: () => exporter.getFinishedSpans(),
    reset: () => exporter.reset(),
    async shutdown() {
      await provider.shutdown();
      trace.disable();
      context.disable();
    },
  };
}

export function toOtlpProtobuf(spans: ReadableSpan[]): Uint8Array {
  return ProtobufTraceSerializer.serializeRequest(spans)!;
}

export function toOtlpJson(spans: ReadableSpan[]): Uint8Array {
  return JsonTraceSerializer.serializeRequest(spans)!;
}

export async function postTraces(receiverUrl: string, body: Uint8Array, contentType = "application/x-protobuf"): Promise<number> {
  const response = await fetch(`${receiverUrl}/v1/traces`, { method: "POST", headers: { "content-type": contentType }, body });
  await response.arrayBuffer();
  return response.status;
}
