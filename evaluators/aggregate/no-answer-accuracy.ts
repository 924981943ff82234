/**
 * No-answer accuracy (seed 004 §六.2 hard gate "No-answer Accuracy >= 0.90";
 * §十二 无答案识别率): unanswerable cases (`answerable: false`) on which the
 * system abstained / unanswerable cases whose abstention is known — the
 * abstention recall of answer-abstention-confusion.ts.
 *
 * Per case, "abstained" is the `abstained` metric of answer.abstention when
 * stored, else the trace's flag. Needs the Eval Cases: without them no case
 * is known to be unanswerable and the value is not applicable.
 *
 * This value decides (the hard gate, a gate file's rule), and a heuristic
 * never decides a pass: an abstention counts only when read exactly — the
 * trace flags it, or the answer refuses in whole (answer.abstention's result
 * then has deterministic_rule confidence). A heuristic "abstained" (a refusal
 * phrase beside claims of the answer's own) is counted as not shown: the case
 * stays in the denominator, not in the numerator, so the value is a lower
 * bound that never overstates, and `note` says how many were left out and how
 * to have them read exactly. A heuristic "did not abstain" stays so: it
 * cannot overstate. The boards show the measurement itself, every
 * abstention counted (dashboards/source/aggregate-metrics.ts): a measurement.
 *
 * An unanswerable case that recorded no abstention at all (no answer.abstention
 * value, no flag: typically a request that failed before it answered) is not
 * in the value — its abstention is not known, as a metric's mean leaves out the
 * cases it does not apply to — but the note says how many, since the value then
 * stands on the other unanswerable cases only.
 */
import { notApplicable, type MetricValue } from "../metric-value.js";
import { abstentionConfusion, type AbstentionObservation } from "../rules/answer-abstention-confusion.js";
import { ABSTENTION_READ_EXACTLY } from "../rules/answer-abstention.js";
import type { EvaluatedCase } from "./evaluated-case.js";
import { METRIC } from "../metric-catalog.js";

export interface NoAnswerAccuracy {
  value: MetricValue;
  unanswerableCases: number;
  /** Unanswerable cases read as abstaining only by a heuristic, counted as not abstaining. */
  heuristicAbstentionsNotCounted: number;
  /** Unanswerable cases that recorded no abstention (no answer.abstention value, no flag): not in the value. */
  casesWithoutReading: number;
  /** Says so when heuristicAbstentionsNotCounted or casesWithoutReading > 0 (with how to have them read exactly); null otherwise. */
  note: string | null;
}

/** Whether the case abstained, and whether that was read exactly; null when nothing recorded it. */
export interface AbstentionReading {
  abstained: boolean;
  exact: boolean;
}

/**
 * The stored `abstained` metric (the first result carrying a value, as metricValueOf reads it) with its result's
 * confidence, else the trace's flag, which is exact.
 */
export function abstentionReadingOf(evaluated: EvaluatedCase): AbstentionReading | null {
  for (const result of evaluated.evaluationResults) {
    const value = result.metric_values[METRIC.abstained];
    if (value !== undefined && value !== null && Number.isFinite(value)) return { abstained: value === 1, exact: result.confidence.semantics === "deterministic_rule" };
  }
  const flag = evaluated.caseResult.rag_observation.abstained;
  return flag === null ? null : { abstained: flag, exact: true };
}

export function noAnswerAccuracy(cases: readonly EvaluatedCase[]): NoAnswerAccuracy {
  const observations: AbstentionObservation[] = [];
  let withoutCase = 0;
  let unanswerable = 0;
  let heuristicAbstentions = 0;
  let withoutReading = 0;
  for (const evaluated of cases) {
    if (evaluated.evalCase === null || evaluated.evalCase === undefined) withoutCase += 1;
    if (evaluated.evalCase?.answerable !== false) continue;
    unanswerable += 1;
    const reading = abstentionReadingOf(evaluated);
    if (reading === null) {
      withoutReading += 1;
      continue;
    }
    const notShown = reading.abstained && !reading.exact;
    if (notShown) heuristicAbstentions += 1;
    observations.push({ abstained: reading.abstained && !notShown, answerable: false });
  }
  if (observations.length === 0) {
    // Say which: the run has no unanswerable case, its cases are not linked to Eval Cases, or abstention was not recorded.
    const why =
      unanswerable > 0 ? `none of its ${unanswerable} unanswerable case(s) recorded whether it abstained`
      : withoutCase === cases.length ? "no case is linked to an Eval Case, so none is known to be unanswerable"
      : `the run has no unanswerable case (answerable: false)${withoutCase > 0 ? `; ${withoutCase} case(s) are not linked to an Eval Case` : ""}`;
    return { value: notApplicable(why), unanswerableCases: 0, heuristicAbstentionsNotCounted: 0, casesWithoutReading: withoutReading, note: null };
  }
  const notes = [
    heuristicAbstentions === 0
      ? null
      : `${heuristicAbstentions} of the ${observations.length} unanswerable case(s) read as abstaining only by a heuristic (a refusal phrase beside claims of the answer's own) and are not counted as abstaining, so the value is a lower bound — ${ABSTENTION_READ_EXACTLY}`,
    withoutReading === 0
      ? null
      : `${withoutReading} of the ${unanswerable} unanswerable case(s) recorded no abstention (no answer.abstention value and no ragscope.answer.abstained flag, e.g. the request failed before it answered) and are not in the value, which stands on the other ${observations.length}`,
  ].filter((note): note is string => note !== null);
  return {
    value: abstentionConfusion(observations).recall,
    unanswerableCases: observations.length,
    heuristicAbstentionsNotCounted: heuristicAbstentions,
    casesWithoutReading: withoutReading,
    note: notes.length === 0 ? null : notes.join("; "),
  };
}
