/**
 * Which values of a stored metric an experiment compares, when the heuristic
 * judge scored some of them. The heuristic judge is the stand-in when no
 * language-model judge is configured or sampled; its values are a
 * measurement, never a decision — the release gate reads the cases without
 * them (aggregate/without-heuristic-judgements.ts), the boards and rollups
 * leave them out of every mean and show them apart (HEURISTIC_JUDGE_ROW_SQL).
 * The experiment report follows the same rule:
 * - when every arm with values has a language-model judge's, the metric is
 *   compared and decided on those alone; the heuristic judge's are counted as
 *   left out;
 * - when an arm has only the heuristic judge's values, the metric is compared
 *   on the heuristic judge's values alone, so one judge measures every arm,
 *   and it is a measurement that decides nothing; a language-model judge's
 *   values of other arms are counted as left out.
 * A value that no judge wrote (a rule's) is never the heuristic judge's.
 */
import { HEURISTIC_JUDGE_NAME_SUFFIX, labelOfMetric } from "../metric-catalog.js";

export interface JudgedValue {
  readonly variant: string;
  /** ExperimentMetricValue.heuristicJudgement: the store's reading of the gate's rule. */
  readonly heuristicJudgement: boolean;
}

export interface JudgedValues<Value extends JudgedValue> {
  readonly compared: Value[];
  /** The compared values are the heuristic judge's: a measurement that decides nothing. */
  readonly heuristicJudge: boolean;
  /** Per variant, how many of its values are not compared (only variants with any). */
  readonly leftOut: ReadonlyMap<string, number>;
}

export function judgedValues<Value extends JudgedValue>(values: readonly Value[]): JudgedValues<Value> {
  const arms = new Map<string, { model: number; heuristic: number }>();
  for (const value of values) {
    const arm = arms.get(value.variant) ?? { model: 0, heuristic: 0 };
    if (value.heuristicJudgement) arm.heuristic += 1;
    else arm.model += 1;
    arms.set(value.variant, arm);
  }
  const heuristicJudge = [...arms.values()].some((arm) => arm.model === 0 && arm.heuristic > 0);
  const leftOut = new Map<string, number>();
  for (const [variant, arm] of arms) {
    const count = heuristicJudge ? arm.model : arm.heuristic;
    if (count > 0) leftOut.set(variant, count);
  }
  return { compared: values.filter((value) => value.heuristicJudgement === heuristicJudge), heuristicJudge, leftOut };
}

/** A metric as the report names it: the heuristic judge's measurement by the boards' suffix, a heuristic rule's by the catalog's. */
export function labelOfReportedMetric(metric: string, heuristicJudge: boolean): string {
  return heuristicJudge ? `${metric}${HEURISTIC_JUDGE_NAME_SUFFIX}` : labelOfMetric(metric);
}

/** Why some values of the metric are not compared, in plain words; null when all are. */
export function leftOutNote(selection: JudgedValues<JudgedValue>): string | null {
  const counts = [...selection.leftOut].map(([variant, count]) => `${variant} ${count}`).join(", ");
  if (selection.heuristicJudge) {
    const only = "an arm has only the heuristic judge's values (no language-model judge configured or sampled there): compared on the heuristic judge's values, a measurement that decides nothing";
    return counts === "" ? only : `${only}; the language-model judge's values left out so one judge measures every arm (${counts})`;
  }
  return counts === "" ? null : `decided on the language-model judge's values only; the heuristic judge's left out, as the release gate leaves them out (${counts})`;
}
