/**
 * No-answer accuracy (seed 004 §六.2 hard gate "No-answer Accuracy >= 0.90";
 * §十二 无答案识别率): unanswerable cases (`answerable: false`) on which the
 * system abstained / unanswerable cases whose abstention is known — the
 * abstention recall of answer-abstention-confusion.ts.
 *
 * Per case, "abstained" is the `abstained` metric of answer.abstention when
 * stored, else the trace's flag. Needs the Eval Cases: without them no case
 * is known to be unanswerable and the value is not applicable.
 */
import { notApplicable, type MetricValue } from "../metric-value.js";
import { abstentionConfusion, type AbstentionObservation } from "../rules/answer-abstention-confusion.js";
import { metricValueOf, type EvaluatedCase } from "./evaluated-case.js";
import { METRIC } from "../metric-catalog.js";

export interface NoAnswerAccuracy {
  value: MetricValue;
  unanswerableCases: number;
}

export function abstainedIn(evaluated: EvaluatedCase): boolean | null {
  const metric = metricValueOf(evaluated, METRIC.abstained);
  if (metric !== null) return metric === 1;
  return evaluated.caseResult.rag_observation.abstained;
}

export function noAnswerAccuracy(cases: readonly EvaluatedCase[]): NoAnswerAccuracy {
  const observations: AbstentionObservation[] = [];
  let withoutCase = 0;
  let unanswerable = 0;
  for (const evaluated of cases) {
    if (evaluated.evalCase === null || evaluated.evalCase === undefined) withoutCase += 1;
    if (evaluated.evalCase?.answerable !== false) continue;
    unanswerable += 1;
    const abstained = abstainedIn(evaluated);
    if (abstained !== null) observations.push({ abstained, answerable: false });
  }
  if (observations.length === 0) {
    // Say which: the run has no unanswerable case, its cases are not linked to Eval Cases, or abstention was not recorded.
    const why =
      unanswerable > 0 ? `none of its ${unanswerable} unanswerable case(s) recorded whether it abstained`
      : withoutCase === cases.length ? "no case is linked to an Eval Case, so none is known to be unanswerable"
      : `the run has no unanswerable case (answerable: false)${withoutCase > 0 ? `; ${withoutCase} case(s) are not linked to an Eval Case` : ""}`;
    return { value: notApplicable(why), unanswerableCases: 0 };
  }
  return { value: abstentionConfusion(observations).recall, unanswerableCases: observations.length };
}
