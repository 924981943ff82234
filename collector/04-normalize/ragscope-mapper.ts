/**
 * Reads spans written by ragscope's own SDK: `ragscope.stage` names the stage,
 * OpenInference attributes carry documents, messages and token counts, and
 * `ragscope.*` the rest (contracts/span-attributes.ts).
 */
import { OpenInference, Ragscope, RagStage } from "../../contracts/span-attributes.js";
import type { Attributes, SpanRecord } from "../00-otlp/span-record.js";
import { readBoolean, readNumber, readString, readStringList } from "./attribute-readers.js";
import { unreadableField } from "./explain-unread-value.js";
import { readDocuments } from "./read-documents.js";
import { readChunkIdsLeavingOutEmpty, readPackedChunkIds } from "./read-chunk-id-lists.js";
import type { SpanMapper } from "./span-mapper.js";
import type { ObservedDocument, StageObservation } from "./stage-observation.js";
import type { MalformedAttribute } from "./find-malformed-json.js";
import { unreadIndexGaps } from "./unread-index-gaps.js";
import { unreadCutList } from "./unread-cut-list.js";
import { unrecordedDocuments } from "./unrecorded-documents.js";
import { attributesDroppedBySdk } from "./attributes-dropped-by-sdk.js";
import { sdkAttributeOrder } from "./sdk-attribute-order.js";

function readGeneration(span: SpanRecord): StageObservation {
  const attributes = span.attributes;
  const inputTokens = readNumber(attributes, OpenInference.llmTokenCountPrompt);
  const outputTokens = readNumber(attributes, OpenInference.llmTokenCountCompletion);
  return {
    stage: "generate",
    model: readString(attributes, OpenInference.llmModelName),
    inputTokens,
    outputTokens,
    totalTokens: readNumber(attributes, OpenInference.llmTokenCountTotal) ?? (inputTokens !== null && outputTokens !== null ? inputTokens + outputTokens : null),
    cost: readNumber(attributes, OpenInference.llmCostTotal),
    timeToFirstTokenMs: readNumber(attributes, Ragscope.timeToFirstTokenMs),
    answer: readString(attributes, Ragscope.answer) ?? readString(attributes, `${OpenInference.llmOutputMessagesPrefix}.0.${OpenInference.messageContent}`) ?? readString(attributes, OpenInference.outputValue),
    abstained: readBoolean(attributes, Ragscope.abstained),
  };
}

function readContext(span: SpanRecord): StageObservation {
  const attributes = span.attributes;
  // An empty packed id is a chunk without an id at its position; an empty dropped or truncated id is left out; each noted (read-chunk-id-lists.ts).
  const packed = readPackedChunkIds(attributes, Ragscope.contextChunkIds);
  const dropped = readChunkIdsLeavingOutEmpty(attributes, Ragscope.contextDroppedChunkIds, "dropped chunk ids");
  const truncated = readChunkIdsLeavingOutEmpty(attributes, Ragscope.contextTruncatedChunkIds, "truncated chunk ids");
  const droppedReasons = readStringList(attributes, Ragscope.contextDroppedReasons) ?? [];
  return {
    stage: "context",
    chunkIds: packed.chunkIds,
    // Each reason stays with its id: the reasons are aligned with the ids as sent, empty ones included.
    droppedChunks: dropped.chunkIds ? dropped.chunkIds.map((chunkId, index) => ({ chunkId, reason: droppedReasons[dropped.keptIndexes[index]!] ?? null })) : null,
    truncatedChunkIds: truncated.chunkIds,
    text: readString(attributes, Ragscope.contextText) ?? readString(attributes, OpenInference.outputValue),
    tokenCount: readNumber(attributes, Ragscope.contextTokenCount),
    tokenBudget: readNumber(attributes, Ragscope.contextTokenBudget),
    ...unreadableField([...packed.notes, ...dropped.notes, ...truncated.notes]),
  };
}

export const ragscopeMapper: SpanMapper = {
  name: "ragscope",
  canMap: (span) => typeof span.attributes[Ragscope.stage] === "string",
  map(span) {
    const attributes = span.attributes;
    const droppedBySdk = attributesDroppedBySdk(span);
    const stage = readString(attributes, Ragscope.stage);
    switch (stage) {
      case RagStage.request:
        return {
          stage: "request",
          query: readString(attributes, Ragscope.query) ?? readString(attributes, OpenInference.inputValue),
          answer: readString(attributes, Ragscope.answer) ?? readString(attributes, OpenInference.outputValue),
          runId: readString(attributes, Ragscope.runId),
          caseId: readString(attributes, Ragscope.caseId),
          caseVersion: readString(attributes, Ragscope.caseVersion),
          datasetId: readString(attributes, Ragscope.datasetId),
          datasetVersion: readString(attributes, Ragscope.datasetVersion),
          tenantId: readString(attributes, Ragscope.tenantId),
          principalId: readString(attributes, Ragscope.principalId) ?? readString(attributes, OpenInference.userId),
          principalGroups: readStringList(attributes, Ragscope.principalGroups),
          route: readString(attributes, Ragscope.route),
          sessionId: readString(attributes, OpenInference.sessionId),
          userId: readString(attributes, OpenInference.userId),
          experimentId: readString(attributes, Ragscope.experimentId),
          experimentVariant: readString(attributes, Ragscope.experimentVariant),
        };
      case RagStage.queryRewrite:
        return {
          stage: "query_rewrite",
          query: readString(attributes, Ragscope.query) ?? readString(attributes, OpenInference.inputValue),
          rewrittenQuery: readString(attributes, Ragscope.rewrittenQuery) ?? readString(attributes, OpenInference.outputValue),
        };
      case RagStage.retrieve: {
        const retrieved = readDocumentList(span, RETRIEVED, droppedBySdk);
        return { stage: "retrieve", query: readString(attributes, OpenInference.inputValue) ?? readString(attributes, Ragscope.query), documents: retrieved.documents, ...unreadableField(retrieved.notes) };
      }
      case RagStage.rerank: {
        const input = readDocumentList(span, RERANK_INPUT, droppedBySdk);
        const output = readDocumentList(span, RERANK_OUTPUT, droppedBySdk);
        return {
          stage: "rerank",
          query: readString(attributes, OpenInference.rerankerQuery),
          input: input.documents,
          output: output.documents,
          ...unreadableField([...input.notes, ...output.notes]),
        };
      }
      case RagStage.context:
        return readContext(span);
      case RagStage.generate:
        return readGeneration(span);
      case RagStage.cite: {
        const cited = readChunkIdsLeavingOutEmpty(attributes, Ragscope.citationChunkIds, "cited chunk ids");
        return { stage: "cite", chunkIds: cited.chunkIds, ...unreadableField(cited.notes) };
      }
      case RagStage.feedback: {
        // An empty chunk id names no chunk: the clicked chunk is not known (null), as in every list of chunk ids.
        const chunkId = readString(attributes, Ragscope.feedbackChunkId);
        const emptyChunkId = chunkId === "" ? [{ attribute: Ragscope.feedbackChunkId, error: 'an empty chunk id (""), which names no chunk: the chunk the feedback is about is not known (chunk_id null)' }] : [];
        return {
          stage: "feedback",
          kind: readString(attributes, Ragscope.feedbackKind),
          value: readString(attributes, Ragscope.feedbackValue),
          comment: readString(attributes, Ragscope.feedbackComment),
          chunkId: chunkId === "" ? null : chunkId,
          ...unreadableField(emptyChunkId),
        };
      }
      default:
        return { stage: "other" };
    }
  },
};

/** One of ragscope's document lists on a span: its two prefixes, its count, its count of elements not recorded. */
interface DocumentList {
  openInference: string;
  ragscope: string;
  count: string;
  unrecorded: string;
  /** What is not available when the list is not read, for its notes. */
  consequence: string;
}

const RETRIEVED: DocumentList = {
  openInference: OpenInference.retrievalDocumentsPrefix,
  ragscope: Ragscope.documentsPrefix,
  count: Ragscope.retrievalDocumentCount,
  unrecorded: Ragscope.retrievalUnrecordedDocumentCount,
  consequence: "the retrieval's documents are not available",
};
const RERANK_INPUT: DocumentList = {
  openInference: OpenInference.rerankerInputDocumentsPrefix,
  ragscope: Ragscope.rerankInputDocumentsPrefix,
  count: Ragscope.rerankInputDocumentCount,
  unrecorded: Ragscope.rerankInputUnrecordedDocumentCount,
  consequence: "the rerank's input documents are not available",
};
const RERANK_OUTPUT: DocumentList = {
  openInference: OpenInference.rerankerOutputDocumentsPrefix,
  ragscope: Ragscope.rerankOutputDocumentsPrefix,
  count: Ragscope.rerankOutputDocumentCount,
  unrecorded: Ragscope.rerankOutputUnrecordedDocumentCount,
  consequence: "the rerank's output documents are not available",
};

/**
 * One document list as read, and the notes on what was not. Not read (null): a list whose SDK could not record some
 * elements (unrecorded-documents.ts; its own note says why, in place of the gap's or the cut's), one its SDK may have
 * cut at the end (unread-cut-list.ts), one with an index missing (readDocuments, unread-index-gaps.ts). A count of 0
 * with no documents is an empty list.
 */
function readDocumentList(span: SpanRecord, list: DocumentList, droppedBySdk: number): { documents: ObservedDocument[] | null; notes: MalformedAttribute[] } {
  const attributes = span.attributes;
  const unrecorded = unrecordedDocuments(attributes, list.openInference, list.unrecorded, list.count, list.consequence);
  if (unrecorded.length > 0) return { documents: null, notes: unrecorded };
  const prefixes = [list.openInference, list.ragscope];
  const cut = unreadCutList(attributes, prefixes, list.count, droppedBySdk, sdkAttributeOrder(span), list.consequence);
  return {
    documents: cut.length > 0 ? null : (readDocuments(attributes, list.openInference, list.ragscope) ?? noneWhenCounted(attributes, list.count)),
    notes: [...unreadIndexGaps(attributes, prefixes, list.consequence, droppedBySdk), ...cut],
  };
}

/**
 * A list of no chunks has no flattened attributes: the SDK records the list's length beside it, and a count of 0
 * is an empty list (the retriever returned nothing), not a list that was not recorded (null).
 */
function noneWhenCounted(attributes: Attributes, countKey: string): [] | null {
  return readNumber(attributes, countKey) === 0 ? [] : null;
}
