/**
 * The texts ragscope's SDK cut to its maxTextLength (RAGSCOPE_MAX_TEXT_LENGTH, 32,768 characters by default) before
 * a span left the application, for the Case Result's `malformed_attributes` (kind `truncated`): the SDK records each
 * cut text's length before the cut beside it (`ragscope.cut.<key>`, contracts/span-attributes.ts), and marks the span
 * (`ragscope.cut`). The cut itself is
 * the SDK's bound on a span's size; unsaid, an evaluator would score the beginning of an answer or a chunk as if it
 * were all of it.
 */
import { Ragscope } from "../../contracts/span-attributes.js";
import type { SpanRecord } from "../00-otlp/span-record.js";

export interface CutNote {
  span_id: string;
  span_name: string;
  attribute: string;
  kind: "truncated";
  error: string;
}

/** One note per text of the span the SDK cut, naming the attribute and its length before and after. */
export function cutBySdk(span: SpanRecord): CutNote[] {
  // Every span of every trace passes here: its keys are walked only on a span the SDK marked as holding a cut text.
  if (span.attributes[Ragscope.cut] !== true) return [];
  const notes: CutNote[] = [];
  for (const key in span.attributes) {
    if (!key.startsWith(Ragscope.cutPrefix)) continue;
    const value = span.attributes[key];
    if (typeof value !== "number") continue;
    const attribute = key.slice(Ragscope.cutPrefix.length);
    const kept = span.attributes[attribute];
    const length = typeof kept === "string" ? ` to ${kept.length}` : "";
    notes.push({
      span_id: span.spanId,
      span_name: span.name,
      attribute,
      kind: "truncated",
      error: `the SDK cut this text from ${value} characters${length} (maxTextLength, RAGSCOPE_MAX_TEXT_LENGTH): metrics read from it see only its beginning; raise the limit to record it whole`,
    });
  }
  return notes;
}
