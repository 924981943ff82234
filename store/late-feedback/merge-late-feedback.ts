/**
 * Late user events (a `rag.feedback` span that arrives after its request was
 * evaluated and the collector forgot the trace) belong on the request's
 * stored Case Result, not on a second, partial one. Both store adapters merge
 * them the same way, with these pure functions:
 *
 * - a "late feedback" result is one rebuilt from a trace made only of
 *   feedback spans (`isLateFeedback`): it has no request, no query, no answer;
 * - its events are added to the stored complete Case Result of the same trace
 *   (and tenant, when the credential named one), identified by the feedback
 *   span's id: an event already there (a replayed span, a retried export) is
 *   not added again, so nothing counts twice (`mergeFeedback`);
 * - when no complete result of that trace is stored, the late result is
 *   written as before (partial), so accepted data is never dropped.
 *
 * Known limits, said here so nobody relies on more: a complete result written
 * AFTER a late event for its trace (the event overtook its own request by the
 * collector's idle timeout) outranks the partial one and does not carry its
 * events; and the judge's verdict rewrite of a Case Result uses the copy it
 * judged, so an event merged while that judgement was in flight is lost from
 * the payload. Both need an event that arrives before the request's result is
 * stored, which late events by definition do not.
 */
import type { CaseResult, FeedbackEntry } from "../../contracts/case-result.js";

/**
 * True for a result rebuilt from feedback spans alone (nothing but user events
 * on the trace). Usually partial (an SDK event hangs under the request's
 * span, which is not in the trace any more), but an event sent without a
 * parent span id is a root span of its own and the trace looks complete.
 */
export function isLateFeedback(caseResult: CaseResult): boolean {
  const observation = caseResult.rag_observation;
  return observation.feedback.length > 0 && observation.span_count === observation.feedback.length;
}

/** True when a late result may be merged into a stored one: same trace, and the same tenant when the event's credential named one. */
export function canMerge(stored: CaseResult, late: CaseResult): boolean {
  if (stored.trace_id !== late.trace_id || stored.rag_observation.partial_trace) return false;
  const lateTenant = late.rag_observation.tenant_id;
  return lateTenant === null || lateTenant === stored.rag_observation.tenant_id;
}

/** An event's identity: its span id; for entries stored before span ids were kept, its content. */
function eventKey(entry: FeedbackEntry): string {
  return entry.span_id ?? `${entry.kind}\u0000${entry.recorded_at}\u0000${entry.value ?? ""}\u0000${entry.comment ?? ""}`;
}

/**
 * `stored` with the events of `late` it does not hold yet, all in time order;
 * null when every event is already there (nothing to write).
 */
export function mergeFeedback(stored: CaseResult, late: readonly FeedbackEntry[]): CaseResult | null {
  const known = new Set(stored.rag_observation.feedback.map(eventKey));
  const added = late.filter((entry) => {
    const key = eventKey(entry);
    if (known.has(key)) return false;
    known.add(key);
    return true;
  });
  if (added.length === 0) return null;
  const feedback = [...stored.rag_observation.feedback, ...added].sort((left, right) => left.recorded_at.localeCompare(right.recorded_at));
  return { ...stored, rag_observation: { ...stored.rag_observation, feedback } };
}

export interface LateFeedbackPlan<Evaluation> {
  /** The batch to write: late results that found their request are gone, in-batch requests carry the merged events. */
  readonly batch: Evaluation[];
  /** Stored Case Results with new events, to rewrite (their own row, a newer version). */
  readonly rewrites: CaseResult[];
  /** How many late events were merged (new ones only). */
  readonly mergedEvents: number;
}

/**
 * Plans a write: `stored` holds the complete Case Results of the batch's
 * late traces already in the store (the caller reads them, by trace id).
 * A late result whose request is in the same batch merges into that one.
 */
export function planLateFeedback<Evaluation extends { caseResult: CaseResult }>(batch: readonly Evaluation[], stored: readonly CaseResult[]): LateFeedbackPlan<Evaluation> {
  const targets = new Map<string, { caseResult: CaseResult; inBatch: number | null; changed: boolean }[]>();
  const remember = (caseResult: CaseResult, inBatch: number | null) => {
    const list = targets.get(caseResult.trace_id) ?? [];
    list.push({ caseResult, inBatch, changed: false });
    targets.set(caseResult.trace_id, list);
  };
  batch.forEach((evaluation, index) => {
    if (!evaluation.caseResult.rag_observation.partial_trace && !isLateFeedback(evaluation.caseResult)) remember(evaluation.caseResult, index);
  });
  for (const caseResult of stored.filter((candidate) => !isLateFeedback(candidate))) {
    // The batch's own copy of a request is newer than the stored one.
    if (!(targets.get(caseResult.trace_id) ?? []).some((target) => target.caseResult.case_result_id === caseResult.case_result_id)) remember(caseResult, null);
  }
  const output: (Evaluation | null)[] = [...batch];
  let mergedEvents = 0;
  batch.forEach((evaluation, index) => {
    const late = evaluation.caseResult;
    if (!isLateFeedback(late)) return;
    const matching = (targets.get(late.trace_id) ?? []).filter((target) => canMerge(target.caseResult, late));
    if (matching.length === 0) return;
    output[index] = null;
    for (const target of matching) {
      const before = target.caseResult.rag_observation.feedback.length;
      const merged = mergeFeedback(target.caseResult, late.rag_observation.feedback);
      if (merged === null) continue;
      mergedEvents += merged.rag_observation.feedback.length - before;
      target.caseResult = merged;
      target.changed = true;
    }
  });
  const rewrites: CaseResult[] = [];
  for (const list of targets.values()) {
    for (const target of list) {
      if (!target.changed) continue;
      if (target.inBatch === null) rewrites.push(target.caseResult);
      else output[target.inBatch] = { ...output[target.inBatch]!, caseResult: target.caseResult };
    }
  }
  return { batch: output.filter((evaluation): evaluation is Evaluation => evaluation !== null), rewrites, mergedEvents };
}
