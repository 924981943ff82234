/**
 * The one definition of the dataset-level shares the seed's board (004 §十二
 * 边界能力) and gate file (§十三) name, and of which stored values a decision
 * reads. The release gate (gates/gate-metrics.ts) computes them in
 * TypeScript from this module; the dashboards, the alert rules, the static
 * report and the web UI's Quality page compute them in SQL built from this
 * module (dashboards/source/aggregate-metrics.ts), so every surface gives
 * the same number on the same input.
 *
 * - hallucination_rate (幻觉率): answers with at least one statement the
 *   context does not support — faithfulness below 1, the seed's §五.1 example
 *   of a hallucination — over answers with a faithfulness value. Not "cases
 *   whose primary root cause is HALLUCINATION": a failed case has one primary
 *   label, so an answer that hallucinated and also missed its evidence would
 *   not count, and a passing answer with one unsupported claim would not
 *   either.
 * - permission_leak_rate (权限泄露率): requests where a chunk the principal
 *   may not read reached the context or the answer (the per-request metric of
 *   online/permission-leak.ts is 1) over requests where it could be judged.
 *   Retrieval's own violations (permission_violation_rate: retrieved, maybe
 *   filtered before the context) are a retrieval measure, not a leak.
 *
 * Heuristic judge: the embedded default's stand-in judge scores faithfulness
 * and the other judged metrics with word overlap. Its scores are a
 * measurement, never a decision (README "Verdicts"): the gate does not read
 * them (without-heuristic-judgements.ts), so neither does any surface's
 * faithfulness, hallucination rate or other judged value. The UI's board
 * shows the heuristic scores apart, labelled as a measurement
 * (HEURISTIC_MEASUREMENTS in dashboards/source/quality-board.ts).
 */
import { applicable, notApplicable, type MetricValue } from "../metric-value.js";
import { METRIC } from "../metric-catalog.js";
import { metricValueOf, type EvaluatedCase } from "./evaluated-case.js";

/** The conditions a share counts; the SQL text is what metric_rollups (migration 0009) counts per row. */
export const SHARE_CONDITIONS = {
  below_one: { sql: "value < 1", holds: (value: number) => value < 1 },
  above_zero: { sql: "value > 0", holds: (value: number) => value > 0 },
} as const;

export type ShareCondition = keyof typeof SHARE_CONDITIONS;

export interface DatasetShare {
  /** The gate file's and the boards' name. */
  name: string;
  label: string;
  /** The per-case metric the share reads. */
  metric: string;
  condition: ShareCondition;
  description: string;
}

export const DATASET_SHARES = {
  hallucination_rate: {
    name: "hallucination_rate",
    label: "Hallucination rate",
    metric: METRIC.faithfulness,
    condition: "below_one",
    description: "answers with a statement the context does not support (faithfulness below 1, seed §五.1) / answers with a faithfulness value from an LLM judge",
  },
  permission_leak_rate: {
    name: "permission_leak_rate",
    label: "Permission leaks",
    metric: METRIC.permission_leak_rate,
    condition: "above_zero",
    description: "requests where a chunk the principal may not read reached the context or the answer / requests where that could be judged",
  },
} as const satisfies Record<string, DatasetShare>;

/** The share over the cases the caller gives (the gate gives them without the heuristic judge's verdicts). */
export function datasetShare(share: DatasetShare, cases: readonly EvaluatedCase[]): MetricValue {
  let measured = 0;
  let meeting = 0;
  for (const evaluated of cases) {
    const value = metricValueOf(evaluated, share.metric);
    if (value === null) continue;
    measured += 1;
    if (SHARE_CONDITIONS[share.condition].holds(value)) meeting += 1;
  }
  return measured === 0 ? notApplicable(`no case has a value for ${share.metric}`) : applicable(meeting / measured);
}

/**
 * A stored metric value of the heuristic judge, in SQL over metric_values:
 * a judge's result (evaluator `judge.<metric>`) whose evaluator_version names
 * a heuristic judge last (judge/judge-evaluations.ts writes
 * `<prompt version>+<judge id>` and ends it with `+heuristic` for every judge
 * with heuristic confidence, as case-verdict.ts isHeuristicJudgement reads it).
 */
export const HEURISTIC_JUDGE_VERSION_SUFFIX = "+heuristic";
export const HEURISTIC_JUDGE_ROW_SQL = `(startsWith(evaluator_id, 'judge.') AND endsWith(evaluator_version, '${HEURISTIC_JUDGE_VERSION_SUFFIX}'))`;
