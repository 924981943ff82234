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
  map(span: SpanRecord): StageObservation;
}
