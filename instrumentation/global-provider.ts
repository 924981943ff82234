/**
 * The tracer provider behind the OpenTelemetry API's global proxy, and a
 * one-time warning when a RAG stage is traced while none is registered: the
 * stage wrappers and adapters then record nothing, which is otherwise silent
 * (a LangChain handler added before `setupRagscope` is the usual case).
 */
import { ProxyTracerProvider, trace, type TracerProvider } from "@opentelemetry/api";
import { writeToStandardError } from "./export/ragscope-span-processor.js";

/** What the API's global proxy delegates to when nothing is registered. */
export const NOOP_PROVIDER: TracerProvider = new ProxyTracerProvider().getDelegate();

/** The provider behind the API's global proxy (the no-op provider when none is registered). */
export function globalTracerProvider(): TracerProvider {
  const provider = trace.getTracerProvider();
  return provider instanceof ProxyTracerProvider ? provider.getDelegate() : provider;
}

let checked = false;

/**
 * Setup refused its settings and said so ("not started, the application runs untraced"): the stages then go nowhere
 * by that choice, and the warning below, which tells to call setupRagscope(), would contradict it.
 */
export function setupWasRefused(): void {
  checked = true;
}

/** Called with the first stage span of the process; warns once if it goes nowhere. */
export function warnOnceIfNotSetUp(warn: (message: string) => void = writeToStandardError): void {
  if (checked) return;
  checked = true;
  if (globalTracerProvider() !== NOOP_PROVIDER) return;
  warn(
    "ragscope: a RAG stage was traced, but no OpenTelemetry tracer provider is set up, so nothing is recorded; " +
      'call setupRagscope() from "ragscope/instrumentation" before the first request (or start node with --import ragscope/register)',
  );
}
