/**
 * Reads spans written to the OpenInference conventions only (Arize's
 * instrumentations: LangChain, LlamaIndex, OpenAI…), from
 * `openinference.span.kind` (shared/reference/interop.md §1):
 * - RETRIEVER → retrieve, its documents from `retrieval.documents.N.*` and
 *   from the LangChain documents in its JSON output (ids the attributes lack;
 *   read-documents.ts gives the precedence); RERANKER → rerank; LLM → generate;
 *   a document part that cannot be read (an id that is no id, a score that is
 *   no number, an output item that is no Document) is read as absent and named
 *   on the Case Result (unread-openinference-documents.ts); a list with an
 *   index missing below its highest is not available (no document moves up a
 *   rank), and named (unread-index-gaps.ts);
 * - a CHAIN (or AGENT) without a parent → the request; its run / case linkage
 *   comes from `ragscope.*` keys in the `metadata` JSON (read-linkage.ts);
 * - a CHAIN whose JSON input is a list of LangChain documents and whose output
 *   is text → context assembly (the "format documents" step of a RAG chain),
 *   the packed chunks in input order, their ids read as the retriever's are
 *   (test/golden/traces/langchain-openinference);
 * - a CHAIN whose JSON input holds `text_chunks`, a list of texts, and whose
 *   output is text → context assembly: LlamaIndex's response synthesizers
 *   (`get_response(query_str, text_chunks)`), the text of the retrieved nodes
 *   as the LLM is given them. The chunks carry no ids, so the packed chunks
 *   are not known (null), only the context text
 *   (test/golden/traces/llama-index-openinference);
 * - a CHAIN `<Class>Rerank…._postprocess_nodes` → rerank: LlamaIndex rerankers
 *   that send no rerank event (LLMRerank) get no RERANKER span, only this one,
 *   its nodes written as `<NodeWithScore(…)>` (read-llama-index-rerank.ts;
 *   test/data/llama-index-llm-rerank);
 * - other CHAINs carry no RAG stage.
 * `input.value` / `output.value` may be JSON (`input.mime_type:
 * application/json`, e.g. `{"question": "…"}`); the query and answer are then
 * the first text field of a known name.
 */
import { OpenInference, OpenInferenceSpanKind } from "../../contracts/span-attributes.js";
import type { Attributes, SpanRecord } from "../00-otlp/span-record.js";
import { flattenedIndexes, indexGaps, readJson, readJsonObject, readNumber, readString } from "./attribute-readers.js";
import { unreadableField } from "./explain-unread-value.js";
import { asLangChainDocuments, langChainDocumentFields, readDocuments, readOutputDocuments, toObservedDocument } from "./read-documents.js";
import { readLinkage } from "./read-linkage.js";
import { readLlamaIndexRerank } from "./read-llama-index-rerank.js";
import { sdkAttributeOrder, type SdkAttributeOrder } from "./sdk-attribute-order.js";
import { contextOf, type SpanMapper } from "./span-mapper.js";
import type { StageObservation } from "./stage-observation.js";
import { unreadAttributeDocuments, unreadOutputDocuments } from "./unread-openinference-documents.js";
import { unreadCutList } from "./unread-cut-list.js";
import { attributesDroppedBySdk } from "./attributes-dropped-by-sdk.js";

const QUERY_FIELDS = ["question", "query", "input", "text"] as const;
const ANSWER_FIELDS = ["answer", "output", "text", "result"] as const;

export const openInferenceMapper: SpanMapper = {
  name: "openinference",
  canMap: (span: SpanRecord) => typeof span.attributes[OpenInference.spanKind] === "string",
  map(span, context) {
    const attributes = span.attributes;
    const kind = readString(attributes, OpenInference.spanKind)?.toUpperCase();
    switch (kind) {
      case OpenInferenceSpanKind.retriever:
        return readRetriever(attributes, attributesDroppedBySdk(span), sdkAttributeOrder(span));
      case OpenInferenceSpanKind.reranker: {
        // OpenInference records no list's length: a list its SDK may have cut at the end is not read (unread-cut-list.ts).
        const droppedBySdk = attributesDroppedBySdk(span);
        const inputCut = unreadCutList(attributes, [OpenInference.rerankerInputDocumentsPrefix], null, droppedBySdk, sdkAttributeOrder(span), "the rerank's input documents are not available");
        const outputCut = unreadCutList(attributes, [OpenInference.rerankerOutputDocumentsPrefix], null, droppedBySdk, sdkAttributeOrder(span), "the rerank's output documents are not available");
        const input = inputCut.length > 0 ? null : readDocuments(attributes, OpenInference.rerankerInputDocumentsPrefix, null);
        const output = outputCut.length > 0 ? null : readDocuments(attributes, OpenInference.rerankerOutputDocumentsPrefix, null);
        return {
          stage: "rerank",
          query: readString(attributes, OpenInference.rerankerQuery),
          input,
          output,
          ...unreadableField([
            ...inputCut,
            ...unreadAttributeDocuments(attributes, OpenInference.rerankerInputDocumentsPrefix, input, droppedBySdk),
            ...outputCut,
            ...unreadAttributeDocuments(attributes, OpenInference.rerankerOutputDocumentsPrefix, output, droppedBySdk),
          ]),
        };
      }
      case OpenInferenceSpanKind.llm:
        return readGeneration(attributes);
      case OpenInferenceSpanKind.chain:
      case OpenInferenceSpanKind.agent:
        if (contextOf(span, context).outermost) return readRequest(attributes);
        return readLlamaIndexRerank(span) ?? readContextAssembly(attributes) ?? { stage: "other" };
      default:
        return { stage: "other" };
    }
  },
};

/** A retriever's documents, and what of them could not be read (unread-openinference-documents.ts). */
function readRetriever(attributes: Attributes, droppedBySdk: number, order: SdkAttributeOrder): StageObservation {
  // Cut at the end by its SDK, the attributes' list is not read, whatever the output holds (as with a gap, below).
  const cut = unreadCutList(attributes, [OpenInference.retrievalDocumentsPrefix], null, droppedBySdk, order, "the retrieval's documents are not available");
  const documents = cut.length > 0 ? null : readDocuments(attributes, OpenInference.retrievalDocumentsPrefix, null, readOutputDocuments(attributes));
  const attributeIndexes = flattenedIndexes(attributes, OpenInference.retrievalDocumentsPrefix);
  // With a gap in the attributes the documents are not available whatever the output holds (readDocuments): the
  // gap's note says why, and the output's items, not used, cost nothing to name.
  const gap = indexGaps(attributeIndexes).missing > 0;
  return {
    stage: "retrieve",
    query: readText(attributes, OpenInference.inputValue, QUERY_FIELDS),
    documents,
    ...unreadableField([
      ...cut,
      ...unreadAttributeDocuments(attributes, OpenInference.retrievalDocumentsPrefix, documents, droppedBySdk),
      ...(gap || cut.length > 0 ? [] : unreadOutputDocuments(attributes, documents, attributeIndexes.length > 0)),
    ]),
  };
}

function readGeneration(attributes: Attributes): StageObservation {
  const inputTokens = readNumber(attributes, OpenInference.llmTokenCountPrompt);
  const outputTokens = readNumber(attributes, OpenInference.llmTokenCountCompletion);
  const invocation = readJsonObject(attributes, OpenInference.llmInvocationParameters);
  const invokedModel = [invocation?.model, invocation?.model_name].find((value): value is string => typeof value === "string" && value !== "");
  return {
    stage: "generate",
    model: readString(attributes, OpenInference.llmModelName) ?? invokedModel ?? null,
    inputTokens,
    outputTokens,
    totalTokens: readNumber(attributes, OpenInference.llmTokenCountTotal) ?? (inputTokens !== null && outputTokens !== null ? inputTokens + outputTokens : null),
    cost: readNumber(attributes, OpenInference.llmCostTotal),
    timeToFirstTokenMs: null,
    answer: readString(attributes, `${OpenInference.llmOutputMessagesPrefix}.0.${OpenInference.messageContent}`) ?? readText(attributes, OpenInference.outputValue, ANSWER_FIELDS),
    abstained: null,
  };
}

function readRequest(attributes: Attributes): StageObservation {
  return {
    stage: "request",
    query: readText(attributes, OpenInference.inputValue, QUERY_FIELDS),
    answer: readText(attributes, OpenInference.outputValue, ANSWER_FIELDS),
    ...readLinkage([attributes, readJsonObject(attributes, OpenInference.metadata)]),
  };
}

/**
 * A chain that turns a list of documents into text; see the module comment. Its documents are one JSON attribute
 * (`input.value`), kept or dropped whole by an SDK's attribute count limit: no cut list (unread-cut-list.ts).
 */
function readContextAssembly(attributes: Attributes): StageObservation | null {
  if (readString(attributes, OpenInference.inputMimeType) !== "application/json") return null;
  const input = readJson(attributes, OpenInference.inputValue);
  const textChunks = (input as { text_chunks?: unknown } | null)?.text_chunks;
  if (Array.isArray(textChunks)) return readTextChunks(attributes, textChunks);
  const items = Array.isArray(input) ? input : Array.isArray((input as { input?: unknown } | null)?.input) ? (input as { input: unknown[] }).input : null;
  const list = items === null ? null : asLangChainDocuments(items);
  if (list === null) return null;
  const text = readText(attributes, OpenInference.outputValue, ANSWER_FIELDS);
  return {
    stage: "context",
    chunkIds: list.map((document) => toObservedDocument(langChainDocumentFields(document)).chunkId),
    droppedChunks: null,
    truncatedChunkIds: null,
    text,
    tokenCount: null,
    tokenBudget: null,
  };
}

/**
 * LlamaIndex's synthesizer input: its text chunks joined as LlamaIndex packs
 * them into the prompt's context (PromptHelper.repack: each chunk stripped,
 * blank ones left out, "\n\n" between them), so the context text is what the
 * LLM read. An empty list, or one
 * with anything but text, is not read as a context.
 */
function readTextChunks(attributes: Attributes, textChunks: unknown[]): StageObservation | null {
  if (textChunks.length === 0 || !textChunks.every((chunk): chunk is string => typeof chunk === "string")) return null;
  if (readText(attributes, OpenInference.outputValue, ANSWER_FIELDS) === null) return null;
  return {
    stage: "context",
    chunkIds: null,
    droppedChunks: null,
    truncatedChunkIds: null,
    text: textChunks.map((chunk) => chunk.trim()).filter((chunk) => chunk !== "").join("\n\n"),
    tokenCount: null,
    tokenBudget: null,
  };
}

/** The attribute as text; a JSON object yields its first text field among `fields`. */
function readText(attributes: Attributes, key: string, fields: readonly string[]): string | null {
  const value = readString(attributes, key);
  if (value === null) return null;
  const mimeType = readString(attributes, key === OpenInference.inputValue ? OpenInference.inputMimeType : OpenInference.outputMimeType);
  if (mimeType !== "application/json") return value;
  const parsed = readJsonObject(attributes, key);
  if (parsed === null) return typeof readJson(attributes, key) === "string" ? (readJson(attributes, key) as string) : null;
  for (const field of fields) if (typeof parsed[field] === "string") return parsed[field];
  return null;
}
