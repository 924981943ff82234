/**
 * A label import may not decide a case as "passed" on part of it. A reviewer's
 * verdict is "failed" when they failed any metric and "passed" otherwise
 * (evaluators/reviewed-verdict.ts), so a file with one metric marked "pass" on a
 * case that failed four would count as that reviewer's pass of the whole case,
 * and with a second such reviewer as a pass on every surface — the form
 * refuses that (review-labels.ts labelsOfSubmission), and so does an import:
 * for every request of a case and reviewer whose labels, the file's with the
 * ones already stored of that request, fail nothing, every metric that request offers for review must be
 * labelled. A case that is not stored (or not readable with the importer's
 * token) cannot be checked, so such labels are refused too; fail labels need no
 * check and are taken as before.
 */
import type { HumanLabel } from "../../evaluators/judge/calibration/human-label.js";
import { failure, success, type Result } from "../../core/result.js";
import { OutOfScopeError } from "../../store/ports/tenant-scope.js";
import { requestKey } from "../../store/ports/human-label-store.js";
import { ROOT_CAUSE_METRIC, reviewerVerdicts, unlabelledForPass } from "./review-labels.js";

/**
 * How the check reads a request of a case: its review metrics (review-labels.ts reviewMetrics); null when it is not
 * stored; `{ unavailable }` saying why its metrics cannot be read (an earlier request whose Evaluation Results a later
 * request of the case replaced), which refuses a pass of it.
 */
export type ReviewMetricsOf = (caseResultId: string, traceId: string) => Promise<string[] | null | { unavailable: string }>;

/** How many refused cases the error names before "and N more". */
const NAMED_CASES = 5;

export async function checkImportedPasses(imported: readonly HumanLabel[], stored: readonly HumanLabel[], reviewMetricsOf: ReviewMetricsOf): Promise<Result<void, string>> {
  // Per request (a label counts toward the review of the request it names) and reviewer.
  const keyOf = (label: HumanLabel) => JSON.stringify([label.case_result_id, label.trace_id, label.labeler_id]);
  const byCaseAndReviewer = new Map<string, { caseResultId: string; traceId: string; reviewer: string }>();
  for (const label of imported) {
    // A label of no request (trace_id "": moved off its request) counts toward no review: nothing to check.
    if (label.metric === ROOT_CAUSE_METRIC || label.trace_id === "") continue;
    byCaseAndReviewer.set(keyOf(label), { caseResultId: label.case_result_id, traceId: label.trace_id, reviewer: label.labeler_id });
  }
  // A stored label the file replaces with one of another request leaves its request: it is no longer there to count.
  const importedRequestById = new Map(imported.map((label) => [label.label_id, label.trace_id]));
  const kept = stored.filter((label) => (importedRequestById.get(label.label_id) ?? label.trace_id) === label.trace_id);
  // Each case and reviewer's labels, stored ones before the file's, grouped once: filtering every label for every
  // pair made a 100,000-line file 10^10 steps, which held serve's one thread (its receiver too) for minutes
  // (test/security/label-import-bounds.test.ts).
  const labelsByCaseAndReviewer = new Map<string, HumanLabel[]>();
  const importedByCaseAndReviewer = new Map<string, number>();
  for (const label of [...kept, ...imported]) {
    const key = keyOf(label);
    if (!byCaseAndReviewer.has(key)) continue;
    const group = labelsByCaseAndReviewer.get(key);
    if (group === undefined) labelsByCaseAndReviewer.set(key, [label]);
    else group.push(label);
  }
  for (const label of imported) importedByCaseAndReviewer.set(keyOf(label), (importedByCaseAndReviewer.get(keyOf(label)) ?? 0) + 1);
  const problems: string[] = [];
  // Labels of cases the importer cannot read: counted, never named (which ids another tenant has is not said).
  let unreadable = 0;
  const metricsByRequest = new Map<string, Awaited<ReturnType<ReviewMetricsOf>>>();
  for (const [key, { caseResultId, traceId, reviewer }] of byCaseAndReviewer) {
    // As the store will keep them: of two labels of one metric the later labeled_at wins, on a tie the later write.
    const labels = [...labelsByCaseAndReviewer.get(key)!].sort((first, second) => Date.parse(first.labeled_at) - Date.parse(second.labeled_at));
    // A reviewer who fails a metric fails the case: nothing to read.
    if ([...reviewerVerdicts(reviewer, labels).values()].includes("fail")) continue;
    const request = requestKey({ case_result_id: caseResultId, trace_id: traceId });
    if (!metricsByRequest.has(request)) metricsByRequest.set(request, await reviewMetricsOf(caseResultId, traceId));
    const metrics = metricsByRequest.get(request)!;
    if (metrics === null) {
      unreadable += importedByCaseAndReviewer.get(key)!;
      continue;
    }
    if (!Array.isArray(metrics)) {
      problems.push(`"${caseResultId}" (${reviewer}): only passes of request ${traceId}, ${metrics.unavailable}`);
      continue;
    }
    const missing = unlabelledForPass(metrics, reviewer, labels);
    if (missing.length > 0) problems.push(`"${caseResultId}" (${reviewer}): only passes, and ${missing.join(", ")} ${missing.length === 1 ? "has" : "have"} no label`);
  }
  if (unreadable > 0) return failure(`${new OutOfScopeError(unreadable).message}: a pass is checked against the metrics of its request, so import labels after their traces are stored`);
  if (problems.length === 0) return success(undefined);
  const named = problems.slice(0, NAMED_CASES).join("; ");
  const more = problems.length > NAMED_CASES ? `; and ${problems.length - NAMED_CASES} more` : "";
  return failure(
    `a case passes review only with every metric labelled, and the file would pass ${problems.length} case(s) on part of them: ${named}${more}. Nothing was imported: add the missing metrics' labels, or a fail label for the metric that fails the case`,
  );
}
