/**
 * OpenLLMetry's Cohere rerank span (`cohere.rerank`, Python `opentelemetry-instrumentation-cohere`) that lost its
 * `llm.request.type` to an SDK that evicts the OLDEST attribute past its count limit (Python's: sdk-attribute-order.ts).
 *
 * The instrumentation passes `gen_ai.system` and `llm.request.type` when it starts the span, before any prompt or
 * completion, so an SDK evicting the oldest drops them first: a rerank span that lost anything at all lost its request
 * type. Not recognised as OpenLLMetry's, it was no stage, and the retrieval's ranking stood in as the final one — a
 * ranking the pipeline did not go on with, read as whole. Its name still says the rerank ran, so such a span is the
 * rerank with its output not available, named; the rebuild then gives no final ranking
 * (collector/06-rebuild/rebuild-case-result.ts), as for a LlamaIndex rerank whose output was lost.
 *
 * Only when the span dropped attributes and its SDK is not known to keep the attributes set first (the JS SDK keeps
 * the request type, set first): a span of that name that simply carries no request type, having lost nothing, is not
 * taken for a rerank on its name alone.
 */
import { OpenLlmetry } from "../../contracts/span-attributes.js";
import type { SpanRecord } from "../00-otlp/span-record.js";
import { attributesDroppedBySdk } from "./attributes-dropped-by-sdk.js";
import type { RerankObservation } from "./stage-observation.js";
import { evictedFirstPhrase, mayHaveEvictedFirstAttributes } from "./sdk-attribute-order.js";
import { sdkLimitFact } from "./unread-index-gaps.js";

/** The span name the Cohere instrumentation gives its rerank call (`cohere.rerank`). */
const COHERE_RERANK_SPAN = "cohere.rerank";

/** Whether the span is a Cohere rerank whose request type its SDK evicted (see the module comment). */
export function isRerankWithoutRequestType(span: SpanRecord): boolean {
  return span.name === COHERE_RERANK_SPAN && span.attributes[OpenLlmetry.llmRequestType] === undefined && mayHaveEvictedFirstAttributes(span);
}

/** The rerank such a span was, its output not available, with the note saying why. */
export function rerankWithoutRequestType(span: SpanRecord): RerankObservation {
  const dropped = attributesDroppedBySdk(span);
  return {
    stage: "rerank",
    query: null,
    input: null,
    output: null,
    unreadable: [
      {
        attribute: OpenLlmetry.llmRequestType,
        error:
          `${evictedFirstPhrase(span, "the request type")}: ` +
          `the span is still the rerank (its name, ${COHERE_RERANK_SPAN}, says the call ran), and what it still carries of its documents and ranking is not read as whole (which attributes it lost besides is not relied on), ` +
          `so the final ranking the pipeline went on with is not known: retrieved_chunks is not available, and the retrieval's ranking is not taken in its place. ${sdkLimitFact(dropped)}`,
      },
    ],
  };
}
