/**
 * An OpenTelemetry GenAI LLM call (semantic conventions `gen_ai.*`: Python `opentelemetry-instrumentation-openai-v2`,
 * and instrumentations like it) that lost its `gen_ai.operation.name` to an SDK that evicts the OLDEST attribute past
 * its count limit (Python's: sdk-attribute-order.ts).
 *
 * The instrumentations pass `gen_ai.operation.name` (with `gen_ai.system` / `gen_ai.provider.name` and
 * `gen_ai.request.model`) when they start the span, then set the response (`gen_ai.response.*`, `gen_ai.usage.*`,
 * `gen_ai.output.messages`). An SDK evicting the oldest drops the operation name first, so a GenAI span that lost
 * anything lost it. The GenAI reader keys on it: such a call was read by no one, or by OpenLLMetry's reader of calls
 * without `llm.request.type` (which takes any span with `gen_ai.usage.*`) as a call it cannot tell, with a note on an
 * attribute the span never had — and a generation went unseen while an embedding made the request's sums unknown.
 *
 * The span name survives (set when the span starts, never evicted): the conventions name an inference span
 * `{gen_ai.operation.name} {gen_ai.request.model}` ("chat gpt-4o"), an embeddings span `embeddings {model}`, or the
 * operation alone when the model is not known. What the span still carries decides how it is read:
 * - a generation when its name says `chat`, `text_completion` or `generate_content`, or it carries the model's output
 *   (`gen_ai.output.messages`, a `gen_ai.choice` event), which no embeddings call writes. Read from what survived
 *   (the GenAI reader's generation); a token count it does not carry is named, and the request's sum of it is not
 *   available (the count may have been lost with the rest);
 * - an embedding, no stage, as with its operation name, when its name says `embeddings`;
 * - otherwise (a name that is no operation, what is left `gen_ai.usage.*` or `gen_ai.response.model`, which
 *   embeddings calls write too) it is not known whether the call was a generation or an embedding: no stage, the
 *   request's token and cost sums not available, and the answer and model not a neighbour's (`mayBeGeneration`), as
 *   for OpenLLMetry's calls (llm-call-without-request-type.ts). Only when something left is the GenAI conventions'
 *   own (`gen_ai.response.finish_reasons`, `gen_ai.provider.name`, the JSON messages, a `gen_ai.*` event): without
 *   it, the span is left to OpenLLMetry's reader, which reads it the same way.
 *
 * Only on a span that dropped attributes, whose SDK is not known to keep the attributes set first (the JS SDK keeps the
 * operation name, set first), with a `gen_ai.*` attribute or event left, and nothing of another convention: not
 * OpenLLMetry's (`llm.*`, `traceloop.*`, or its flattened `gen_ai.prompt.N` / `gen_ai.completion.N`; its spans are
 * named `openai.chat`, read by llm-call-without-request-type.ts) nor OpenInference's (`openinference.*`, read first).
 *
 * A span named for an operation that is no LLM call is read as it would be with its operation name, not left to
 * OpenLLMetry's reader, which took an agent's `gen_ai.usage.*` for a call it cannot tell and made every usage sum of
 * the request not available:
 * - `invoke_workflow` / `invoke_agent` without a parent: the request, its query and answer from the messages it still
 *   carries (an agent or workflow span's messages are set when it ends, after its operation name);
 * - `retrieval`: the retrieval, from the query and documents it still carries;
 * - an agent inside the request: no stage, the usage it carries its calls', as with its operation name;
 * - any other (`execute_tool`, `create_agent`, …): no stage.
 */
import { GenAi, GenAiOperation } from "../../contracts/span-attributes.js";
import type { SpanRecord } from "../00-otlp/span-record.js";
import { flattenedIndexes } from "./attribute-readers.js";
import { attributesDroppedBySdk } from "./attributes-dropped-by-sdk.js";
import { unreadableField } from "./explain-unread-value.js";
import { tokenCountsNotCarried, tokenCountsNotCarriedPhrase } from "./llm-call-without-request-type.js";
import { evictedFirstPhrase, mayHaveEvictedFirstAttributes } from "./sdk-attribute-order.js";
import { USAGE_SUMS, type StageObservation } from "./stage-observation.js";
import { sdkLimitFact } from "./unread-index-gaps.js";

const KNOWN_OPERATIONS: readonly string[] = Object.values(GenAiOperation);

/** Attribute prefixes of the conventions read before (OpenInference) or after (OpenLLMetry) this one. */
const OTHER_CONVENTION_PREFIXES: readonly string[] = ["llm.", "traceloop.", "openinference."];

/** What the response part of a GenAI call writes, embeddings' included: token counts and the model that answered. */
const RESPONSE_KEYS: readonly string[] = [GenAi.usageInputTokens, GenAi.usageOutputTokens, GenAi.usagePromptTokens, GenAi.usageCompletionTokens, GenAi.responseModel];

/** Attributes the GenAI conventions define and OpenLLMetry does not write. */
const GENAI_OWN_KEYS: readonly string[] = ["gen_ai.response.finish_reasons", GenAi.providerName, GenAi.inputMessages, GenAi.outputMessages];

/** The event the GenAI conventions (v1.36 and before) record a model's output choice in. */
const CHOICE_EVENT = "gen_ai.choice";


/** The operation the span's name gives (`chat gpt-4o` → chat, `embeddings` → embeddings), or null when it gives none. */
function operationInName(name: string): string | null {
  const first = name.split(" ", 1)[0]!;
  return KNOWN_OPERATIONS.includes(first) ? first : null;
}

function carriesOtherConvention(span: SpanRecord): boolean {
  const keys = Object.keys(span.attributes);
  if (keys.some((key) => OTHER_CONVENTION_PREFIXES.some((prefix) => key.startsWith(prefix)))) return true;
  return flattenedIndexes(span.attributes, GenAi.promptPrefix).length > 0 || flattenedIndexes(span.attributes, GenAi.completionPrefix).length > 0;
}

const carriesGenAi = (span: SpanRecord) => Object.keys(span.attributes).some((key) => key.startsWith("gen_ai.")) || span.events.some((event) => event.name.startsWith("gen_ai."));

const carriesOutput = (span: SpanRecord) => span.attributes[GenAi.outputMessages] !== undefined || span.events.some((event) => event.name === CHOICE_EVENT);

const carriesGenAiOwn = (span: SpanRecord) => GENAI_OWN_KEYS.some((key) => span.attributes[key] !== undefined) || span.events.some((event) => event.name.startsWith("gen_ai."));

const responseKeysCarried = (span: SpanRecord) => RESPONSE_KEYS.filter((key) => span.attributes[key] !== undefined);

/** Whether the span is a GenAI LLM call whose operation name its SDK evicted (see the module comment). */
export function isGenAiCallWithoutOperationName(span: SpanRecord): boolean {
  if (span.attributes[GenAi.operationName] !== undefined) return false;
  if (!mayHaveEvictedFirstAttributes(span)) return false;
  if (carriesOtherConvention(span) || !carriesGenAi(span)) return false;
  // Any operation the conventions name: a call, or a span read as it would be with its operation name.
  if (operationInName(span.name) !== null) return true;
  return carriesOutput(span) || (responseKeysCarried(span).length > 0 && carriesGenAiOwn(span));
}

/** Why the operation name is absent: the first part of every note on it. */
const evictedOperationName = (span: SpanRecord) => evictedFirstPhrase(span, "the operation name");

/** A request or retrieval span read from what it still carries, the evicted operation name noted first. */
function readAsNamed(span: SpanRecord, operation: string, observation: StageObservation): StageObservation {
  const what = observation.stage === "request" ? `the request (its name, ${JSON.stringify(span.name.slice(0, 80))}, is the one the GenAI conventions give an ${operation} span, and it has no parent)` : `the retrieval (its name, ${JSON.stringify(span.name.slice(0, 80))}, is the one the GenAI conventions give a retrieval span)`;
  const note = { attribute: GenAi.operationName, error: `${evictedOperationName(span)}: the span is still ${what}, read from what it still carries. ${sdkLimitFact(attributesDroppedBySdk(span))}` };
  return { ...observation, ...unreadableField([note, ...(observation.unreadable ?? [])]) };
}

/**
 * The span read as what it is, or as no stage with the request's usage sums not available (see the module comment).
 * @param readAsOperation the GenAI reader's reading of a span of an operation (otel-genai-mapper.ts), passed in so the
 *   two modules do not import each other
 */
export function genAiCallWithoutOperationName(span: SpanRecord, readAsOperation: (span: SpanRecord, operation: string) => StageObservation): StageObservation {
  const dropped = attributesDroppedBySdk(span);
  const named = operationInName(span.name);
  // A name that is no operation, with the model's output: a chat call's, which no embeddings call writes.
  const operation = named ?? (carriesOutput(span) ? GenAiOperation.chat : null);
  if (operation !== null) {
    const observation = readAsOperation(span, operation);
    if (observation.stage === "request" || observation.stage === "retrieve") return readAsNamed(span, operation, observation);
    // An embedding, a tool, an agent inside the request: read as with the operation name, nothing to note.
    if (observation.stage !== "generate") return observation;
    const why =
      named !== null
        ? `its name, ${JSON.stringify(span.name.slice(0, 80))}, is the one the GenAI conventions give a ${operation} call ({gen_ai.operation.name} {gen_ai.request.model})`
        : `it carries the model's output (${GenAi.outputMessages} or a ${CHOICE_EVENT} event), which no embeddings call writes`;
    const lost = tokenCountsNotCarried(observation);
    const note = {
      attribute: GenAi.operationName,
      error: `${evictedOperationName(span)}: the span is still the generation (${why}), read from what it still carries${tokenCountsNotCarriedPhrase(lost)}. ${sdkLimitFact(dropped)}`,
    };
    return { ...observation, ...unreadableField([note, ...(observation.unreadable ?? [])]), ...(lost.length === 0 ? {} : { uncountedUsage: lost }) };
  }
  return {
    stage: "other",
    unreadable: [
      {
        attribute: GenAi.operationName,
        error:
          `${evictedOperationName(span)}: the span carries what a GenAI call's response writes (${responseKeysCarried(span).join(", ")}), but a generation and an embedding both write it, and its name, ${JSON.stringify(span.name.slice(0, 80))}, is no GenAI operation, ` +
          `so the call is no stage, and whether its tokens belong in the request's sums is not known: input_tokens, output_tokens, total_tokens and cost are not available rather than sums that may leave this call out. ${sdkLimitFact(dropped)}`,
      },
    ],
    uncountedUsage: [...USAGE_SUMS],
    mayBeGeneration: true,
  };
}
