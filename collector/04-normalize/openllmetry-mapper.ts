/**
 * Reads spans written by OpenLLMetry / Traceloop (shared/reference/interop.md §3):
 * - a span with `db.query.result` events (one per hit: id, score, distance,
 *   metadata JSON, document) → retrieve, the hits in event order. OpenLLMetry
 *   does not record the query text of a vector search: the query stays not
 *   available on this span. A hit's part that cannot be read is absent and
 *   named on the Case Result (unread-query-result-events.ts);
 * - a rerank call (`llm.request.type = rerank`, e.g. Cohere's: its documents
 *   as prompts, its ranking as completions "Doc 3, Score: 0.98", no ids) →
 *   rerank when it can be read whole (read-openllmetry-rerank.ts); a gap in
 *   its prompts or completions (unread-index-gaps.ts), or a list its SDK may
 *   have cut (unread-cut-list.ts), leaves the rerank with its output not
 *   available, named, so the final ranking is not known, never the retrieval's;
 *   otherwise (content not recorded, another format) no stage; the rebuild
 *   names its documents by the retrieval's texts. A `cohere.rerank` span that
 *   lost its request type to an SDK evicting the oldest attributes is that
 *   rerank too, its output not available (rerank-without-request-type.ts);
 * - an LLM span (`llm.request.type`, except `embedding`, which is no stage,
 *   and `rerank`) → generate, from the GenAI attributes
 *   OpenLLMetry writes (`gen_ai.usage.prompt_tokens`, `gen_ai.completion.0.content`…)
 *   and `llm.usage.total_tokens`; a completion that cannot be read, or a gap
 *   in them, leaves the answer not available, named (unread-messages.ts).
 *   An LLM span that lost its request type to an SDK evicting the oldest
 *   attributes is still read (llm-call-without-request-type.ts): the
 *   generation when its name or its completions say so, an embedding when its
 *   name does; otherwise no stage, and the request's token and cost sums are
 *   not available rather than sums that leave the call out;
 * - the `workflow` span without a parent → the request: query and answer from
 *   `traceloop.entity.input` / `.output` (the JS SDK's `{"args": […], "kwargs": {…}}`,
 *   Python LangChain's `{"inputs": …}` / `{"outputs": …}`: read-traceloop-entity.ts),
 *   run / case linkage from `ragscope.*` association properties;
 * - Python LangChain's retriever span (`gen_ai.operation.name = vector_db_retrieve`)
 *   → retrieve: the query from its input's `query`, the documents from its
 *   output's `documents` (`{page_content, metadata}`: the instrumentation
 *   leaves out `Document.id`, so a chunk id comes only from the metadata), an
 *   empty list a retrieval that found nothing (test/golden/traces/langchain-python-traceloop);
 *   an item that is no document (written with Python's `str()`) leaves them
 *   not available, and the Case Result says which (unread-retriever-documents.ts);
 * - a workflow or task span whose `traceloop.entity.output` is a list of
 *   LangChain documents or `[document, score]` pairs (bare, or as the step's
 *   value in the instrumentation's wrapping) → retrieve, the documents in that
 *   order, each read from its own entry only (read-documents.ts, which also
 *   reads Python's serialised `{"lc": 1, "type": "constructor", "kwargs": {…}}`
 *   documents); the query is the step's text input. Traceloop's JS LangChain
 *   instrumentation has no retriever callback, so a retriever shows up only this way.
 *   A list that holds documents beside an item that is none is not read (all
 *   or none), and the Case Result says which item (unread-entity-documents.ts);
 * - a span whose `traceloop.entity.input` is such a list and whose output is
 *   text → context assembly (the "format documents" step), the packed chunk
 *   ids read as the retriever's are, so the two join
 *   (test/golden/traces/openllmetry).
 */
import { GenAi, OpenLlmetry, OpenLlmetryOperation, OpenLlmetryRequestType, OpenLlmetrySpanKind } from "../../contracts/span-attributes.js";
import type { Attributes, SpanRecord } from "../00-otlp/span-record.js";
import { flattenedIndexes, readJson, readString } from "./attribute-readers.js";
import { readDocumentList, toObservedDocument } from "./read-documents.js";
import { readOpenLlmetryRerank } from "./read-openllmetry-rerank.js";
import { entityText, entityValue } from "./read-traceloop-entity.js";
import { unreadRetrieverDocuments } from "./unread-retriever-documents.js";
import { unreadEntityDocumentFields, unreadEntityDocumentList } from "./unread-entity-documents.js";
import { unreadableField } from "./explain-unread-value.js";
import { unreadIndexGaps } from "./unread-index-gaps.js";
import { unreadDroppedEvents } from "./unread-dropped-events.js";
import { attributesDroppedBySdk } from "./attributes-dropped-by-sdk.js";
import { unreadCutList, type CutListItems } from "./unread-cut-list.js";
import { sdkAttributeOrder, type SdkAttributeOrder } from "./sdk-attribute-order.js";
import { isRerankWithoutRequestType, rerankWithoutRequestType } from "./rerank-without-request-type.js";
import { isLlmCallWithoutRequestType, llmCallWithoutRequestType } from "./llm-call-without-request-type.js";
import { readOpenLlmetryGeneration } from "./read-openllmetry-generation.js";
import type { MalformedAttribute } from "./find-malformed-json.js";
import { queryResultFields, unreadQueryResultEvents } from "./unread-query-result-events.js";
import { associationProperties, readLinkage } from "./read-linkage.js";
import { contextOf, type SpanMapper } from "./span-mapper.js";
import type { StageObservation } from "./stage-observation.js";

const hasResultEvents = (span: SpanRecord) => span.events.some((event) => event.name === OpenLlmetry.queryResultEvent);

export const openLlmetryMapper: SpanMapper = {
  name: "openllmetry",
  canMap: (span) =>
    typeof span.attributes[OpenLlmetry.spanKind] === "string" ||
    typeof span.attributes[OpenLlmetry.llmRequestType] === "string" ||
    hasResultEvents(span) ||
    isRerankWithoutRequestType(span) ||
    isLlmCallWithoutRequestType(span),
  map(span, context) {
    const attributes = span.attributes;
    // A Cohere rerank whose SDK evicted its request type (set first) with its oldest attributes: still the rerank.
    if (isRerankWithoutRequestType(span)) return rerankWithoutRequestType(span);
    if (hasResultEvents(span)) return readVectorQuery(span);
    // Any other LLM call whose SDK evicted its request type: read as what is left shows, or its usage not counted.
    if (isLlmCallWithoutRequestType(span)) return llmCallWithoutRequestType(span);
    const requestType = attributes[OpenLlmetry.llmRequestType];
    // An embedding call is no generation: read as one, an index build became a "request" and a query's embedding added its tokens to the answer's.
    if (requestType === OpenLlmetryRequestType.embedding) return { stage: "other" };
    // Nor is a rerank call: read as one, its "Doc 3, Score: 0.98" completions stood as a second generation (its tokens
    // and time counted as the answer's). It is the rerank when it can be read whole; its documents carry no ids, so
    // the rebuild names them by the retrieval's texts (read-openllmetry-rerank.ts).
    // A gap in its prompts or completions (a span truncated at its attribute count limit) is named; the other reasons
    // it is not read whole (content tracing off, another format) are no unreadable value.
    // On a span whose SDK dropped attributes a list with no gap may have lost its last items (unread-cut-list.ts): the
    // query (the last prompt) or the ranking's tail.
    // A gap or a cut still leaves the rerank: the call ran, and its ranking is what the pipeline went on with. Read as
    // no rerank, the retrieval's ranking stood in as the final one, and ranking metrics were measured on a list the
    // pipeline did not produce. So it is the rerank with its output not available, the notes saying why, and the
    // rebuild gives no final ranking (as for a LlamaIndex rerank whose output was lost: read-llama-index-rerank.ts).
    if (requestType === OpenLlmetryRequestType.rerank) {
      const droppedBySdk = attributesDroppedBySdk(span);
      const cut = unreadRerankCut(attributes, droppedBySdk, sdkAttributeOrder(span));
      const rerank = cut.length > 0 ? null : readOpenLlmetryRerank(attributes);
      if (rerank !== null) return rerank;
      const lost = [
        ...unreadIndexGaps(attributes, [GenAi.promptPrefix], PROMPTS_NOT_READ, droppedBySdk),
        ...unreadIndexGaps(attributes, [GenAi.completionPrefix], RANKING_NOT_READ, droppedBySdk),
        ...cut,
      ];
      // Its documents are named by text, which needs the whole call; with part of it lost, none is taken, input included.
      if (lost.length > 0) return { stage: "rerank", query: null, input: null, output: null, ...unreadableField(lost) };
      return { stage: "other" };
    }
    if (typeof requestType === "string") return readOpenLlmetryGeneration(span);
    if (readString(attributes, OpenLlmetry.spanKind) === OpenLlmetrySpanKind.workflow && contextOf(span, context).outermost) return readWorkflow(attributes);
    if (readString(attributes, GenAi.operationName) === OpenLlmetryOperation.vectorDbRetrieve) return readRetriever(attributes);
    return readEntityDocuments(attributes);
  },
};

const PROMPTS_NOT_READ = "the rerank's documents and query are not read, so its ranking, the final one, is not known";
const RANKING_NOT_READ = "the rerank's ranking is not read, and it is the final one, so the final ranking is not known";

/** A rerank's prompts: its documents, then its query, the last one. */
const CUT_PROMPTS: CutListItems = {
  singular: "prompt",
  plural: "prompts",
  risk: "a document would be taken for the query, which is the last prompt, or the documents past the cut left out of the rerank's input",
};

/** A rerank's completions: its ranking, best first. */
const CUT_RANKING: CutListItems = {
  singular: "completion",
  plural: "completions",
  risk: "the ranking would end at the cut, a document ranked after it counted as not kept by the rerank",
};

/**
 * The notes of a rerank's prompt and completion lists its SDK may have cut. The instrumentation sets the prompts, then
 * the completions (span_utils.py). An SDK that keeps the first attributes set (the JS SDK) says, by a completion
 * carried, that every prompt was kept: only the completions can be cut, and without one, the prompts. Python's evicts
 * the oldest instead, prompts first, so a completion carried says nothing of the prompts: on a span whose SDK is not
 * the JS one, or does not say (sdk-attribute-order.ts), both lists are checked.
 */
function unreadRerankCut(attributes: Attributes, droppedBySdk: number, order: SdkAttributeOrder): MalformedAttribute[] {
  const completions = unreadCutList(attributes, [GenAi.completionPrefix], null, droppedBySdk, order, RANKING_NOT_READ, CUT_RANKING);
  if (order.keepsFirst && flattenedIndexes(attributes, GenAi.completionPrefix).length > 0) return completions;
  return [...unreadCutList(attributes, [GenAi.promptPrefix], null, droppedBySdk, order, PROMPTS_NOT_READ, CUT_PROMPTS), ...completions];
}

/**
 * One document a hit, in event order; a part that cannot be read is absent, and named (unread-query-result-events.ts).
 * Not available when the span's SDK dropped events: it drops the oldest, the best-ranked hits (unread-dropped-events.ts).
 */
function readVectorQuery(span: SpanRecord): StageObservation {
  const hits = span.events.filter((event) => event.name === OpenLlmetry.queryResultEvent);
  const dropped = unreadDroppedEvents(span, OpenLlmetry.queryResultEvent, hits.length, "the retrieval's documents are not available");
  if (dropped.length > 0) return { stage: "retrieve", query: null, documents: null, ...unreadableField(dropped) };
  return {
    stage: "retrieve",
    query: null,
    documents: hits.map((event) => toObservedDocument(queryResultFields(event))),
    ...unreadableField(unreadQueryResultEvents(hits)),
  };
}

function readWorkflow(attributes: Attributes): StageObservation {
  return {
    stage: "request",
    query: entityText(entityValue(readJson(attributes, OpenLlmetry.entityInput), "input"), ["question", "query", "input"]),
    answer: entityText(entityValue(readJson(attributes, OpenLlmetry.entityOutput), "output"), ["answer", "output", "text"]),
    ...readLinkage([attributes, associationProperties(attributes, OpenLlmetry.associationPropertiesPrefix)]),
  };
}

/**
 * Python LangChain's retriever callback span. Its documents are read as a
 * chain step's are (every item a document, or none is read); unlike a chain
 * step's, an empty list is read, as a retrieval that found nothing, since the
 * span says it is a retrieval. Without a readable list the retrieval is still
 * seen, its documents not available.
 */
function readRetriever(attributes: Attributes): StageObservation {
  const output = readJson(attributes, OpenLlmetry.entityOutput);
  const list = typeof output === "object" && output !== null && !Array.isArray(output) ? (output as { documents?: unknown }).documents : undefined;
  const records = Array.isArray(list) && list.length === 0 ? [] : readDocumentList(list);
  // Documents not available although the span returned something: the Case Result says which item and why.
  const unread = records === null ? unreadRetrieverDocuments(OpenLlmetry.entityOutput, output) : null;
  return {
    stage: "retrieve",
    query: entityText(readJson(attributes, OpenLlmetry.entityInput), ["query"]),
    documents: records === null ? null : records.map(toObservedDocument),
    ...unreadableField(unread === null ? unreadEntityDocumentFields(OpenLlmetry.entityOutput, records ?? []) : [unread]),
  };
}

/**
 * A step that returned documents (retrieve) or turned documents into text (context); see the module comment. Any
 * other step is no stage; when its list held documents beside an item that is none, it says so (unread-entity-documents.ts).
 * Its documents are one JSON attribute (`traceloop.entity.output` / `.input`), not a flattened list: an SDK at its
 * attribute count limit keeps or drops it whole, so a span that lost other attributes carries no cut list (unread-cut-list.ts).
 */
function readEntityDocuments(attributes: Attributes): StageObservation {
  const input = readJson(attributes, OpenLlmetry.entityInput);
  const output = readJson(attributes, OpenLlmetry.entityOutput);
  const returnedValue = entityValue(output, "output");
  const returned = readDocumentList(returnedValue);
  if (returned !== null) {
    return {
      stage: "retrieve",
      query: entityText(entityValue(input, "input"), ["question", "query", "input"]),
      documents: returned.map(toObservedDocument),
      ...unreadableField(unreadEntityDocumentFields(OpenLlmetry.entityOutput, returned)),
    };
  }
  const givenValue = entityValue(input, "input");
  const packed = readDocumentList(givenValue);
  if (typeof returnedValue === "string" && packed !== null) {
    return {
      stage: "context",
      chunkIds: packed.map((record) => toObservedDocument(record).chunkId),
      droppedChunks: null,
      truncatedChunkIds: null,
      text: returnedValue,
      tokenCount: null,
      tokenBudget: null,
      ...unreadableField(unreadEntityDocumentFields(OpenLlmetry.entityInput, packed)),
    };
  }
  const unreadReturned = unreadEntityDocumentList(OpenLlmetry.entityOutput, returnedValue, "output");
  const unreadGiven = typeof returnedValue === "string" ? unreadEntityDocumentList(OpenLlmetry.entityInput, givenValue, "input") : null;
  return { stage: "other", ...unreadableField([unreadReturned, unreadGiven].filter((note) => note !== null)) };
}
