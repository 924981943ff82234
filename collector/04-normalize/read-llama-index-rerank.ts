/**
 * LlamaIndex rerankers that OpenInference writes as a CHAIN span, not a
 * RERANKER one. OpenInference's LlamaIndex instrumentation marks a span
 * RERANKER only when the postprocessor sends LlamaIndex a rerank event;
 * `StructuredLLMRerank` does, `LLMRerank`, `SentenceTransformerRerank` and
 * `RankGPTRerank` do not (llama-index-core 0.14.25; recorded in
 * test/data/llama-index-llm-rerank/). Their one span is
 * `<Class>._postprocess_nodes`, kind CHAIN, its JSON input
 * `{"nodes": [...], "query_bundle": {"query_str": ...}}` and its JSON output
 * the nodes kept, in order, each node written by the instrumentation's own
 * encoder as `<NodeWithScore(node=TextNode(id_=ID), score=SCORE)>`. Read as a
 * rerank it gives the final ranking the pipeline used; unread, the
 * retriever's ranking stood in for it and the rerank was not seen at all.
 *
 * Only a postprocessor whose class name says it reranks (`Rerank` in it) is
 * read: a filter (`SimilarityPostprocessor`) also cuts the list, but it is no
 * rerank and has no rerank uplift. Ids and scores come from the node
 * encodings; text and metadata are completed from the retrieval by chunk id
 * (collector/06-rebuild/rebuild-case-result.ts). An output that is not a list
 * of such encodings is not read as a rerank.
 *
 * Its nodes are no flattened list: each direction is ONE JSON attribute
 * (`input.value`, `output.value`), which an SDK at its attribute count limit
 * keeps or drops whole, so a span that lost other attributes is read as it is
 * (unread-cut-list.ts).
 *
 * A dropped output still leaves a rerank: the span's name says the
 * postprocessor ran, and its output was the ranking the pipeline went on
 * with. Read as no rerank, the retriever's ranking stood in as the final one,
 * and ranking metrics were measured on a list the pipeline did not produce.
 * So a span whose SDK dropped attributes and that carries no `output.value`
 * is the rerank with its output not available (null), named on the Case
 * Result; the rebuild then gives no final ranking. Python's SDK, which
 * OpenInference's LlamaIndex instrumentation runs on, evicts the OLDEST
 * attribute past its limit, and this span's kind is set after its output, so
 * the span kind and name are what such a span still carries (its input,
 * set first, is gone before its output). Without a drop, a span with no
 * output (the postprocessor raised) is not read as a rerank.
 */
import { OpenInference } from "../../contracts/span-attributes.js";
import type { SpanRecord } from "../00-otlp/span-record.js";
import { readJson } from "./attribute-readers.js";
import { attributesDroppedBySdk } from "./attributes-dropped-by-sdk.js";
import type { MalformedAttribute } from "./find-malformed-json.js";
import { toObservedDocument } from "./read-documents.js";
import type { ObservedDocument, RerankObservation } from "./stage-observation.js";
import { sdkLimitFact } from "./unread-index-gaps.js";

const RERANK_POSTPROCESSOR_SPAN = /^[A-Za-z_]\w*Rerank\w*\._postprocess_nodes$/i;

/** `<NodeWithScore(node=TextNode(id_=ID), score=SCORE)>`: the id is everything up to the last `), score=`. */
const NODE_WITH_SCORE = /^<NodeWithScore\(node=[A-Za-z_][\w.]*\(id_=([\s\S]+)\), score=([^()]*)\)>$/;

function readNode(value: unknown): ObservedDocument | null {
  if (typeof value !== "string") return null;
  const match = NODE_WITH_SCORE.exec(value);
  if (match === null) return null;
  // Python writes a node without a score as `None`; `nan` and `inf` are no score either (toObservedDocument).
  return toObservedDocument({ id: match[1], score: match[2] === "None" ? undefined : match[2] });
}

function readNodes(value: unknown): ObservedDocument[] | null {
  if (!Array.isArray(value)) return null;
  const nodes = value.map(readNode);
  return nodes.every((node): node is ObservedDocument => node !== null) ? nodes : null;
}

/** The rerank a LlamaIndex reranker's CHAIN span records, or null when the span is none (see the module comment). */
export function readLlamaIndexRerank(span: SpanRecord): RerankObservation | null {
  if (!RERANK_POSTPROCESSOR_SPAN.test(span.name)) return null;
  const attributes = span.attributes;
  const input = attributes[OpenInference.inputMimeType] === "application/json" ? (readJson(attributes, OpenInference.inputValue) as { nodes?: unknown; query_bundle?: { query_str?: unknown } } | null) : null;
  const queryText = input?.query_bundle?.query_str;
  const query = typeof queryText === "string" ? queryText : null;
  const droppedBySdk = attributesDroppedBySdk(span);
  if (attributes[OpenInference.outputValue] === undefined && droppedBySdk > 0) {
    return { stage: "rerank", query, input: readNodes(input?.nodes), output: null, unreadable: [outputDropped(span.name, droppedBySdk)] };
  }
  if (attributes[OpenInference.outputMimeType] !== "application/json") return null;
  const output = readNodes(readJson(attributes, OpenInference.outputValue));
  if (output === null) return null;
  return { stage: "rerank", query, input: readNodes(input?.nodes), output };
}

/** The note of a rerank span whose output its SDK dropped: what is missing, what it costs, and why. */
function outputDropped(spanName: string, droppedBySdk: number): MalformedAttribute {
  const postprocessor = spanName.slice(0, spanName.indexOf("."));
  return {
    attribute: OpenInference.outputValue,
    error:
      `is absent, and the span's SDK dropped attributes: the rerank's output (the nodes ${postprocessor} kept, in order) is not carried; ` +
      `the span is still the rerank (its name, ${spanName}, says the postprocessor ran), so the final ranking the pipeline went on with is not known: ` +
      `retrieved_chunks is not available, and the retrieval's ranking, which the rerank reordered and cut, is not taken in its place. ${sdkLimitFact(droppedBySdk)}`,
  };
}
