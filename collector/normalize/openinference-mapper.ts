/**
 * Reads spans written to the OpenInference conventions only (Arize's
 * instrumentations: LangChain, LlamaIndex, OpenAI…), from
 * `openinference.span.kind` (shared/reference/interop.md §1). A CHAIN span
 * without a parent is the request; other CHAIN spans carry no RAG stage.
 */
import { OpenInference, OpenInferenceSpanKind } from "../../contracts/span-attributes.js";
import type { SpanRecord } from "../otlp/span-record.js";
import { readNumber, readString } from "./attribute-readers.js";
import { readDocuments } from "./read-documents.js";
import type { SpanMapper } from "./span-mapper.js";

export const openInferenceMapper: SpanMapper = {
  name: "openinference",
  canMap: (span: SpanRecord) => typeof span.attributes[OpenInference.spanKind] === "string",
  map(span) {
    const attributes = span.attributes;
    const kind = readString(attributes, OpenInference.spanKind)?.toUpperCase();
    switch (kind) {
      case OpenInferenceSpanKind.retriever:
        return {
          stage: "retrieve",
          query: readString(attributes, OpenInference.inputValue),
          documents: readDocuments(attributes, OpenInference.retrievalDocumentsPrefix, null),
        };
      case OpenInferenceSpanKind.reranker:
        return {
          stage: "rerank",
          query: readString(attributes, OpenInference.rerankerQuery),
          input: readDocuments(attributes, OpenInference.rerankerInputDocumentsPrefix, null),
          output: readDocuments(attributes, OpenInference.rerankerOutputDocumentsPrefix, null),
        };
      case OpenInferenceSpanKind.llm: {
        const inputTokens = readNumber(attributes, OpenInference.llmTokenCountPrompt);
        const outputTokens = readNumber(attributes, OpenInference.llmTokenCountCompletion);
        return {
          stage: "generate",
          model: readString(attributes, OpenInference.llmModelName),
          inputTokens,
          outputTokens,
          totalTokens: readNumber(attributes, OpenInference.llmTokenCountTotal) ?? (inputTokens !== null && outputTokens !== null ? inputTokens + outputTokens : null),
          cost: readNumber(attributes, OpenInference.llmCostTotal),
          timeToFirstTokenMs: null,
          answer: readString(attributes, `${OpenInference.llmOutputMessagesPrefix}.0.${OpenInference.messageContent}`) ?? readString(attributes, OpenInference.outputValue),
          abstained: null,
        };
      }
      case OpenInferenceSpanKind.chain:
      case OpenInferenceSpanKind.agent:
        if (span.parentSpanId !== "") return { stage: "other" };
        return {
          stage: "request",
          query: readString(attributes, OpenInference.inputValue),
          answer: readString(attributes, OpenInference.outputValue),
          runId: null,
          caseId: null,
          caseVersion: null,
          datasetId: null,
          datasetVersion: null,
          tenantId: null,
          principalId: readString(attributes, OpenInference.userId),
          principalGroups: null,
          route: null,
          sessionId: readString(attributes, OpenInference.sessionId),
        };
      default:
        return { stage: "other" };
    }
  },
};
