/**
 * The mapper registry: each span is read by the first mapper, in priority
 * order, that can map it. Spans no mapper knows are kept as "other" so they
 * still count toward the trace (latency, errors) without inventing a stage.
 * Every span is also checked for JSON attributes that do not parse
 * (find-malformed-json.ts), whichever mapper reads it.
 */
import type { SpanRecord } from "../00-otlp/span-record.js";
import { findMalformedJson } from "./find-malformed-json.js";
import { openInferenceMapper } from "./openinference-mapper.js";
import { openLlmetryMapper } from "./openllmetry-mapper.js";
import { otelGenAiMapper } from "./otel-genai-mapper.js";
import { withoutNegativeValues } from "./negative-values.js";
import { ragscopeMapper } from "./ragscope-mapper.js";
import type { MappingContext, SpanMapper } from "./span-mapper.js";
import type { NormalizedSpan } from "./stage-observation.js";

/** Priority order (span-mapper.ts): our own attributes first, then OpenInference, OTel GenAI, OpenLLMetry. */
export const defaultMappers: readonly SpanMapper[] = [ragscopeMapper, openInferenceMapper, otelGenAiMapper, openLlmetryMapper];

/** Reads one span; without `context` it is outermost when it is the trace's root (span-mapper.ts MappingContext). */
export function createMapperRegistry(mappers: readonly SpanMapper[] = defaultMappers): (span: SpanRecord, context?: MappingContext) => NormalizedSpan {
  const names = new Set<string>();
  for (const mapper of mappers) {
    if (names.has(mapper.name)) throw new Error(`span mapper "${mapper.name}" is registered twice`);
    names.add(mapper.name);
  }
  return (span, context) => {
    const malformedJson = findMalformedJson(span);
    for (const mapper of mappers) {
      if (mapper.canMap(span)) return { span, observation: withoutNegativeValues(mapper.map(span, context)), convention: mapper.name, malformedJson };
    }
    return { span, observation: { stage: "other" }, convention: "none", malformedJson };
  };
}

/**
 * Reads every span of a trace, each told whether a span above it is one a mapper reads (MappingContext). A
 * convention's request span is mostly the root, but an application served over HTTP exports its framework's server
 * span around it, and a service called by another has its caller's span above it in a trace this one does not hold:
 * read as a step there, the request's question, answer, session and run linkage were lost, and the question taken
 * from the retrieval's.
 */
export function createTraceNormalizer(mappers: readonly SpanMapper[] = defaultMappers): (spans: readonly SpanRecord[]) => NormalizedSpan[] {
  const normalize = createMapperRegistry(mappers);
  return (spans) => {
    const byId = new Map<string, SpanRecord>();
    for (const span of spans) byId.set(span.spanId, span);
    const read = new Map<SpanRecord, boolean>();
    const isRead = (span: SpanRecord): boolean => {
      let known = read.get(span);
      if (known === undefined) {
        known = mappers.some((mapper) => mapper.canMap(span));
        read.set(span, known);
      }
      return known;
    };
    return spans.map((span) => {
      let outermost = true;
      // Bounded by the trace's size: parent ids come from the sender and may form a cycle.
      let parent = span.parentSpanId === "" ? undefined : byId.get(span.parentSpanId);
      for (let steps = 0; parent !== undefined && steps < spans.length; steps += 1) {
        if (isRead(parent)) {
          outermost = false;
          break;
        }
        parent = parent.parentSpanId === "" ? undefined : byId.get(parent.parentSpanId);
      }
      return normalize(span, { outermost });
    });
  };
}
