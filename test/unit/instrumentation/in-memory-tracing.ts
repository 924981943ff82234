/**
 * Test fixture: a real NodeTracerProvider with an InMemorySpanExporter,
 * registered globally (with Node's async context manager, which nesting needs),
 * the way an application registers its own provider.
 */
import { context, propagation, trace } from "@opentelemetry/api";
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";

export interface InMemoryTracing {
  readonly provider: NodeTracerProvider;
  spans(): ReadableSpan[];
  reset(): void;
  stop(): Promise<void>;
}

export function startInMemoryTracing(): InMemoryTracing {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  provider.register();
  return {
    provider,
    spans: () => exporter.getFinishedSpans(),
    reset: () => exporter.reset(),
    stop: async () => {
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}

export function spanNamed(spans: readonly ReadableSpan[], name: string): ReadableSpan {
  const matches = spans.filter((span) => span.name === name);
  if (matches.length !== 1) throw new Error(`expected one span named ${name}, found ${matches.length}`);
  return matches[0]!;
}
