/**
 * The basis of a rate over a subset, shown beside it: a column `<label> · <part>` (a count) next to the rate's
 * column `<label>` says what the rate stands on. Task success is over the requests with a verdict only (errors and
 * timeouts included, evaluators/aggregate/task-success.ts): on a store of 18 requests of which 4 errored and 14 were
 * measured but judged by nothing, it is 0 of 4 — a true 0.0 %, but read alone it said none of the 18 succeeded.
 * Grafana shows the counts as tiles of their own; `ragscope report` folds them into the rate's line
 * (report/rate-basis-fields.ts): "Task success 0.0% (of 4 judged; 14 not judged)".
 *
 * No Grafana SDK here: the report ships this module.
 */

/** Between a rate's label and the name of one of its counts. */
export const BASIS_SEPARATOR = " · ";

/** The column name of a count of `label`'s basis. */
export function basisColumn(label: string, part: string): string {
  return `${label}${BASIS_SEPARATOR}${part}`;
}

/**
 * The parts counted by a noun, plural and singular: the report prints "1 request", "2 requests" (Grafana's column
 * names stay as they are, whatever the count). The other parts read the same for one ("1 judged", "1 with a thumbs",
 * "1 unanswerable"): INVARIANT_PARTS lists them, so a part added to the board without either fails its test.
 */
export const SINGULAR_PARTS: Readonly<Record<string, string>> = {
  requests: "request",
  values: "value",
  refusals: "refusal",
  "cited answers": "cited answer",
  sessions: "session",
  cases: "case",
};
export const INVARIANT_PARTS: readonly string[] = ["judged", "not judged", "with a thumbs", "with a click", "unanswerable", "answerable", "with faithfulness", "checked"];

/** `count` and the part it counts, in the singular for one: "1 request", "0 requests", "1 judged". */
export function countedPart(count: number | null, part: string): string {
  const shown = count === null ? "?" : String(count);
  return `${shown} ${count === 1 ? (SINGULAR_PARTS[part] ?? part) : part}`;
}
