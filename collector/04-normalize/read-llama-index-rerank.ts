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
 * (unread-cut-list.ts); a dropped output leaves no rerank to read.
 */
import { OpenInference } from "../../contracts/span-attributes.js";
import type { SpanRecord } from "../00-otlp/span-record.js";
import { readJson } from "./attribute-readers.js";
import { toObservedDocument } from "./read-documents.js";
import type { ObservedDocument, RerankObservation } from "./stage-observation.js";

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
  if (attributes[OpenInference.outputMimeType] !== "application/json") return null;
  const output = readNodes(readJson(attributes, OpenInference.outputValue));
  if (output === null) return null;
  const input = attributes[OpenInference.inputMimeType] === "application/json" ? (readJson(attributes, OpenInference.inputValue) as { nodes?: unknown; query_bundle?: { query_str?: unknown } } | null) : null;
  const query = input?.query_bundle?.query_str;
  return { stage: "rerank", query: typeof query === "string" ? query : null, input: readNodes(input?.nodes), output };
}
