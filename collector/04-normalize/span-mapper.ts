/**
 * A mapper reads spans written in one convention (Langfuse's pattern: an
 * ordered list of mappers, each with a name, `canMap` and `map`). The registry
 * tries them in priority order: ragscope > OpenInference > OTel GenAI >
 * OpenLLMetry, so our own richer attributes win when several are present.
 */
import type { SpanRecord } from "../00-otlp/span-record.js";
import type { StageObservation } from "./stage-observation.js";

export interface SpanMapper {
  readonly name: string;
  canMap(span: SpanRecord): boolean;
  /** `context` absent: the span is outermost when it is the trace's root (a span read on its own). */
  map(span: SpanRecord, context?: MappingContext): StageObservation;
}

/** Where a span sits among the trace's spans, as far as a mapper needs to know. */
export interface MappingContext {
  /**
   * No span above it in the trace is one a mapper reads: it is the root, or it sits under spans of no convention
   * only — an HTTP server's span around the application's, or a caller's span in another service that this trace
   * does not hold. A convention's request span (a chain, a workflow) is the request only there: further in, it is
   * a step of the request.
   */
  outermost: boolean;
}

export function contextOf(span: SpanRecord, context: MappingContext | undefined): MappingContext {
  return context ?? { outermost: span.parentSpanId === "" };
}
