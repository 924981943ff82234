/**
 * Stability over repeats (seed 004 §七 稳定性): per case, the pairwise
 * agreement of its normalised answers (share of repeat pairs with the same
 * answer after lower-casing, removing punctuation and collapsing white space),
 * whether its verdict changed, and the spread (max − min) of each metric over
 * the repeats — quality metrics only: latency, tokens and cost (the
 * engineering layer) vary between any two runs and are not instability of
 * the answer. A case is unstable when answers or verdicts differ, or a
 * metric's spread is above zero.
 */
import type { EvalCase } from "../contracts/eval-case.js";
import type { EvaluatedCase } from "../evaluators/aggregate/index.js";
import type { CaseRun } from "./run-case.js";
import { layerOfEvaluator } from "./metric-layers.js";

export interface CaseConsistency {
  caseId: string;
  caseVersion: string;
  /** 1 when every repeat gave the same normalised answer; failed repeats count as the answer "(failed)". */
  answerAgreement: number;
  verdicts: string[];
  /** Metrics whose value differed between repeats, with the spread. */
  metricSpread: { metric: string; spread: number }[];
  unstable: boolean;
}

export function normaliseAnswer(answer: string | null): string {
  if (answer === null) return "(failed)";
  return answer.normalize("NFKC").toLowerCase().replace(/[\p{P}\p{S}]/gu, "").replace(/\s+/gu, " ").trim();
}

export function pairwiseAgreement(values: readonly string[]): number {
  let pairs = 0;
  let equal = 0;
  for (let left = 0; left < values.length; left += 1) {
    for (let right = left + 1; right < values.length; right += 1) {
      pairs += 1;
      if (values[left] === values[right]) equal += 1;
    }
  }
  return pairs === 0 ? 1 : equal / pairs;
}

export function answerConsistency(cases: readonly EvalCase[], caseRuns: readonly CaseRun[][], repeats: readonly EvaluatedCase[][]): CaseConsistency[] {
  return cases.map((evalCase, index) => {
    const key = (evaluated: EvaluatedCase) => evaluated.caseResult.case_id === evalCase.case_id && evaluated.caseResult.case_version === evalCase.case_version;
    const answers = caseRuns.map((runs) => normaliseAnswer(runs[index]?.answer ?? null));
    const stored = repeats.map((run) => run.find(key) ?? null);
    const verdicts = stored.map((item) => item?.caseResult.quality_status ?? "missing");
    const values = new Map<string, number[]>();
    for (const item of stored) {
      for (const result of (item?.evaluationResults ?? []).filter((evaluation) => layerOfEvaluator(evaluation.evaluator_id) !== "engineering")) {
        for (const [metric, value] of Object.entries(result.metric_values)) if (value !== null && Number.isFinite(value)) values.set(metric, [...(values.get(metric) ?? []), value]);
      }
    }
    const metricSpread = [...values.entries()]
      .map(([metric, list]) => ({ metric, spread: Math.max(...list) - Math.min(...list) }))
      .filter((entry) => entry.spread > 0)
      .sort((left, right) => left.metric.localeCompare(right.metric));
    const answerAgreement = pairwiseAgreement(answers);
    return {
      caseId: evalCase.case_id,
      caseVersion: evalCase.case_version,
      answerAgreement,
      verdicts,
      metricSpread,
      unstable: answerAgreement < 1 || new Set(verdicts).size > 1 || metricSpread.length > 0,
    };
  });
}
