/**
 * Reads spans written to the OpenTelemetry GenAI conventions
 * (`gen_ai.operation.name`; shared/reference/interop.md §2):
 * - `retrieval` → retrieve: the query from `gen_ai.retrieval.query.text`, the
 *   documents from the `gen_ai.retrieval.documents` JSON. The convention
 *   requires only `id` and `score` per document; content (`content`, `text`)
 *   and `metadata` ids are read when an instrumentation adds them, and are
 *   "not available" otherwise;
 * - `chat`, `text_completion`, `generate_content` → generate: model (response,
 *   else request), token usage (current and deprecated names), the answer from
 *   `gen_ai.output.messages` (opt-in content) or the deprecated
 *   `gen_ai.completion.0.content`; the time to first token from
 *   `gen_ai.response.time_to_first_chunk` (seconds, streamed calls). GenAI has
 *   no cost attribute: it stays not available;
 * - `invoke_workflow` / `invoke_agent` without a parent → the request, its
 *   query and answer from its messages, run / case linkage from `ragscope.*`
 *   attributes (read-linkage.ts); an `invoke_agent` inside the request → no
 *   stage, the usage it records its calls' (readAgent).
 * What could not be read — a document or message that is no object, a score
 * that is no number, a message without text, a flat completion list with a
 * gap or, on a span whose SDK dropped attributes, one that may be cut at its
 * end (unread-cut-list.ts) — is named on the Case Result (unread-genai-documents.ts,
 * unread-messages.ts); the documents, and a query or answer such a message may
 * have been, are then not available rather than read in part. A generation
 * with no completion at all on a span whose SDK dropped attributes is named
 * too (unread-dropped-completions.ts): its answer is not available.
 * A span whose SDK evicted its `gen_ai.operation.name` (Python's evicts the oldest, and the operation name is set
 * first) is read by what is left: its name `chat …` a generation, `embeddings …` no stage, `invoke_agent …` without
 * a parent the request, `retrieval …` the retrieval, otherwise a call's usage not counted
 * (genai-call-without-operation-name.ts).
 */
import { GenAi, GenAiOperation, OpenLlmetry } from "../../contracts/span-attributes.js";
import type { Attributes, SpanEventRecord, SpanRecord } from "../00-otlp/span-record.js";
import { readJsonArray, readNumber, readString } from "./attribute-readers.js";
import { unreadableField } from "./explain-unread-value.js";
import { toObservedDocument } from "./read-documents.js";
import { readLinkage } from "./read-linkage.js";
import { lastMessage, readFlatMessages, readStructuredMessages } from "./read-messages.js";
import { contextOf, type SpanMapper } from "./span-mapper.js";
import type { EnclosedUsage, StageObservation } from "./stage-observation.js";
import { unreadGenAiDocuments } from "./unread-genai-documents.js";
import { unreadFlatMessages, unreadMessages } from "./unread-messages.js";
import { attributesDroppedBySdk } from "./attributes-dropped-by-sdk.js";
import { unreadCutList, type CutListItems } from "./unread-cut-list.js";
import { unreadDroppedCompletions } from "./unread-dropped-completions.js";
import { sdkAttributeOrder, type SdkAttributeOrder } from "./sdk-attribute-order.js";
import { answerFromChoiceEvents } from "./read-choice-events.js";
import { genAiCallWithoutOperationName, isGenAiCallWithoutOperationName } from "./genai-call-without-operation-name.js";

/** Flat completions, for a cut list's note: the last one is the answer. */
const CUT_COMPLETIONS: CutListItems = {
  singular: "completion",
  plural: "completions",
  risk: "an earlier completion would be taken for the answer, which is the last one recorded",
};

const GENERATION_OPERATIONS: readonly string[] = [
  GenAiOperation.chat,
  GenAiOperation.textCompletion,
  GenAiOperation.generateContent,
  // Semantic Kernel for .NET still names its calls so: read as the calls they are, not as spans of no stage.
  GenAiOperation.semanticKernelChatCompletions,
  GenAiOperation.semanticKernelTextCompletions,
];
const REQUEST_OPERATIONS: readonly string[] = [GenAiOperation.invokeWorkflow, GenAiOperation.invokeAgent];
/** The operations whose GenAI attributes record the stage itself (model, tokens, messages; query, documents). */
const RECORD_OPERATIONS: readonly string[] = [...GENERATION_OPERATIONS, GenAiOperation.retrieval];

export const otelGenAiMapper: SpanMapper = {
  name: "otel_genai",
  // Traceloop's entity spans (`traceloop.span.kind`: workflow, task, agent, tool) are OpenLLMetry's to read: their
  // content is in `traceloop.entity.input` / `.output`, and the `gen_ai.operation.name` beside it is no GenAI record of
  // it — JS LangChain marks every chain step `workflow`, a value the conventions do not define; Python LangChain marks
  // its root chain `invoke_agent` with no messages, which read here gave a request without query or answer. A
  // generation or a retrieval, whose GenAI attributes are the record, is read here whoever wrote it.
  canMap: (span) => {
    const operation = span.attributes[GenAi.operationName];
    // A call whose Python SDK evicted its operation name, set first: recognised by its name and what it still carries.
    if (operation === undefined) return isGenAiCallWithoutOperationName(span);
    if (typeof operation !== "string") return false;
    if (typeof span.attributes[OpenLlmetry.spanKind] === "string") return RECORD_OPERATIONS.includes(operation);
    return true;
  },
  map(span, context) {
    const outermost = contextOf(span, context).outermost;
    const read = (record: SpanRecord, operation: string) => readAsOperation(record, operation, outermost);
    if (span.attributes[GenAi.operationName] === undefined) return genAiCallWithoutOperationName(span, read);
    return read(span, readString(span.attributes, GenAi.operationName) ?? "");
  },
};

/**
 * The span read as a span of `operation`: its `gen_ai.operation.name`, or, where its SDK evicted that, the operation
 * its name gives (genai-call-without-operation-name.ts reads it through this, so both read a span the same way).
 */
function readAsOperation(span: SpanRecord, operation: string, outermost: boolean): StageObservation {
  const attributes = span.attributes;
  if (operation === GenAiOperation.retrieval) return readRetrieval(attributes);
  if (GENERATION_OPERATIONS.includes(operation)) return readGenAiGeneration(attributes, attributesDroppedBySdk(span), sdkAttributeOrder(span), span.events);
  if (REQUEST_OPERATIONS.includes(operation) && outermost) {
    // An agent at the top (what agent frameworks export) is the request and still the record of its calls' usage.
    const usage = operation === GenAiOperation.invokeAgent ? enclosedUsageOf(attributes) : null;
    return { ...readRequest(attributes), ...(usage === null ? {} : { enclosedUsage: usage }) };
  }
  if (operation === GenAiOperation.invokeAgent) return readAgent(attributes);
  return { stage: "other" };
}

/**
 * An agent inside the request: no stage, and the usage it records is its calls' (the conventions' `invoke_agent`
 * spans carry `gen_ai.usage.*`), for the rebuild to count once with the calls inside it, or alone for a remote agent
 * whose calls no span of the trace records (request-usage.ts). The conventions write no total and no cost.
 */
function readAgent(attributes: Attributes): StageObservation {
  const usage = enclosedUsageOf(attributes);
  return usage === null ? { stage: "other" } : { stage: "other", enclosedUsage: usage };
}

/** An agent span's `gen_ai.usage.*`: the usage of the calls it made; null when it records none. */
function enclosedUsageOf(attributes: Attributes): EnclosedUsage | null {
  const inputTokens = readNumber(attributes, GenAi.usageInputTokens);
  const outputTokens = readNumber(attributes, GenAi.usageOutputTokens);
  if (inputTokens === null && outputTokens === null) return null;
  return { inputTokens, outputTokens, totalTokens: inputTokens !== null && outputTokens !== null ? inputTokens + outputTokens : null, cost: null };
}

function readRetrieval(attributes: Attributes): StageObservation {
  const documents = readJsonArray(attributes, GenAi.retrievalDocuments);
  return {
    stage: "retrieve",
    query: readString(attributes, GenAi.retrievalQueryText),
    // All or none, as the other readers read documents: an item that is no document object makes the list
    // unreadable. Leaving it out would rank each document after it one place higher than recorded, which would
    // raise Hit@k and MRR on a retrieval nobody can read whole.
    documents:
      documents === null || documents.some((item) => typeof item !== "object" || item === null || Array.isArray(item))
        ? null
        : documents.map((item) => {
            const document = item as Record<string, unknown>;
            return toObservedDocument({ id: document.id, score: document.score, text: document.content ?? document.text, metadata: document.metadata });
          }),
    ...unreadableField(unreadGenAiDocuments(attributes, GenAi.retrievalDocuments)),
  };
}

/**
 * Shared with the OpenLLMetry mapper, whose LLM spans carry the same (older) GenAI attributes.
 * @param droppedBySdk the span's attributes its SDK dropped (attributesDroppedBySdk), for a gap's note
 * @param order which attributes the span's SDK drops (sdkAttributeOrder), for what a drop could have cut
 * @param events the span's events: its `gen_ai.choice` events give the answer when no message attribute records it
 */
export function readGenAiGeneration(attributes: Attributes, droppedBySdk: number, order: SdkAttributeOrder, events: readonly SpanEventRecord[] = []): StageObservation {
  const inputTokens = readNumber(attributes, GenAi.usageInputTokens) ?? readNumber(attributes, GenAi.usagePromptTokens);
  const outputTokens = readNumber(attributes, GenAi.usageOutputTokens) ?? readNumber(attributes, GenAi.usageCompletionTokens);
  // The output messages are the span's attribute, else, where its content came as a log record joined to it, that
  // record's (the conventions' operation-details event), named by where they came from.
  const output = outputMessagesSource(attributes, events);
  const structured = lastMessage(readStructuredMessages(output.attributes, output.key), null);
  // The answer is the LAST flat completion, the one an SDK at its attribute count limit drops first (OpenLLMetry sets
  // completions after the prompts): on a span that lost attributes, a list with no gap may be cut, and is not read.
  const completionsCut = unreadCutList(attributes, [GenAi.completionPrefix], null, droppedBySdk, order, "the answer is not available (no earlier completion is taken in its place)", CUT_COMPLETIONS);
  const flatMessages = completionsCut.length > 0 ? null : readFlatMessages(attributes, GenAi.completionPrefix);
  const flat = lastMessage(flatMessages, null);
  // The choice events only where no message attribute records the output: they are another record of the same
  // choices, read by instrumentations that write no such attributes (read-choice-events.ts).
  const recordedAsAttributes = output.attributes[output.key] !== undefined || flatMessages !== null || completionsCut.length > 0;
  const choiceEvents = recordedAsAttributes ? null : answerFromChoiceEvents(events);
  return {
    stage: "generate",
    model: readString(attributes, GenAi.responseModel) ?? readString(attributes, GenAi.requestModel),
    inputTokens,
    outputTokens,
    totalTokens: readNumber(attributes, GenAi.usageTotalTokens) ?? (inputTokens !== null && outputTokens !== null ? inputTokens + outputTokens : null),
    cost: null,
    timeToFirstTokenMs: secondsToMilliseconds(readNumber(attributes, GenAi.responseTimeToFirstChunk)),
    // The answer is the last output message's text (any role: GenAI's output messages are the model's); the deprecated
    // flat completions are read when the JSON holds no text. An unreadable message at or after the one the answer
    // would be leaves it not available, flat completions or not: the message before it would be another answer, and
    // which flat completion would be the same message is not known. One before it changes nothing.
    answer: structured.unreadIndex !== null ? null : (structured.text ?? flat.text ?? choiceEvents?.text ?? null),
    abstained: null,
    ...unreadableField([
      ...unreadMessages(output.attributes, output.key, structured, "answer"),
      // The flat completions only when the answer is theirs to give: beside an answer from the JSON they are unused.
      ...(structured.text === null && structured.unreadIndex === null ? [...completionsCut, ...unreadFlatMessages(attributes, GenAi.completionPrefix, flat, "answer", droppedBySdk, order)] : []),
      // No completion at all on a span that lost attributes: the answer's absence has a likely cause, said.
      // Where events record the output (the operation-details record's messages, choice events), no completion
      // attribute was there to drop.
      ...(output.key !== GenAi.outputMessages || choiceEvents?.recorded === true ? [] : unreadDroppedCompletions(attributes, droppedBySdk, order)),
      ...(choiceEvents?.notes ?? []),
    ]),
  };
}

/**
 * Where a generation's output messages are: its `gen_ai.output.messages`, else the same attribute of its
 * operation-details event (content sent as a log record, joined to the span by the assembler), under the key
 * `<event name>: <attribute>` so that what cannot be read is named where it was.
 */
function outputMessagesSource(attributes: Attributes, events: readonly SpanEventRecord[]): { attributes: Attributes; key: string } {
  if (attributes[GenAi.outputMessages] !== undefined) return { attributes, key: GenAi.outputMessages };
  const details = events.findLast((event) => event.name === GenAi.operationDetailsEvent && event.attributes[GenAi.outputMessages] !== undefined);
  if (details === undefined) return { attributes, key: GenAi.outputMessages };
  const key = `${GenAi.operationDetailsEvent}: ${GenAi.outputMessages}`;
  return { attributes: { [key]: details.attributes[GenAi.outputMessages]! }, key };
}

function readRequest(attributes: Attributes): StageObservation {
  const linkage = readLinkage([attributes]);
  // Per field, the message it is taken from must be read, not the one before it (read-messages.ts lastMessage):
  // - the query is the last user message of the input: an unreadable item after the last user message read, whose
  //   role is "user" or not known, leaves it not available (taking the one before would evaluate another question);
  //   an assistant or system message that cannot be read is not the query, and changes nothing;
  // - the answer is the last output message, whatever its role: an unreadable one after it leaves it not available.
  // The context is not read from messages (GenAI has no attribute for the retrieved context in them), so no
  // message can change it.
  const query = lastMessage(readStructuredMessages(attributes, GenAi.inputMessages), "user");
  const answer = lastMessage(readStructuredMessages(attributes, GenAi.outputMessages), null);
  return {
    stage: "request",
    query: query.text,
    answer: answer.text,
    ...linkage,
    sessionId: linkage.sessionId ?? readString(attributes, GenAi.conversationId),
    ...unreadableField([
      ...unreadMessages(attributes, GenAi.inputMessages, query, "query"),
      ...unreadMessages(attributes, GenAi.outputMessages, answer, "answer"),
    ]),
  };
}

/** A duration the conventions write in seconds, in milliseconds; null stays null. */
function secondsToMilliseconds(seconds: number | null): number | null {
  return seconds === null ? null : seconds * 1000;
}
