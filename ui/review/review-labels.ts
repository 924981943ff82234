/**
 * Human review of a Case Result (seed 004 §九.4 人工评测): per judged metric a
 * pass/fail label, one primary root-cause label from the 18, a comment. Each
 * is stored as a HumanLabel in `human_labels`:
 *   - one label per judged metric (metric = the evaluator's metric: `judge.faithfulness` → `faithfulness`,
 *     other evaluators by their id), the comment in its note;
 *   - the root cause as metric `root_cause`, verdict `fail`, the label name as its note. A reviewer who had chosen
 *     a root cause and then chooses "none" withdraws it: their `root_cause` label is replaced by one with verdict
 *     `pass` and an empty note (WITHDRAWN_ROOT_CAUSE), which no reader takes for a choice — they all read a root
 *     cause only from a note naming one of the 18 labels (dashboards/source/root-causes.ts caseReviews,
 *     reviewedRootCauseOf; the traces list's root_cause filter). A label cannot simply be deleted: the store keeps
 *     a reviewer's newest label per case and metric, so only a newer one replaces it.
 * Labels are blind: a reviewer sees the other reviewers' labels of a case only
 * once they have labelled it themselves and another reviewer has too.
 */
import { executionErrorType, executionStatus, qualityStatus } from "../../contracts/case-result.js";
import type { EvaluationResult } from "../../contracts/evaluation-result.js";
import { finalVerdictOfReview, type FinalVerdict, type HumanVerdict } from "../../evaluators/reviewed-verdict.js";
import type { TraceSummary } from "../../store/ports/trace-reader.js";
import { requestKey } from "../../store/ports/human-label-store.js";
import { laterThan, labelsOfRequest, movedOffRequest, newHumanLabel, type HumanLabel } from "../../evaluators/judge/calibration/human-label.js";
import { ROOT_CAUSE_LABEL_NAMES, type RootCauseLabel } from "../../evaluators/root-cause/root-cause-labels.js";
import { failure, success, type Result } from "../../core/result.js";

export const ROOT_CAUSE_METRIC = "root_cause";

/** The verdict and note of a `root_cause` label that withdraws the reviewer's earlier choice: no root cause. */
export const WITHDRAWN_ROOT_CAUSE = { verdict: "pass", note: "" } as const;

/** The root cause a label chooses: its note on a `root_cause` label, null on a withdrawal or another metric's label. */
export function chosenRootCause(label: Pick<HumanLabel, "metric" | "note">): string | null {
  return label.metric === ROOT_CAUSE_METRIC && label.note !== "" ? label.note : null;
}

/**
 * The metric a reviewer labels for an Evaluation Result: one that passed or
 * failed the case, and every one the automatic evaluation could not decide —
 * an evaluator that errored (a ranking that lists a chunk twice, a judge that
 * did not answer), a result flagged for review (a measurement whose heuristic
 * signal routed the case to review), or a heuristic judge's measurement of a
 * judged metric — since those are what sent the case to review and what the
 * reviewer decides. Null for the root cause, for measurements nobody asked to
 * review and for metrics that do not apply.
 */
export function reviewMetricOf(result: EvaluationResult): string | null {
  if (result.evaluator_id === ROOT_CAUSE_METRIC) return null;
  const decided = result.outcome === "passed" || result.outcome === "failed";
  const undecided = result.outcome === "error" || result.review_required;
  // A heuristic judge's score is a measurement (judge-evaluations.ts), and the reviewer decides its metric either way.
  const heuristicJudgement = result.outcome === "measured" && result.evaluator_id.startsWith("judge.") && result.confidence.semantics === "heuristic";
  if (!decided && !undecided && !heuristicJudgement) return null;
  return result.evaluator_id.startsWith("judge.") ? result.evaluator_id.slice("judge.".length) : result.evaluator_id;
}

/** The metrics to label, in evaluator order, each once. */
export function reviewMetrics(results: readonly EvaluationResult[]): string[] {
  return [...new Set(results.map(reviewMetricOf).filter((metric): metric is string => metric !== null))];
}

export interface ReviewSubmission {
  caseResultId: string;
  /** The request the form showed: the labels name it. */
  traceId: string;
  reviewer: string;
  /** metric → verdict, for the metrics the reviewer decided. */
  verdicts: Record<string, "pass" | "fail">;
  rootCause: string | null;
  comment: string;
  labeledAt: string;
}

/**
 * The labels a submission stores. `earlier` are the labels of the case already stored, of every request: a reviewer
 * may label a request over several saves, and their labels of another request of the case are moved off it
 * (movedOffRequest).
 *
 * A reviewer's verdict on a case is "failed" when they failed any metric and "passed" otherwise
 * (evaluators/reviewed-verdict.ts), so a pass is only taken once the reviewer has labelled every metric of the case:
 * one metric ticked "pass" on a case that failed four would otherwise count as that reviewer's pass of the whole case
 * (and two such reviewers would turn it into a pass everywhere).
 */
export function labelsOfSubmission(submission: ReviewSubmission, metrics: readonly string[], earlierOfCase: readonly HumanLabel[] = []): Result<HumanLabel[], string> {
  const earlier = labelsOfRequest(earlierOfCase, { case_result_id: submission.caseResultId, trace_id: submission.traceId });
  const bound = { case_result_id: submission.caseResultId, trace_id: submission.traceId };
  const labels: HumanLabel[] = [];
  for (const [metric, verdict] of Object.entries(submission.verdicts)) {
    if (!metrics.includes(metric)) return failure(`"${metric}" is not a judged metric of this case; label one of: ${metrics.join(", ") || "(none)"}`);
    labels.push(newHumanLabel({ ...bound, metric, labeler_id: submission.reviewer, verdict, note: submission.comment, labeled_at: submission.labeledAt }));
  }
  if (labels.length > 0) {
    const missing = unlabelledForPass(metrics, submission.reviewer, [...earlier, ...labels]);
    if (missing.length > 0) {
      return failure(`a case passes review only with every metric labelled: ${missing.join(", ")} ${missing.length === 1 ? "has" : "have"} no label of yours yet — label ${missing.length === 1 ? "it" : "them"} too, or fail the metric that fails the case`);
    }
  }
  if (submission.rootCause === null) {
    // "none" after a root cause of theirs: the choice is withdrawn, not kept behind the form's "none".
    if (earlier.some((label) => label.labeler_id === submission.reviewer && chosenRootCause(label) !== null)) {
      labels.push(newHumanLabel({ ...bound, metric: ROOT_CAUSE_METRIC, labeler_id: submission.reviewer, ...WITHDRAWN_ROOT_CAUSE, labeled_at: submission.labeledAt }));
    }
  } else {
    if (!(ROOT_CAUSE_LABEL_NAMES as readonly string[]).includes(submission.rootCause)) return failure(`"${submission.rootCause}" is not a root-cause label; use one of ${ROOT_CAUSE_LABEL_NAMES.join(", ")}`);
    labels.push(newHumanLabel({ ...bound, metric: ROOT_CAUSE_METRIC, labeler_id: submission.reviewer, verdict: "fail", note: submission.rootCause as RootCauseLabel, labeled_at: submission.labeledAt }));
  }
  if (labels.length === 0) return failure("nothing to save: choose pass or fail for at least one metric, or a root cause");
  // Each label replaces the reviewer's stored one of its metric, on whichever request: dated after it if that one lies
  // ahead of the clock (an import may), else the store would keep the stored one and the save would not be.
  const storedById = new Map(earlierOfCase.map((label) => [label.label_id, label]));
  for (const [index, label] of labels.entries()) {
    const stored = storedById.get(label.label_id);
    if (stored !== undefined) labels[index] = { ...label, labeled_at: laterThan(stored, label.labeled_at) };
  }
  return success([...labels, ...movedOffRequest(earlierOfCase, submission.reviewer, submission.traceId, new Set(labels.map((label) => label.metric)), submission.labeledAt)]);
}

/**
 * The metrics of a case a reviewer's verdict of "passed" would rest on without a label: empty when the reviewer
 * failed a metric (their verdict is "failed" whatever else they say) or labelled every metric. `labels` are the
 * reviewer's labels of the case, the later of two for one metric winning; others' labels are ignored.
 */
export function unlabelledForPass(metrics: readonly string[], reviewer: string, labels: readonly HumanLabel[]): string[] {
  const verdicts = reviewerVerdicts(reviewer, labels);
  if ([...verdicts.values()].includes("fail")) return [];
  return metrics.filter((metric) => !verdicts.has(metric));
}

/** A reviewer's verdict per metric (the root cause left out), the later of two labels of one metric winning. */
export function reviewerVerdicts(reviewer: string, labels: readonly HumanLabel[]): Map<string, HumanLabel["verdict"]> {
  const verdicts = new Map<string, HumanLabel["verdict"]>();
  for (const label of labels) if (label.labeler_id === reviewer && label.metric !== ROOT_CAUSE_METRIC) verdicts.set(label.metric, label.verdict);
  return verdicts;
}

/** The labels of one case a reviewer may see: their own always; the others' once they and another reviewer both labelled it. */
export function visibleLabels(labels: readonly HumanLabel[], reviewer: string): HumanLabel[] {
  const reviewers = new Set(labels.map((label) => label.labeler_id));
  const bothIn = reviewers.has(reviewer) && reviewers.size >= 2;
  return labels.filter((label) => bothIn || label.labeler_id === reviewer);
}

/**
 * The labels of many cases a reviewer may see: per request of a case the labels visibleLabels gives them — their own,
 * and the others' of requests they labelled too. The label export (GET /api/labels.jsonl) holds these, so a download is no way
 * round a blind review, and so does the queue's table of the judge against the reviewers, which counted every label:
 * its pairs and counts changed the moment another reviewer labelled a case the viewer had not, telling that verdict.
 * Without tokens nobody's identity is proven (everyone is "local" and an import keeps the file's labeler ids): every
 * label.
 */
export function labelsVisibleTo(labels: readonly HumanLabel[], reviewer: string, authenticated: boolean): HumanLabel[] {
  if (!authenticated) return [...labels];
  // Per request: a reviewer who labelled one answer of a case has not seen the others' labels of another answer.
  const byRequest = new Map<string, HumanLabel[]>();
  for (const label of labels) byRequest.set(requestKey(label), [...(byRequest.get(requestKey(label)) ?? []), label]);
  // Labels of no request (moved off theirs) are their reviewer's alone: grouped together, two reviewers who each had
  // one would see each other's, though they never labelled one request both.
  const visible = new Set([...byRequest.values()].flatMap((requestLabels) => (requestLabels[0]!.trace_id === "" ? requestLabels.filter((label) => label.labeler_id === reviewer) : visibleLabels(requestLabels, reviewer))));
  // In the store's order, which the export has always had.
  return labels.filter((label) => visible.has(label));
}

export { humanVerdictOf, type HumanVerdict } from "../../evaluators/reviewed-verdict.js";

/** The final verdict of a listed trace (evaluators/reviewed-verdict.ts) from its review: the list's summary carries how the request ended. */
export function finalVerdictOfListed(trace: TraceSummary, human: HumanVerdict | null): FinalVerdict {
  const request = { quality_status: qualityStatus.parse(trace.qualityStatus), execution_status: executionStatus.parse(trace.executionStatus), execution_error: { type: executionErrorType.parse(trace.errorType) } };
  return finalVerdictOfReview(request, human);
}
