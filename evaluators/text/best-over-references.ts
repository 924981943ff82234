/**
 * Scoring an answer against several reference answers: the best score over the
 * references, as the SQuAD and CMRC 2018 scripts do (`max(metric(prediction,
 * gold) for gold in golds)`), each metric on its own — the reference that
 * maximises exact match need not be the one that maximises token F1.
 *
 * A reference the metric cannot score (no tokens) is skipped; when none can be
 * scored the first one's reason is returned, so a list of blank references is
 * not applicable rather than 0.
 */
import { notApplicable, type MetricValue } from "../metric-value.js";

export function bestOverReferences(references: readonly string[], score: (reference: string) => MetricValue): MetricValue {
  return bestValue(references.map(score));
}

/** The highest applicable value; else the first not-applicable one; else "no reference answer". */
export function bestValue(values: readonly MetricValue[]): MetricValue {
  let best: MetricValue | null = null;
  let firstUnscored: MetricValue | null = null;
  for (const value of values) {
    if (!value.applicable) firstUnscored ??= value;
    else if (best === null || !best.applicable || value.value > best.value) best = value;
  }
  return best ?? firstUnscored ?? notApplicable("there is no reference answer");
}
