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
