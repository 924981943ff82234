/**
 * An OpenLLMetry LLM call read as the generation: the GenAI attributes its instrumentations write
 * (readGenAiGeneration: model, `gen_ai.usage.*`, flat completions), and the total from `llm.usage.total_tokens`, which
 * OpenLLMetry writes beside them, when no GenAI total is carried. Shared by the call that carries its request type
 * (openllmetry-mapper.ts) and the one whose SDK evicted it (llm-call-without-request-type.ts), so both read alike.
 */
import { OpenLlmetry } from "../../contracts/span-attributes.js";
import type { SpanRecord } from "../00-otlp/span-record.js";
import { readNumber } from "./attribute-readers.js";
import { attributesDroppedBySdk } from "./attributes-dropped-by-sdk.js";
import { readGenAiGeneration } from "./otel-genai-mapper.js";
import { sdkAttributeOrder } from "./sdk-attribute-order.js";
import type { StageObservation } from "./stage-observation.js";

export function readOpenLlmetryGeneration(span: SpanRecord): StageObservation {
  const generation = readGenAiGeneration(span.attributes, attributesDroppedBySdk(span), sdkAttributeOrder(span));
  if (generation.stage === "generate" && generation.totalTokens === null) generation.totalTokens = readNumber(span.attributes, OpenLlmetry.llmUsageTotalTokens);
  return generation;
}
