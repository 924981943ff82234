/**
 * The seed's hard gates (004 §六.2), reported with every composite score:
 * Faithfulness >= 0.90, Answer Correctness >= 0.85, No-answer Accuracy >= 0.90,
 * Recall@5 >= 0.90, P95 Latency <= 5s. Each passes, fails, or is
 * not_available (no value to compare: the metric was not produced) — a gate
 * that cannot be checked is never a pass. Thresholds use the gate syntax of
 * threshold.ts.
 */
import { notApplicable, type MetricValue } from "../metric-value.js";
import { parseThreshold, satisfies } from "../threshold.js";
import { METRIC } from "../metric-catalog.js";
import { erroredFixHint, formatErrorCounts } from "./errored-evaluations.js";

/** Means of per-case metrics by their metric key, and two dataset-level aggregates (gate-metrics.ts). */
export type HardGateName = typeof METRIC.faithfulness | typeof METRIC.answer_correctness | "no_answer_accuracy" | typeof METRIC.recall_at_5 | "p95_latency_ms";

export const HARD_GATES: readonly { gate: HardGateName; threshold: string }[] = [
  { gate: METRIC.faithfulness, threshold: ">= 0.90" },
  { gate: METRIC.answer_correctness, threshold: ">= 0.85" },
  { gate: "no_answer_accuracy", threshold: ">= 0.90" },
  { gate: METRIC.recall_at_5, threshold: ">= 0.90" },
  { gate: "p95_latency_ms", threshold: "<= 5000" },
];

export interface HardGateResult {
  gate: HardGateName;
  threshold: string;
  value: MetricValue;
  /** error: the metric's evaluation errored on some case, so its mean over the rest cannot stand for the run (errored-evaluations.ts). */
  status: "pass" | "fail" | "not_available" | "error";
  /**
   * What the value left out and why, when it left something out (no_answer_accuracy: the abstentions only a heuristic
   * read, not counted — no-answer-accuracy.ts); printed beside the gate. Absent otherwise.
   */
  note?: string;
}

/** The cases whose evaluation of a gate's metric errored, by error type. */
export type ErroredByGate = Partial<Record<HardGateName, { cases: number; byType: Record<string, number>; byJudge?: boolean }>>;

export function checkHardGates(values: Partial<Record<HardGateName, MetricValue>>, errored: ErroredByGate = {}, notes: Partial<Record<HardGateName, string>> = {}): HardGateResult[] {
  return HARD_GATES.map(({ gate, threshold }) => {
    const parsed = parseThreshold(threshold);
    if (!parsed.ok) throw new Error(`hard gate ${gate}: ${parsed.error}`);
    const failures = errored[gate];
    if (failures !== undefined && failures.cases > 0) {
      return { gate, threshold, value: notApplicable(`its evaluation errored on ${failures.cases} case(s) — ${formatErrorCounts(failures.byType)}; a grader error is never a pass${erroredFixHint(failures.byJudge ?? false)}`), status: "error" };
    }
    const value = values[gate] ?? notApplicable(`no value for ${gate}`);
    const status = !value.applicable ? "not_available" : satisfies(value.value, parsed.value) ? "pass" : "fail";
    const note = notes[gate];
    return { gate, threshold, value, status, ...(note === undefined ? {} : { note }) };
  });
}
