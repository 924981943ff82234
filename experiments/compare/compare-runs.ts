/**
 * A run against a baseline run, case by case (cases paired by case_id and
 * case_version): per metric the mean difference with a paired bootstrap
 * interval over the cases measured in both; the cases whose verdict flipped
 * each way, with the exact McNemar test; `case_passed` (1 when the case's
 * verdict is passed, else 0) is compared like a metric.
 */
import { finiteMean } from "../../core/finite-mean.js";
import { metricValueOf, pairCases, pairedCaseKey, withoutHeuristicJudgements, type EvaluatedCase } from "../../evaluators/aggregate/index.js";
import { exactMcNemar, type McNemarResult } from "./exact-mcnemar.js";
import { pairedBootstrap, type BootstrapInterval, type BootstrapOptions } from "./paired-bootstrap.js";

export interface MetricComparison {
  metric: string;
  candidateMean: number;
  baselineMean: number;
  interval: BootstrapInterval;
  /** Why the interval is not to be shown (too few cases measured in both runs), or null. */
  intervalWithheld: string | null;
  /**
   * Of the pairs compared, those where either run's value came from the heuristic judge only (the embedded
   * stand-in when no LLM judge is configured): a difference of measurements, shown as such, never a pass.
   */
  heuristicPairs: number;
}

/**
 * Fewer cases measured in both runs than this, and the interval is withheld. A percentile bootstrap of a mean
 * resamples the cases it has, so over few cases it is too narrow: for normally distributed differences its
 * "95 %" interval held the true difference in about 90 % of 2,000 simulated comparisons of 10 cases, 85 % of
 * 5 and 74 % of 3 (20 cases: 95 %). Shown, such an interval claims a certainty the run does not have.
 */
export const MINIMUM_PAIRS_FOR_INTERVAL = 10;

export function intervalWithheldReason(pairs: number): string | null {
  return pairs >= MINIMUM_PAIRS_FOR_INTERVAL ? null : `no interval: ${pairs} case${pairs === 1 ? "" : "s"} measured in both runs, fewer than ${MINIMUM_PAIRS_FOR_INTERVAL} (a bootstrap interval over so few is narrower than the level it claims)`;
}

export interface RunComparison {
  baselineRunId: string;
  pairedCases: number;
  /** Passed in the baseline, not passed now. */
  regressed: string[];
  /** Not passed in the baseline, passed now. */
  fixed: string[];
  mcnemar: McNemarResult;
  metrics: MetricComparison[];
  /** `case_id@case_version` of the cases only this run ran, and only the baseline: left out of the comparison. */
  candidateOnly: string[];
  baselineOnly: string[];
}

export const CASE_PASSED = "case_passed";

const passed = (evaluated: EvaluatedCase) => evaluated.caseResult.quality_status === "passed";

export function compareRuns(candidate: readonly EvaluatedCase[], baseline: readonly EvaluatedCase[], baselineRunId: string, options: BootstrapOptions = {}): RunComparison {
  const baselineByKey = new Map(baseline.map((evaluated) => [pairedCaseKey(evaluated), evaluated]));
  const pairs = candidate.flatMap((evaluated) => {
    const before = baselineByKey.get(pairedCaseKey(evaluated));
    return before ? [{ key: evaluated.caseResult.case_id, now: evaluated, before }] : [];
  });
  // Each side as a pass decision reads it: a value present here only without the heuristic judge's results removed is the heuristic's.
  const judged = new Map(pairs.flatMap((pair) => [pair.now, pair.before]).map((evaluated) => [evaluated, withoutHeuristicJudgements([evaluated])[0]!]));
  const regressed = pairs.filter((pair) => passed(pair.before) && !passed(pair.now)).map((pair) => pair.key);
  const fixed = pairs.filter((pair) => !passed(pair.before) && passed(pair.now)).map((pair) => pair.key);
  const metricNames = new Set<string>();
  for (const pair of pairs) for (const side of [pair.now, pair.before]) for (const result of side.evaluationResults) for (const name of Object.keys(result.metric_values)) metricNames.add(name);
  const metrics: MetricComparison[] = [];
  const compare = (metric: string, valueOf: (evaluated: EvaluatedCase) => number | null) => {
    const now: number[] = [];
    const before: number[] = [];
    let heuristicPairs = 0;
    for (const pair of pairs) {
      const current = valueOf(pair.now);
      const previous = valueOf(pair.before);
      if (current === null || previous === null) continue;
      now.push(current);
      before.push(previous);
      if (valueOf(judged.get(pair.now)!) === null || valueOf(judged.get(pair.before)!) === null) heuristicPairs += 1;
    }
    const interval = pairedBootstrap(now, before, options);
    if (interval === null) return;
    metrics.push({ metric, candidateMean: finiteMean(now), baselineMean: finiteMean(before), interval, intervalWithheld: intervalWithheldReason(interval.pairs), heuristicPairs });
  };
  compare(CASE_PASSED, (evaluated) => (passed(evaluated) ? 1 : 0));
  for (const metric of [...metricNames].sort()) compare(metric, (evaluated) => metricValueOf(evaluated, metric));
  const { candidateOnly, baselineOnly } = pairCases(candidate, baseline);
  return { baselineRunId, pairedCases: pairs.length, regressed, fixed, mcnemar: exactMcNemar(regressed.length, fixed.length), metrics, candidateOnly, baselineOnly };
}

/** What a comparison's row says of its heuristic pairs, or null when it has none: the same words the run's metrics use. */
export function heuristicPairsLabel(metric: MetricComparison): string | null {
  if (metric.heuristicPairs === 0) return null;
  const which = metric.heuristicPairs === metric.interval.pairs ? "all" : `${metric.heuristicPairs} of ${metric.interval.pairs} pairs`;
  return `${which} from the heuristic judge: a measurement, never a pass`;
}
