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
import type { SpanMapper } from "./span-mapper.js";
import type { NormalizedSpan } from "./stage-observation.js";

/** Priority order (span-mapper.ts): our own attributes first, then OpenInference, OTel GenAI, OpenLLMetry. */
export const defaultMappers: readonly SpanMapper[] = [ragscopeMapper, openInferenceMapper, otelGenAiMapper, openLlmetryMapper];

export function createMapperRegistry(mappers: readonly SpanMapper[] = defaultMappers): (span: SpanRecord) => NormalizedSpan {
  const names = new Set<string>();
  for (const mapper of mappers) {
    if (names.has(mapper.name)) throw new Error(`span mapper "${mapper.name}" is registered twice`);
    names.add(mapper.name);
  }
  return (span) => {
    const malformedJson = findMalformedJson(span);
    for (const mapper of mappers) {
      if (mapper.canMap(span)) return { span, observation: withoutNegativeValues(mapper.map(span)), convention: mapper.name, malformedJson };
    }
    return { span, observation: { stage: "other" }, convention: "none", malformedJson };
  };
}
