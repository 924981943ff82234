/**
 * Binds an imported file's labels to the requests they review (a label counts toward the review of the request it
 * names only: evaluators/judge/calibration/human-label.ts). A line's `trace_id` must be a stored request of its case;
 * a line without one is of the newest request of its case started at or before its `labeled_at`, the answer the
 * reviewer could have read then; a line giving "" is a label of no request (the export writes a label moved off its
 * request so), kept as it is and counted toward nothing. A line neither names nor finds a request refuses the file, with its line: a label
 * bound to no answer would be kept and counted toward nothing, unsaid. Labels of cases the importer cannot read are
 * counted, never named (which ids another tenant has is not said), as the store refuses them.
 *
 * As in the form (review-labels.ts labelsOfSubmission), a reviewer's labels of another request of a case the file
 * reviews are moved off it (movedOffRequest): a review of a case is of one request.
 */
import type { TraceLocation } from "../../store/ports/trace-reader.js";
import { OutOfScopeError } from "../../store/ports/tenant-scope.js";
import { movedOffRequest, type HumanLabel } from "../../evaluators/judge/calibration/human-label.js";
import { failure, success, type Result } from "../../core/result.js";
import type { ImportedLabels } from "./labels-jsonl.js";

/** A reviewer's review of a case, which is of one request: the key of their labels of it. */
function reviewOf(label: HumanLabel): string {
  return JSON.stringify([label.case_result_id, label.labeler_id]);
}

/**
 * The file's labels, each bound to its request. `stored`: the labels stored of the file's cases. A line may name a
 * request that is no longer stored when the stored label it restates names it too: a request replaced by a later one
 * of its case (sent again the same UTC day from the same service) keeps its reviewers' labels, which count toward no
 * request, and the export writes them so — an export imports back as it is.
 */
export function bindImportedLabels(imported: ImportedLabels, requestsOf: ReadonlyMap<string, readonly TraceLocation[]>, stored: readonly HumanLabel[]): Result<HumanLabel[], string> {
  const storedRequestOf = new Map(stored.map((label) => [label.label_id, label.trace_id]));
  const bound: HumanLabel[] = [];
  let unreadable = 0;
  for (const [index, label] of imported.labels.entries()) {
    const line = imported.lines[index]!;
    const requests = requestsOf.get(label.case_result_id);
    if (requests === undefined) {
      unreadable += 1;
      continue;
    }
    const given = imported.givenTraceIds[index]!;
    if (given === "") {
      bound.push(label);
      continue;
    }
    if (given !== null) {
      if (!requests.some((request) => request.traceId === label.trace_id) && storedRequestOf.get(label.label_id) !== label.trace_id) {
        return failure(`line ${line}: trace_id "${label.trace_id}" is no stored request of case_result_id "${label.case_result_id}": give the trace id of the request reviewed (its review page's address holds it as ?trace=), or leave trace_id out to bind the label to the newest request started at or before labeled_at`);
      }
      bound.push(label);
      continue;
    }
    const labeledAtMs = Date.parse(label.labeled_at);
    // The request started last at or before the label: the newest answer the reviewer could have read then.
    const started = requests.filter((request) => Date.parse(request.startedAt) <= labeledAtMs);
    const reviewed = started.reduce<TraceLocation | undefined>((latest, request) => (latest === undefined || Date.parse(request.startedAt) > Date.parse(latest.startedAt) ? request : latest), undefined);
    if (reviewed === undefined) {
      const earliest = requests.reduce((first, request) => (Date.parse(request.startedAt) < Date.parse(first.startedAt) ? request : first));
      return failure(
        `line ${line}: no request of case_result_id "${label.case_result_id}" started at or before labeled_at ${label.labeled_at} (the earliest started ${earliest.startedAt}): a label is of an answer its reviewer read — give the trace_id of the request reviewed, or correct labeled_at`,
      );
    }
    bound.push({ ...label, trace_id: reviewed.traceId });
  }
  if (unreadable > 0) return failure(`${new OutOfScopeError(unreadable).message}: a label is bound to a stored request of its case, so import labels after their traces are stored`);
  // A review of a case is of one request: a reviewer's lines of a case naming two would leave a part of one behind,
  // and so would two lines of one label (case, metric, reviewer) naming different requests, "" among them — the store
  // keeps one of them, and the checks would have read the other.
  const requestOfReview = new Map<string, { traceId: string; line: number }>();
  const requestOfLabel = new Map<string, { traceId: string; line: number }>();
  for (const [index, label] of bound.entries()) {
    const line = imported.lines[index]!;
    const sameLabel = requestOfLabel.get(label.label_id);
    if (sameLabel !== undefined && sameLabel.traceId !== label.trace_id) {
      return failure(
        `line ${line}: ${label.labeler_id}'s label of ${label.metric} on case_result_id "${label.case_result_id}" is given twice, of two requests (trace_id "${sameLabel.traceId}" on line ${sameLabel.line}, "${label.trace_id}" here): a reviewer has one label of a metric of a case — keep one of the lines`,
      );
    }
    requestOfLabel.set(label.label_id, { traceId: label.trace_id, line });
    if (label.trace_id === "") continue;
    const first = requestOfReview.get(reviewOf(label));
    if (first !== undefined && first.traceId !== label.trace_id) {
      return failure(
        `line ${line}: ${label.labeler_id}'s labels of case_result_id "${label.case_result_id}" are of two requests (trace_id "${first.traceId}" on line ${first.line}, "${label.trace_id}" here): a reviewer's review of a case is of one request — import the labels of one request of the case`,
      );
    }
    requestOfReview.set(reviewOf(label), { traceId: label.trace_id, line });
  }
  return success(bound);
}

/**
 * The stored labels the import moves off their requests: per case and reviewer of the file, their labels of another
 * request of the case than the one their lines review (one, bindImportedLabels), which the file does not replace. A
 * line of no request ("") that would replace their label of a request refuses the file: it would leave the rest of
 * that review behind on the request. A line older than the reviewer's stored label of the same case and metric on another request refuses the file: the store
 * keeps the newer label, so the file's would be dropped while the rest of that reviewer's review moved, leaving a
 * part of a review that would count as the whole. So does a line of any metric older than the reviewer's stored review
 * of another request, which it would move off that request: an old file undoing a newer review.
 */
export function movedOffByImport(imported: ImportedLabels, bound: readonly HumanLabel[], stored: readonly HumanLabel[], importedAt: string): Result<HumanLabel[], string> {
  const storedById = new Map(stored.map((label) => [label.label_id, label]));
  // Per case and reviewer, their stored review's request (at most one: a review of a case is of one request) and its
  // latest label that stays: a stored label the file replaces with a line dated alike or later is the file's, not there.
  const fileDatedUpTo = new Map<string, number>();
  for (const label of bound) fileDatedUpTo.set(label.label_id, Math.max(fileDatedUpTo.get(label.label_id) ?? -Infinity, Date.parse(label.labeled_at)));
  const storedReviews = new Map<string, { traceId: string; latest: HumanLabel }>();
  for (const label of stored) {
    if (label.trace_id === "" || (fileDatedUpTo.get(label.label_id) ?? -Infinity) >= Date.parse(label.labeled_at)) continue;
    const review = storedReviews.get(reviewOf(label));
    if (review === undefined || Date.parse(label.labeled_at) > Date.parse(review.latest.labeled_at)) storedReviews.set(reviewOf(label), { traceId: label.trace_id, latest: label });
  }
  for (const [index, label] of bound.entries()) {
    const line = imported.lines[index]!;
    const earlier = storedById.get(label.label_id);
    if (label.trace_id === "") {
      // Replacing a label bound to a request by one of no request would leave the rest of that review behind on it.
      if (earlier !== undefined && earlier.trace_id !== "") {
        return failure(
          `line ${line}: trace_id "" would move ${label.labeler_id}'s label of ${label.metric} on case_result_id "${label.case_result_id}" off the request it reviews (trace_id "${earlier.trace_id}"), leaving the rest of that review behind: give that request's trace_id, or leave trace_id out`,
        );
      }
      continue;
    }
    if (earlier !== undefined && earlier.trace_id !== label.trace_id && Date.parse(earlier.labeled_at) > Date.parse(label.labeled_at)) {
      return failure(
        `line ${line}: labeled_at ${label.labeled_at} is earlier than ${label.labeler_id}'s stored label of ${label.metric} on case_result_id "${label.case_result_id}" (${earlier.labeled_at}), which ${earlier.trace_id === "" ? "was moved off its request (trace_id \"\")" : `reviews another request of the case (trace_id "${earlier.trace_id}")`}: the stored label would stay — give a later labeled_at, or leave it out to label at the import's time`,
      );
    }
    // An older line of another metric would move the reviewer's later review of another request off it: a label from
    // an old file undoing a newer review, which no reviewer asked for.
    // A stored review dated ahead of the clock (an import may date labels up to 5 minutes ahead) is read as dated now:
    // a line labelled at the import's time is not older than a review made before it.
    const review = storedReviews.get(reviewOf(label));
    if (review !== undefined && review.traceId !== label.trace_id && Math.min(Date.parse(review.latest.labeled_at), Date.parse(importedAt)) > Date.parse(label.labeled_at)) {
      return failure(
        `line ${line}: labeled_at ${label.labeled_at} is earlier than ${label.labeler_id}'s stored review of case_result_id "${label.case_result_id}" on another request (trace_id "${review.traceId}", labelled up to ${review.latest.labeled_at}): taken, it would move that later review off its request — give a later labeled_at, or leave it out to label at the import's time`,
      );
    }
  }
  // Per case and reviewer of the file: the one request their lines review (bindImportedLabels) and the metrics they label.
  const reviewedBy = new Map<string, { trace: string; metrics: Set<string> }>();
  for (const label of bound) {
    // A label of no request moves no review.
    if (label.trace_id === "") continue;
    const entry = reviewedBy.get(reviewOf(label)) ?? { trace: label.trace_id, metrics: new Set<string>() };
    entry.metrics.add(label.metric);
    reviewedBy.set(reviewOf(label), entry);
  }
  return success(
    stored.flatMap((label) => {
      const review = reviewedBy.get(reviewOf(label));
      return review === undefined ? [] : movedOffRequest([label], label.labeler_id, review.trace, review.metrics, importedAt);
    }),
  );
}

/** Why lines of an imported file changed nothing (outlastedOnImport), said by the import's answer and the queue's notice. */
export const OUTLASTED_LINES =
  "a label with the same case_result_id, metric and labeler_id dated later (stored, or on another line of the file) outlasts each of them, as the store keeps the later label: give a later labeled_at to replace it";

/**
 * How many of the file's lines change nothing: a label with the same id (case, metric, reviewer) dated later — stored,
 * or on another line of the file — outlasts them, since the store keeps the later of two labels with one id (of two
 * dated alike, the one written last: the file's). The import says how many, rather than counting them as imported.
 */
export function outlastedOnImport(bound: readonly HumanLabel[], stored: readonly HumanLabel[]): number {
  const newest = new Map<string, number>();
  for (const label of stored) newest.set(label.label_id, Date.parse(label.labeled_at));
  // Of the file's lines of one id, the last one dated latest is what stays: a stored label dated alike is replaced.
  const latestLine = new Map<string, number>();
  for (const [index, label] of bound.entries()) {
    const at = Date.parse(label.labeled_at);
    const kept = latestLine.get(label.label_id);
    if (kept === undefined || at >= Date.parse(bound[kept]!.labeled_at)) latestLine.set(label.label_id, index);
  }
  let outlasted = 0;
  for (const [index, label] of bound.entries()) {
    const storedAt = newest.get(label.label_id);
    if (latestLine.get(label.label_id) !== index || (storedAt !== undefined && storedAt > Date.parse(label.labeled_at))) outlasted += 1;
  }
  return outlasted;
}
