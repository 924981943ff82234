/**
 * A flattened document list with no gap on a span whose SDK dropped attributes (attributes-dropped-by-sdk.ts), for
 * the Case Result's `malformed_attributes` (kind `unreadable_value`). Such a list may have lost its LAST documents
 * without a trace: past OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT the JS SDK's `Span.setAttribute` drops each new key and
 * keeps the ones it has, so documents recorded in rank order keep 0..k and lose k+1.. whole — no index is missing.
 * Python's SDK evicts the OLDEST attribute instead (sdk-attribute-order.ts): a list loses its FIRST items, which
 * shows as a gap at index 0 (unread-index-gaps.ts names it), or only the fields its first item set first. A span
 * whose SDK is not the JS one (telemetry.sdk.language), or does not say, is read as if either could have happened:
 * its list is not read either, and the note says both, not the JS order as the only one.
 *
 * Such a list is not read (null), though its ranks did not move: every ranking metric ragscope computes is measured
 * against the case's judgments, so documents missing from the end can only take hits away — Hit@k, Recall@k,
 * Precision@k, MRR, AP and nDCG would be UNDERSTATED (a relevant document at rank k+1 counted as not retrieved), as
 * would the chunks that hold the evidence and the citations found among the retrieved ones. A lower value is still
 * a value the trace did not carry: it would fail a threshold or a gate for the SDK's limit, and send someone to look
 * for a retrieval regression that is not there. Null says "not known", with this note saying why.
 *
 * ragscope's own SDK records the list's length first (`ragscope.retrieval.document_count`,
 * `ragscope.rerank.input_document_count`, `ragscope.rerank.output_document_count`, chunk-attributes.ts), before the
 * limit can drop it: a count equal to the documents carried says the list is whole, and it is read; a larger count
 * says how many are missing.
 *
 * Flat message lists are cut the same way (`gen_ai.completion.N.*`, `gen_ai.prompt.N.*`: OpenLLMetry sets each
 * message's role before its content, and the completions after the prompts, so they go first): the message a value
 * is taken from is the LAST one (the answer's completion, the rerank's query prompt), the one a cut takes. Read as
 * carried, an earlier message would stand in for it (otel-genai-mapper.ts, openllmetry-mapper.ts).
 *
 * A list held in ONE attribute is not cut: a JSON value (OpenInference's `input.value` / `output.value` that a
 * LlamaIndex reranker's CHAIN span or a context assembly is read from, Traceloop's `traceloop.entity.input` /
 * `.output`) or an array value (`ragscope.context.chunk_ids`) is kept or dropped whole by the count limit. What a value
 * length limit (OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT) cuts from a JSON text no longer parses, and is named as such
 * (find-malformed-json.ts).
 */
import type { Attributes } from "../00-otlp/span-record.js";
import { flattenedIndexes, indexGaps, readNumber } from "./attribute-readers.js";
import type { MalformedAttribute } from "./find-malformed-json.js";
import { sdkLimitFact } from "./unread-index-gaps.js";
import { eitherOrderLoss, type SdkAttributeOrder } from "./sdk-attribute-order.js";

/** What a list holds, for its note: the item's name, and what reading the list as carried would have done. */
export interface CutListItems {
  /** e.g. `document`, `completion` */
  singular: string;
  plural: string;
  /** e.g. `a relevant document past the cut would count as not retrieved (…)` */
  risk: string;
}

/** A retrieval's or a rerank's documents: what the readers cut-checked first, and the default. */
export const CUT_DOCUMENTS: CutListItems = {
  singular: "document",
  plural: "documents",
  risk: "a relevant document past the cut would count as not retrieved (understating Hit@k, Recall@k and MRR)",
};

/**
 * @param prefixes the list's prefixes, read as one list (as unreadIndexGaps takes them); the first names the note
 * @param countKey the attribute holding the list's length when the SDK records one, else null
 * @param droppedBySdk the span's attributes its SDK dropped (attributesDroppedBySdk)
 * @param order which attributes the span's SDK drops (sdkAttributeOrder): the note says what its order could have cut
 * @param consequence what is not available for it, e.g. `the retrieval's documents are not available`
 * @param items what the list holds (CUT_DOCUMENTS unless told), named in the note
 * @returns one note when the list may be cut (its reader then reads no list), else none
 */
export function unreadCutList(
  attributes: Attributes,
  prefixes: readonly string[],
  countKey: string | null,
  droppedBySdk: number,
  order: SdkAttributeOrder,
  consequence: string,
  items: CutListItems = CUT_DOCUMENTS,
): MalformedAttribute[] {
  if (droppedBySdk === 0) return [];
  const indexes = [...new Set(prefixes.flatMap((prefix) => flattenedIndexes(attributes, prefix)))].sort((left, right) => left - right);
  // No item: nothing is read from the list to cut. A gap: unreadIndexGaps names it.
  if (indexes.length === 0 || indexGaps(indexes).missing > 0) return [];
  const count = countKey === null ? null : readNumber(attributes, countKey);
  if (count !== null && count === indexes.length) return [];
  const prefix = prefixes[0]!;
  const carried = indexes.length === 1 ? `${prefix}.0` : `${prefix}.0 to ${prefix}.${indexes.length - 1}`;
  const short = count !== null && count > indexes.length;
  // A count carried, and fewer items with no gap: only the tail can be missing, whatever the SDK's order (a lost head
  // is a gap; an SDK evicting the oldest would have evicted the count, set first, before any item).
  const missing = short ? count - indexes.length : 0;
  const known =
    short
      ? `the span carries ${carried} of the ${count} ${items.plural} its ${countKey} says were recorded, so the last ${missing === 1 ? "one was" : `${missing} were`} dropped`
      : order.keepsFirst
        ? `the span carries ${carried} with no gap, but an SDK past its attribute count limit drops the attributes set last (the JS SDK keeps the first ones), so the list's last ${items.plural} may have been dropped whole`
        : `the span carries ${carried} with no gap, but its SDK dropped attributes past its count limit, and ${eitherOrderLoss(order, items.singular, items.plural)}`;
  // Only the JS order makes the tail the one part a cut takes; in another, the first item may have lost fields too.
  const head = short ? `is not the last ${items.singular}` : order.keepsFirst ? `may not be the last ${items.singular}` : `may not be the last ${items.singular}, nor the list whole`;
  return [
    {
      attribute: `${prefix}.${indexes.length - 1}`,
      error:
        `${head}: ${known}; read as carried, ${items.risk}, ` +
        `so the list is not read and ${consequence}. ${sdkLimitFact(droppedBySdk)}`,
    },
  ];
}
