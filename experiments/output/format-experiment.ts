/** The terminal report of an experiment: per-case table, per-metric summary by layer, repeats, comparison, gate decision. */
import { finiteMean } from "../../core/finite-mean.js";
import { GATE_RULE_SYMBOL, gateHeadline, IMPLIED_SECTION, type GateRuleResult } from "../../evaluators/gates/release-gate.js";
import { formatJudgeCallSummary } from "../../evaluators/judge/judge-evaluations.js";
import { isJudgeUsageMetric } from "../../evaluators/judge/judge-usage-metrics.js";
// Measured values keep two significant digits where four decimals would write them as 0 (a cost of 0.00001), as the report and the web UI print them.
import { measuredNumber as number, rounded } from "../../report/format-value.js";
import type { MetricValue } from "../../evaluators/metric-value.js";
import { metricValueOf, semanticsOfMetricValue } from "../../evaluators/aggregate/index.js";
import { isHeuristicReading, labelOfMetric, labelOfMetricValues } from "../../evaluators/metric-catalog.js";
import { withoutHeuristicJudgements } from "../../evaluators/aggregate/without-heuristic-judgements.js";
import type { ExperimentResult } from "../run-experiment.js";
import { caseRows } from "./case-rows.js";
import { layerOfEvaluator } from "../metric-layers.js";
import { CASE_PASSED, heuristicPairsLabel } from "../compare/compare-runs.js";
import { datasetMix, formatMix } from "../../collector/wiring/dataset/dataset-mix.js";
import { describeVetoedCases } from "../../evaluators/gates/veto-cases.js";
import { describeRepeatDecisions, gateDecision } from "../../evaluators/gates/gate-decision.js";


export function formatExperiment(result: ExperimentResult): string[] {
  const lines: string[] = [];
  const rows = caseRows(result.evaluated);
  const count = (status: string) => rows.filter((row) => row.qualityStatus === status).length;
  const repeatOne = result.runIds.length > 1 ? ` (repeat 1 of ${result.runIds.length}; every repeat's gate is below)` : "";
  lines.push(`Run ${result.runId}${repeatOne}: ${result.interruption ? `${rows.length} of ${result.interruption.plannedCases} cases (interrupted)` : `${rows.length} cases`} — ${count("passed")} passed, ${count("failed")} failed, ${count("review_required")} need review, ${count("unjudged")} unjudged, ${count("not_evaluated")} not evaluated; ${rows.filter((row) => row.executionStatus === "failed").length} task failures`);
  lines.push("", "Cases:");
  for (const row of rows) {
    lines.push(`  ${row.qualityStatus.toUpperCase().padEnd(15)} ${row.caseId}@${row.caseVersion}${row.error && row.executionStatus === "failed" ? `  task ${row.error.type}: ${row.error.message ?? ""}` : ""}`);
    if (row.rootCause) lines.push(`      root cause: ${row.rootCause}`);
    for (const failed of row.failed) lines.push(`      [${failed.evaluatorId}] ${failed.reason}`);
  }

  // heuristicValues: how many values are a heuristic rule's readings, as each result recorded it — answer.abstention's
  // from the trace's own flag are not, so the label says "(heuristic)" only of the values that are.
  const metrics = new Map<string, { layer: string; values: number[]; heuristicValues: number }>();
  for (const item of result.evaluated) {
    for (const evaluation of item.evaluationResults) {
      for (const metric of Object.keys(evaluation.metric_values)) {
        if (!metrics.has(metric)) metrics.set(metric, { layer: layerOfEvaluator(evaluation.evaluator_id), values: [], heuristicValues: 0 });
      }
    }
  }
  // How many of each metric's values only the heuristic judge gave: shown as such, as the UI and report label them,
  // since the gate leaves them out (a heuristic is a measurement, never a pass).
  const judged = withoutHeuristicJudgements(result.evaluated);
  const heuristic = new Map<string, number>();
  for (const [metric, entry] of metrics) {
    for (const item of result.evaluated) {
      const value = metricValueOf(item, metric);
      if (value === null) continue;
      entry.values.push(value);
      if (isHeuristicReading(metric, semanticsOfMetricValue(item, metric) ?? "heuristic")) entry.heuristicValues += 1;
    }
    const fromJudges = judged.filter((item) => metricValueOf(item, metric) !== null).length;
    if (fromJudges < entry.values.length) heuristic.set(metric, entry.values.length - fromJudges);
  }
  lines.push("", "Metrics by layer (mean over the cases where the metric applies):");
  const layers = [...new Set([...metrics.values()].map((entry) => entry.layer))].sort();
  for (const layer of layers) {
    lines.push(`  ${layer}`);
    for (const [metric, entry] of [...metrics.entries()].filter(([, value]) => value.layer === layer).sort(([left], [right]) => left.localeCompare(right))) {
      const mean = entry.values.length === 0 ? "n/a" : rounded(finiteMean(entry.values), 4);
      const fromHeuristic = heuristic.get(metric);
      const usage = isJudgeUsageMetric(metric) ? "  (a case's judge calls together)" : "";
      const label = `${usage}${fromHeuristic === undefined ? "" : `  (${fromHeuristic === entry.values.length ? "all" : fromHeuristic} from the heuristic judge: a measurement, never a pass)`}`;
      // A heuristic rule's metric is named so (metric-catalog.ts) when its values are the heuristic's readings.
      lines.push(`    ${labelOfMetricValues(metric, { values: entry.values.length, heuristicValues: entry.heuristicValues }).padEnd(40)} ${mean.padStart(8)}  n=${entry.values.length}${label}`);
    }
  }

  if (result.consistency) {
    const unstable = result.consistency.filter((item) => item.unstable);
    const overall = result.consistency.reduce((sum, item) => sum + item.answerAgreement, 0) / result.consistency.length;
    lines.push("", `Stability over ${result.runIds.length} repeats: answer agreement ${rounded(overall, 4)} overall; ${unstable.length} unstable case${unstable.length === 1 ? "" : "s"}`);
    for (const item of unstable) {
      lines.push(`  UNSTABLE ${item.caseId}@${item.caseVersion}: answer agreement ${rounded(item.answerAgreement, 4)}; verdicts ${item.verdicts.join(", ")}${item.metricSpread.length ? `; spread ${item.metricSpread.map((entry) => `${entry.metric} ${number(entry.spread)}`).join(", ")}` : ""}`);
    }
  }

  if (result.comparison) {
    const comparison = result.comparison;
    const unpaired = comparison.candidateOnly.length + comparison.baselineOnly.length === 0 ? "" : `; left out: ${comparison.candidateOnly.length} only in this run, ${comparison.baselineOnly.length} only in the baseline — see the note below`;
    lines.push("", `Compared with baseline ${comparison.baselineRunId} (${comparison.pairedCases} cases in both${unpaired}):`);
    lines.push(`  regressed (passed before, not now): ${comparison.regressed.length ? comparison.regressed.join(", ") : "none"}`);
    lines.push(`  fixed (not passed before, passed now): ${comparison.fixed.length ? comparison.fixed.join(", ") : "none"}`);
    lines.push(`  exact McNemar test: p = ${comparison.mcnemar.pValue.toPrecision(4)} (${comparison.mcnemar.baselineOnly} vs ${comparison.mcnemar.candidateOnly} flips)`);
    lines.push(`  metric differences (this run − baseline, ${Math.round((comparison.metrics[0]?.interval.level ?? 0.95) * 100)}% paired bootstrap interval):`);
    for (const metric of comparison.metrics) {
      if (metric.metric !== CASE_PASSED && metric.interval.meanDifference === 0 && metric.interval.low === 0 && metric.interval.high === 0) continue;
      const interval = metric.intervalWithheld === null ? `[${rounded(metric.interval.low, 4)}, ${rounded(metric.interval.high, 4)}]  n=${metric.interval.pairs}` : `(${metric.intervalWithheld})`;
      const heuristic = heuristicPairsLabel(metric);
      lines.push(`    ${labelOfMetric(metric.metric).padEnd(40)} ${rounded(metric.interval.meanDifference, 4).padStart(8)}  ${interval}${heuristic === null ? "" : `  (${heuristic})`}`);
    }
  }

  lines.push("", ...formatEndToEnd(result));
  // The cases run against the seed's recommended mix (004 §二.2), as `ragscope validate --stats` shows it.
  lines.push("", ...formatMix(datasetMix(result.cases)).map((line) => line.slice(2)));

  lines.push("");
  if (result.judge) lines.push(formatJudgeCallSummary(result.judge));
  if (result.gate) {
    lines.push(`Release gate${result.repeatGates.length > 0 ? ` (repeat 1, run ${result.runId})` : ""}: ${gateHeadline(result.gate)}`);
    for (const item of result.gate.rules) lines.push(gateRuleLine(item));
  }
  if (result.vetoed.length > 0) lines.push(describeVetoedCases(result.vetoed));
  for (const repeat of result.repeatGates) {
    // The rules each further repeat did not pass; the ones it passed are repeat 1's list again.
    lines.push(`Release gate (repeat ${repeat.repeat}, run ${repeat.runId}): ${gateHeadline(repeat.gate)}`);
    for (const item of repeat.gate.rules) if (item.status !== "passed") lines.push(gateRuleLine(item));
    if (repeat.vetoed.length > 0) lines.push(describeVetoedCases(repeat.vetoed));
  }
  for (const problem of result.problems) lines.push(`Could not decide: ${problem}`);
  for (const note of result.notes) lines.push(`Note: ${note}`);
  lines.push(`Decision: ${result.decision.toUpperCase()}${decisionBasis(result)}`);
  lines.push(`Stored in ${result.storedIn}`);
  return lines;
}

function gateRuleLine(item: GateRuleResult): string {
  return `  ${GATE_RULE_SYMBOL[item.status]}  ${`${item.rule.section}.${item.rule.metric}`.padEnd(40)} ${(item.value === null ? "—" : number(item.value)).padStart(10)}  ${item.rule.threshold}${item.status === "not_available" || item.status === "error" || item.rule.section === IMPLIED_SECTION ? `  (${item.reason})` : item.basis !== undefined ? `  (${item.basis})` : ""}`;
}

/** What the decision stands on, where the gate's own headline alone would mislead: the run's problems, or the repeats. */
function decisionBasis(result: ExperimentResult): string {
  // The gate's headline said BLOCKED (or PASSED) above: the run's problems, not its rules, made it undecided.
  if (result.problems.length > 0 && result.gate !== null && !result.gate.undecided) return ` (the gate's rules read ${result.gate.passed ? "PASSED" : "BLOCKED"}, but the problems above leave the run undecided)`;
  if (result.repeatGates.length === 0 || result.gate === null) return "";
  // Repeat 1 counted too: its block read "every repeat passed" when only the others had.
  return describeRepeatDecisions([{ repeat: 1, decision: gateDecision(result.gate, result.vetoed) }, ...result.repeatGates]);
}

const shown = (value: MetricValue) => (value.applicable ? rounded(value.value, 4) : "n/a");

/** Seed §六 / §七: task success, the weighted overall score beside its hard thresholds, cost per successful task. */
function formatEndToEnd(result: ExperimentResult): string[] {
  const { taskSuccess, quality, overallScoreForDecision, overallScoreErrors, weightsFrom, totalCost, costPerSuccessfulTask } = result.endToEnd;
  // A renormalised score, or one averaging a term that errored on some case, is shown as such beside the PASS lines
  // below, never read as one of them.
  const scoreNote =
    overallScoreErrors !== null
      ? `ERROR for a decision: ${overallScoreErrors.reason}`
      : !quality.composite.score.applicable
        ? quality.composite.score.reason
        : overallScoreForDecision.applicable
          ? quality.composite.note
          : `NOT MEASURED for a decision: ${overallScoreForDecision.reason}`;
  const left = taskSuccess.notEvaluated > 0 ? `; ${taskSuccess.notEvaluated} without a verdict left out (${taskSuccess.unjudged} unjudged)` : "";
  const weights = quality.composite.terms.map((term) => `${term.term} ${rounded(term.weight, 2)}`).join(" + ");
  const lines = [
    "End-to-end (seed §六, §七):",
    `  task success rate              ${shown(taskSuccess.rate).padStart(8)}  (${taskSuccess.succeeded} of ${taskSuccess.judged} tasks with a verdict succeeded${left})`,
    `  overall score                  ${shown(quality.composite.score).padStart(8)}  ${weights} (${weightsFrom}); ${scoreNote}`,
    "  hard thresholds (the overall score is never read without them):",
  ];
  const symbol = { pass: "PASS", fail: "FAIL", not_available: "N/A ", error: "ERROR" } as const;
  for (const gate of quality.gates) lines.push(`    ${symbol[gate.status]}  ${gate.gate.padEnd(24)} ${(gate.value.applicable ? number(gate.value.value) : "—").padStart(10)}  ${gate.threshold}${!gate.value.applicable ? `  (${gate.value.reason})` : gate.note !== undefined ? `  (${gate.note})` : ""}`);
  const tasks = `${taskSuccess.succeeded} successful task${taskSuccess.succeeded === 1 ? "" : "s"}`;
  const costBasis = !costPerSuccessfulTask.applicable
    ? costPerSuccessfulTask.reason
    : totalCost.applicable
      ? `total cost ${shown(totalCost)} / ${tasks}`
      : `total cost / ${tasks}, each cost divided first: ${totalCost.reason}`;
  lines.push(`  cost per successful task       ${shown(costPerSuccessfulTask).padStart(8)}  (${costBasis})`);
  return lines;
}
