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
import type { SpanMapper } from "./span-mapper.js";
import type { StageObservation } from "./stage-observation.js";
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
  const droppedIds = readStringList(attributes, Ragscope.contextDroppedChunkIds);
  const droppedReasons = readStringList(attributes, Ragscope.contextDroppedReasons) ?? [];
  return {
    stage: "context",
    chunkIds: readStringList(attributes, Ragscope.contextChunkIds),
    droppedChunks: droppedIds ? droppedIds.map((chunkId, index) => ({ chunkId, reason: droppedReasons[index] ?? null })) : null,
    truncatedChunkIds: readStringList(attributes, Ragscope.contextTruncatedChunkIds),
    text: readString(attributes, Ragscope.contextText) ?? readString(attributes, OpenInference.outputValue),
    tokenCount: readNumber(attributes, Ragscope.contextTokenCount),
    tokenBudget: readNumber(attributes, Ragscope.contextTokenBudget),
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
        // A list its SDK may have cut at the end is not read (unread-cut-list.ts); one with a gap is not either (readDocuments).
        const prefixes = [OpenInference.retrievalDocumentsPrefix, Ragscope.documentsPrefix];
        const consequence = "the retrieval's documents are not available";
        const unrecorded = unrecordedDocuments(attributes, OpenInference.retrievalDocumentsPrefix, Ragscope.retrievalUnrecordedDocumentCount, Ragscope.retrievalDocumentCount, consequence);
        if (unrecorded.length > 0) return { stage: "retrieve", query: retrievalQuery(attributes), documents: null, ...unreadableField(unrecorded) };
        const cut = unreadCutList(attributes, prefixes, Ragscope.retrievalDocumentCount, droppedBySdk, sdkAttributeOrder(span), consequence);
        return {
          stage: "retrieve",
          query: retrievalQuery(attributes),
          documents: cut.length > 0 ? null : (readDocuments(attributes, OpenInference.retrievalDocumentsPrefix, Ragscope.documentsPrefix) ?? noneWhenCounted(attributes, Ragscope.retrievalDocumentCount)),
          ...unreadableField([...unreadIndexGaps(attributes, prefixes, consequence, droppedBySdk), ...cut]),
        };
      }
      case RagStage.rerank: {
        const inputPrefixes = [OpenInference.rerankerInputDocumentsPrefix, Ragscope.rerankInputDocumentsPrefix];
        const outputPrefixes = [OpenInference.rerankerOutputDocumentsPrefix, Ragscope.rerankOutputDocumentsPrefix];
        const inputConsequence = "the rerank's input documents are not available";
        const outputConsequence = "the rerank's output documents are not available";
        const inputUnrecorded = unrecordedDocuments(attributes, OpenInference.rerankerInputDocumentsPrefix, Ragscope.rerankInputUnrecordedDocumentCount, Ragscope.rerankInputDocumentCount, inputConsequence);
        const outputUnrecorded = unrecordedDocuments(attributes, OpenInference.rerankerOutputDocumentsPrefix, Ragscope.rerankOutputUnrecordedDocumentCount, Ragscope.rerankOutputDocumentCount, outputConsequence);
        const inputCut = unreadCutList(attributes, inputPrefixes, Ragscope.rerankInputDocumentCount, droppedBySdk, sdkAttributeOrder(span), inputConsequence);
        const outputCut = unreadCutList(attributes, outputPrefixes, Ragscope.rerankOutputDocumentCount, droppedBySdk, sdkAttributeOrder(span), outputConsequence);
        // A list with unrecorded elements is not read, and its own note says why, in place of the gap's or the cut's.
        const inputNotes = inputUnrecorded.length > 0 ? inputUnrecorded : [...unreadIndexGaps(attributes, inputPrefixes, inputConsequence, droppedBySdk), ...inputCut];
        const outputNotes = outputUnrecorded.length > 0 ? outputUnrecorded : [...unreadIndexGaps(attributes, outputPrefixes, outputConsequence, droppedBySdk), ...outputCut];
        return {
          stage: "rerank",
          query: readString(attributes, OpenInference.rerankerQuery),
          input: inputUnrecorded.length > 0 || inputCut.length > 0 ? null : (readDocuments(attributes, OpenInference.rerankerInputDocumentsPrefix, Ragscope.rerankInputDocumentsPrefix) ?? noneWhenCounted(attributes, Ragscope.rerankInputDocumentCount)),
          output: outputUnrecorded.length > 0 || outputCut.length > 0 ? null : (readDocuments(attributes, OpenInference.rerankerOutputDocumentsPrefix, Ragscope.rerankOutputDocumentsPrefix) ?? noneWhenCounted(attributes, Ragscope.rerankOutputDocumentCount)),
          ...unreadableField([...inputNotes, ...outputNotes]),
        };
      }
      case RagStage.context:
        return readContext(span);
      case RagStage.generate:
        return readGeneration(span);
      case RagStage.cite:
        return { stage: "cite", chunkIds: readStringList(attributes, Ragscope.citationChunkIds) };
      case RagStage.feedback:
        return {
          stage: "feedback",
          kind: readString(attributes, Ragscope.feedbackKind),
          value: readString(attributes, Ragscope.feedbackValue),
          comment: readString(attributes, Ragscope.feedbackComment),
          chunkId: readString(attributes, Ragscope.feedbackChunkId),
        };
      default:
        return { stage: "other" };
    }
  },
};

/** The query a retrieval ran with: OpenInference's input, else ragscope's own. */
function retrievalQuery(attributes: Attributes): string | null {
  return readString(attributes, OpenInference.inputValue) ?? readString(attributes, Ragscope.query);
}

/**
 * A list of no chunks has no flattened attributes: the SDK records the list's length beside it, and a count of 0
 * is an empty list (the retriever returned nothing), not a list that was not recorded (null).
 */
function noneWhenCounted(attributes: Attributes, countKey: string): [] | null {
  return readNumber(attributes, countKey) === 0 ? [] : null;
}
