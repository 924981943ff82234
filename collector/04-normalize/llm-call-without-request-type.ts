/**
 * An OpenLLMetry LLM call (Python `opentelemetry-instrumentation-openai`, `-anthropic`, …) that lost its
 * `llm.request.type` to an SDK that evicts the OLDEST attribute past its count limit (Python's: sdk-attribute-order.ts).
 *
 * The instrumentations pass `llm.request.type` (with `gen_ai.system` for some) when they start the span, then set the
 * request (model, prompts), then the response (`gen_ai.response.model`, `gen_ai.usage.*`, `llm.usage.total_tokens`,
 * the completions). An SDK evicting the oldest drops the request type first, so an LLM span that lost anything at all
 * lost it. Not recognised as OpenLLMetry's, the call was no stage: a generation went unseen, and its tokens were left
 * out of the request's sums, which then read LOWER than what the request used — a cheaper request than the real one.
 *
 * What the span still carries decides how it is read:
 * - a generation when that is certain: its name is one the instrumentations give chat and completion calls
 *   (`openai.chat`, `anthropic.completion`, …, set when the span starts and never evicted), or it carries completions
 *   (`gen_ai.completion.N.*`), which no embedding call writes (the only other OpenLLMetry call that writes them is
 *   Cohere's rerank, `cohere.rerank`: rerank-without-request-type.ts). Read from what survived; a token count it does
 *   not carry is named, and the request's sum of it is not available (the count may have been lost with the rest);
 * - an embedding, no stage, as with its request type, when its name is one the instrumentations give embedding calls
 *   (and a trace of such calls alone is an index being built, as with their request type: rag-request-evidence.ts);
 * - otherwise (another name, what is left `gen_ai.usage.*`, `llm.usage.total_tokens` or `gen_ai.response.model`, which
 *   embedding calls write too) it is not known whether the call was a generation or an embedding, whose tokens are not
 *   the answer's: no stage, and the request's token and cost sums are not available rather than a number that leaves
 *   the call out, the notes naming the span (collector/06-rebuild/request-usage.ts); and, ended after the last known
 *   generation, it may have been the last, so the request's answer and model are not its neighbour's
 *   (`mayBeGeneration`: collector/06-rebuild/last-generation.ts).
 *
 * Only when the span dropped attributes and its SDK is not known to keep the attributes set first (the JS SDK keeps
 * the request type, set first), and the span is none of OpenLLMetry's entity spans (`traceloop.span.kind`, read
 * otherwise): a span that simply carries no request type, having lost nothing, is not taken for an LLM call.
 */
import { GenAi, OpenLlmetry } from "../../contracts/span-attributes.js";
import { listedInWords } from "../../core/listed-in-words.js";
import type { SpanRecord } from "../00-otlp/span-record.js";
import { flattenedIndexes } from "./attribute-readers.js";
import { attributesDroppedBySdk } from "./attributes-dropped-by-sdk.js";
import { unreadableField } from "./explain-unread-value.js";
import { readOpenLlmetryGeneration } from "./read-openllmetry-generation.js";
import { evictedFirstPhrase, mayHaveEvictedFirstAttributes } from "./sdk-attribute-order.js";
import { USAGE_SUMS, type GenerateObservation, type StageObservation, type UsageSum } from "./stage-observation.js";
import { sdkLimitFact } from "./unread-index-gaps.js";

/**
 * The names OpenLLMetry's Python instrumentations give chat and completion calls, each started with `llm.request.type`
 * `chat` or `completion` (the openai, anthropic, cohere, groq, mistralai, ollama, together, google-generativeai,
 * vertexai, writer and alephalpha packages).
 */
const GENERATION_SPAN_NAMES: ReadonlySet<string> = new Set([
  "openai.chat",
  "openai.completion",
  "anthropic.chat",
  "anthropic.completion",
  "cohere.chat",
  "cohere.completion",
  "groq.chat",
  "mistralai.chat",
  "ollama.chat",
  "ollama.completion",
  "together.chat",
  "together.completion",
  "gemini.generate_content",
  "vertexai.generate_content",
  "vertexai.generate_content_async",
  "vertexai.send_message",
  "vertexai.send_message_streaming",
  "writerai.chat",
  "writerai.completions",
  "alephalpha.completion",
]);

/** The names they give embedding calls, started with `llm.request.type` `embedding`. */
const EMBEDDING_SPAN_NAMES: ReadonlySet<string> = new Set(["openai.embeddings", "cohere.embed", "mistralai.embeddings", "ollama.embeddings"]);

/** What the response part of an LLM call writes, embeddings' included: token counts and the model that answered. */
const RESPONSE_KEYS: readonly string[] = [
  GenAi.usageInputTokens,
  GenAi.usagePromptTokens,
  GenAi.usageOutputTokens,
  GenAi.usageCompletionTokens,
  GenAi.usageTotalTokens,
  OpenLlmetry.llmUsageTotalTokens,
  GenAi.responseModel,
];

const carriesCompletions = (span: SpanRecord) => flattenedIndexes(span.attributes, GenAi.completionPrefix).length > 0;

/** The response attributes the span still carries, for the note. */
const responseKeysCarried = (span: SpanRecord) => RESPONSE_KEYS.filter((key) => span.attributes[key] !== undefined);

/** Whether the span is an OpenLLMetry LLM call whose request type its SDK evicted (see the module comment). */
export function isLlmCallWithoutRequestType(span: SpanRecord): boolean {
  if (span.attributes[OpenLlmetry.llmRequestType] !== undefined || span.attributes[OpenLlmetry.spanKind] !== undefined) return false;
  if (!mayHaveEvictedFirstAttributes(span)) return false;
  return GENERATION_SPAN_NAMES.has(span.name) || EMBEDDING_SPAN_NAMES.has(span.name) || carriesCompletions(span) || responseKeysCarried(span).length > 0;
}

/**
 * Whether the span is such a call that its name says was an embedding: what its request type `embedding` would have
 * said, for the callers that tell embedding calls apart (a trace of embeddings alone is no request).
 */
export function isEmbeddingCallWithoutRequestType(span: SpanRecord): boolean {
  return EMBEDDING_SPAN_NAMES.has(span.name) && isLlmCallWithoutRequestType(span);
}

/** Why the request type is absent: the first part of every note on it. */
const evictedRequestType = (span: SpanRecord) => evictedFirstPhrase(span, "the request type");

/** The token counts a generation read from what its SDK left does not carry: the request's sums of them are not known. */
export function tokenCountsNotCarried(generation: GenerateObservation): UsageSum[] {
  return [
    ...(generation.inputTokens === null ? (["input_tokens"] as const) : []),
    ...(generation.outputTokens === null ? (["output_tokens"] as const) : []),
    ...(generation.totalTokens === null ? (["total_tokens"] as const) : []),
  ];
}

/** The note's part on those counts (empty when it carries them all). */
export function tokenCountsNotCarriedPhrase(lost: readonly UsageSum[]): string {
  return lost.length === 0
    ? ""
    : `; it carries no ${listedInWords(lost, "or")} count (lost with the other attributes, or never recorded: not known which), so the request's ${listedInWords(lost, "and")} ${lost.length === 1 ? "is" : "are"} not available rather than a sum that leaves this call out`;
}

/** The call read as what it is, or as no stage with the request's usage sums not available (see the module comment). */
export function llmCallWithoutRequestType(span: SpanRecord): StageObservation {
  const dropped = attributesDroppedBySdk(span);
  if (EMBEDDING_SPAN_NAMES.has(span.name)) return { stage: "other" };
  if (GENERATION_SPAN_NAMES.has(span.name) || carriesCompletions(span)) {
    const generation = readOpenLlmetryGeneration(span);
    if (generation.stage !== "generate") return generation;
    const why = GENERATION_SPAN_NAMES.has(span.name)
      ? `its name, ${span.name}, is the one OpenLLMetry gives a chat or completion call`
      : `it carries completions (${GenAi.completionPrefix}.N), which no embedding call writes`;
    const lost = tokenCountsNotCarried(generation);
    const usage = tokenCountsNotCarriedPhrase(lost);
    const note = {
      attribute: OpenLlmetry.llmRequestType,
      error: `${evictedRequestType(span)}: the span is still the generation (${why}), read from what it still carries${usage}. ${sdkLimitFact(dropped)}`,
    };
    return { ...generation, ...unreadableField([note, ...(generation.unreadable ?? [])]), ...(lost.length === 0 ? {} : { uncountedUsage: lost }) };
  }
  const carried = responseKeysCarried(span);
  return {
    stage: "other",
    unreadable: [
      {
        attribute: OpenLlmetry.llmRequestType,
        error:
          `${evictedRequestType(span)}: the span carries what an OpenLLMetry LLM call's response writes (${carried.join(", ")}), but a generation and an embedding both write it, and its name, ${JSON.stringify(span.name.slice(0, 80))}, does not say which, ` +
          `so the call is no stage, and whether its tokens belong in the request's sums is not known: input_tokens, output_tokens, total_tokens and cost are not available rather than sums that may leave this call out. ${sdkLimitFact(dropped)}`,
      },
    ],
    uncountedUsage: [...USAGE_SUMS],
    mayBeGeneration: true,
  };
}
