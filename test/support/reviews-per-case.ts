/**
 * This release's SQL reading reviews, as a release before migration 0037 ran it: a human label belonged to its Case
 * Result id, not to a request (human_labels had no trace_id), so its reviews were grouped and matched per case. The
 * upgrade tests compute an earlier store's numbers with the statements of the release they upgrade from; on a store
 * of that release this release's statements fail (its human_labels has no trace_id column). For a case with one
 * request both rules give the same verdict and cause.
 *
 * Each rewrite undoes one place where this release added the trace id (dashboards/source/aggregate-metrics.ts
 * reviewedAs, root-causes.ts caseReviews and attributedRootCauses); a statement none applies to holds no review, and is
 * refused, so a change of those statements is noticed here rather than compared against the wrong rule.
 */
const REWRITES: [RegExp, string][] = [
  // reviewedAs: the (case, trace) pair matched by the reviewers' agreement.
  [/\(case_result_id, trace_id\) IN \(SELECT case_result_id, trace_id FROM/g, "case_result_id IN (SELECT case_result_id FROM"],
  // Both: one row per reviewer of a request, then per request.
  [/SELECT case_result_id, trace_id, labeler_id,/g, "SELECT case_result_id, labeler_id,"],
  [/GROUP BY case_result_id, trace_id, labeler_id\)/g, "GROUP BY case_result_id, labeler_id)"],
  [/GROUP BY case_result_id, trace_id HAVING/g, "GROUP BY case_result_id HAVING"],
  // caseReviews: its columns and its outer grouping (the statement ends in the join's parenthesis).
  [/SELECT case_result_id, trace_id,(\s+)countIf\(labelled\)/g, "SELECT case_result_id,$1countIf(labelled)"],
  [/GROUP BY case_result_id, trace_id\) AS (reviews|reviewed) ON/g, "GROUP BY case_result_id) AS $1 ON"],
  // attributedRootCauses and the Failures board: the reviews joined to the request by both ids.
  [/ AND (reviews|reviewed)\.trace_id = (requests|failing)\.\w+/g, ""],
];

export function reviewsPerCase(statement: string): string {
  let rewritten = statement;
  for (const [pattern, replacement] of REWRITES) rewritten = rewritten.replace(pattern, replacement);
  if (rewritten === statement) throw new Error("reviewsPerCase: the statement reads no reviews this release's way");
  return rewritten;
}
