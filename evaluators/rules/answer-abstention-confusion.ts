/**
 * Abstention outcomes and their confusion matrix (seed 004 §五.6).
 *
 * Per case, from whether the answer abstained and whether the case is
 * answerable:
 *
 *                     | unanswerable        | answerable
 *   abstained         | true_abstention     | false_abstention (over-abstention)
 *   did not abstain   | missed_abstention   | answered
 *                     | (SHOULD_ABSTAIN)    |
 *
 * Over many cases:
 *   Abstention Precision = 正确拒答数 / 全部拒答数
 *                        = true_abstention / (true_abstention + false_abstention)
 *   Abstention Recall    = 正确识别的无答案问题数 / 全部无答案问题数
 *                        = true_abstention / (true_abstention + missed_abstention)
 *   Over-abstention rate = refused answerable questions / answerable questions
 *                        = false_abstention / (false_abstention + answered)
 * A zero denominator makes the rate not applicable (no abstentions, no
 * unanswerable or no answerable cases), never 0 or NaN.
 */
import { applicable, notApplicable, type MetricValue } from "../metric-value.js";

export type AbstentionOutcome = "true_abstention" | "false_abstention" | "missed_abstention" | "answered";

export interface AbstentionObservation {
  abstained: boolean;
  answerable: boolean;
}

export interface AbstentionConfusion {
  counts: Record<AbstentionOutcome, number>;
  precision: MetricValue;
  recall: MetricValue;
  overAbstentionRate: MetricValue;
}

export function abstentionOutcome({ abstained, answerable }: AbstentionObservation): AbstentionOutcome {
  if (abstained) return answerable ? "false_abstention" : "true_abstention";
  return answerable ? "answered" : "missed_abstention";
}

function rate(numerator: number, denominator: number, whenEmpty: string): MetricValue {
  return denominator === 0 ? notApplicable(whenEmpty) : applicable(numerator / denominator);
}

export function abstentionConfusion(cases: readonly AbstentionObservation[]): AbstentionConfusion {
  const counts: Record<AbstentionOutcome, number> = { true_abstention: 0, false_abstention: 0, missed_abstention: 0, answered: 0 };
  for (const observation of cases) counts[abstentionOutcome(observation)] += 1;
  return {
    counts,
    precision: rate(counts.true_abstention, counts.true_abstention + counts.false_abstention, "no case abstained"),
    recall: rate(counts.true_abstention, counts.true_abstention + counts.missed_abstention, "no unanswerable case"),
    overAbstentionRate: rate(counts.false_abstention, counts.false_abstention + counts.answered, "no answerable case"),
  };
}
