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
import { withoutOutOfRangeValues } from "./out-of-range-values.js";
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
      if (mapper.canMap(span)) return { span, observation: withoutOutOfRangeValues(mapper.map(span, context)), convention: mapper.name, malformedJson };
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
    // Whether a span a mapper reads lies above each span, worked out once per span (a chain of 10,000 spans walked
    // from each of them was seconds of the event loop). Parent ids come from the sender and may form a cycle: a span
    // met again while its own answer is pending has none above it on that path.
    const readAbove = new Map<SpanRecord, boolean>();
    const pending = new Set<SpanRecord>();
    const hasReadAbove = (start: SpanRecord): boolean => {
      const path: SpanRecord[] = [];
      let answer = false;
      for (let span: SpanRecord | undefined = start; span !== undefined; ) {
        const known = readAbove.get(span);
        if (known !== undefined) {
          answer = known;
          break;
        }
        if (pending.has(span)) break;
        pending.add(span);
        path.push(span);
        const parent: SpanRecord | undefined = span.parentSpanId === "" ? undefined : byId.get(span.parentSpanId);
        if (parent !== undefined && isRead(parent)) {
          answer = true;
          break;
        }
        span = parent;
      }
      // Every span on the path has the same answer: a read span above the last one is above them all.
      for (const span of path) {
        readAbove.set(span, answer);
        pending.delete(span);
      }
      return readAbove.get(start) ?? answer;
    };
    const normalized = spans.map((span) => normalize(span, { outermost: !hasReadAbove(span) }));
    // Several request spans below spans no mapper reads (a handler calling two chains: a condense-question chain, then
    // the RAG chain) do not say which is the request: none is taken for it, as before they were read this way.
    const promoted = normalized.filter((item) => item.observation.stage === "request" && item.convention !== "ragscope" && item.span.parentSpanId !== "");
    if (promoted.length <= 1) return normalized;
    const demoted = new Set(promoted.map((item) => item.span));
    return normalized.map((item) => (demoted.has(item.span) ? normalize(item.span, { outermost: false }) : item));
  };
}
