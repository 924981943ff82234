/**
 * A flattened list with a gap — `retrieval.documents.0.*` and `.2.*` but no
 * `.1.*` (OpenInference, ragscope), the same in `gen_ai.prompt.N.*` /
 * `gen_ai.completion.N.*` (OpenLLMetry) — for the Case Result's
 * `malformed_attributes` (kind `unreadable_value`). Its readers do not read
 * such a list: taken without the missing item, each item after it would move
 * up a place (a document ranked higher than recorded raises Hit@k and MRR, a
 * completion taken for the last one would be another answer), and filling the
 * place from a neighbour would make a value up. The list is then not available
 * (null), and this says which index is missing and why: an SDK keeps at most
 * OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT attributes a span (128 by default) and drops
 * the others, so a span that reached it has lost part of its list. When the
 * span's OTLP dropped_attributes_count says its SDK dropped attributes
 * (attributes-dropped-by-sdk.ts) the note says so as a fact, with the count;
 * without it (an SDK that does not count, or a gap the sender made) only as
 * what a gap is likely to be. One note a list, however many indexes it misses
 * (the first few named).
 */
import type { Attributes } from "../00-otlp/span-record.js";
import { flattenedIndexes, indexGaps } from "./attribute-readers.js";
import type { MalformedAttribute } from "./find-malformed-json.js";

/** What a truncated span looks like, said in a gap's note when the span does not say its SDK dropped attributes. */
const TRUNCATION_HINT =
  "A gap is what a truncated span looks like: a span whose SDK reached its attribute count limit (OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT, 128 by default) loses attributes so; raise the limit, or record fewer items, to have the list read";

/** Why the span lost attributes, as a fact: its SDK dropped `dropped` of them (the count is a number, so the text stays bounded). */
export function sdkLimitFact(dropped: number): string {
  return `The span lost ${dropped} attribute${dropped === 1 ? "" : "s"} to its SDK's limit OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT (128 by default; dropped_attributes_count ${dropped}); raise it, or record fewer items, to have the list read`;
}

/**
 * @param prefixes the list's prefixes, read as one list (readDocuments reads `retrieval.documents` and ragscope's own
 *   prefix so): an index is missing when no prefix carries it. The first names the note.
 * @param consequence what is not available for it, e.g. `the retrieval's documents are not available`
 * @param droppedBySdk the span's attributes its SDK dropped (attributesDroppedBySdk): above 0, the note says so
 * @returns one note, or none when the list has no gap
 */
export function unreadIndexGaps(attributes: Attributes, prefixes: readonly string[], consequence: string, droppedBySdk: number): MalformedAttribute[] {
  const indexes = [...new Set(prefixes.flatMap((prefix) => flattenedIndexes(attributes, prefix)))].sort((left, right) => left - right);
  const gaps = indexGaps(indexes);
  if (gaps.missing === 0) return [];
  const prefix = prefixes[0]!;
  const more = gaps.missing - gaps.first.length;
  const missing = `${gaps.first.map((index) => `${prefix}.${index}`).join(", ")}${more > 0 ? ` and ${more} more` : ""}`;
  return [
    {
      attribute: `${prefix}.${gaps.first[0]}`,
      error:
        `is missing: the span carries ${prefix}.${gaps.highest} but no attribute of ${missing} (${indexes.length} of ${gaps.highest + 1} items recorded); ` +
        `the list is not read without ${gaps.missing === 1 ? "it, which would move each item after it up a place" : "them, which would move the items after them up"}, so ${consequence}. ` +
        (droppedBySdk > 0 ? sdkLimitFact(droppedBySdk) : TRUNCATION_HINT),
    },
  ];
}
