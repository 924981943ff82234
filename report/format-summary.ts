/** The terminal rendering of a RunSummary: averages by evaluator, then failing cases. */
import { formatFixed } from "../evaluators/format-fixed.js";
import { rounded } from "./format-value.js";
import { labelOfMetric } from "../evaluators/metric-catalog.js";
import type { RunSummary } from "../store/ports/run-reader.js";

const ROOT_CAUSE = "root_cause";

function formatNumber(value: number | null): string {
  if (value === null) return "n/a";
  // Four decimals, rounded as trec_eval prints its measures; a value they would write as 0 (a mean cost of 0.0000217)
  // keeps two significant digits, as `ragscope report`, eval and gate print it.
  if (Math.abs(value) >= 100) return formatFixed(value, 0);
  return rounded(value, 4);
}

function groupByCase(failures: RunSummary["failures"]): Map<string, RunSummary["failures"]> {
  const byCase = new Map<string, RunSummary["failures"]>();
  for (const failure of failures) byCase.set(failure.caseId, [...(byCase.get(failure.caseId) ?? []), failure]);
  return byCase;
}

export function formatSummary(summary: RunSummary, storedIn: string): string {
  const lines: string[] = [];
  const states = [
    `${summary.passed} passed`,
    `${summary.failed} failed`,
    ...(summary.reviewRequired > 0 ? [`${summary.reviewRequired} need review`] : []),
    ...(summary.unjudged > 0 ? [`${summary.unjudged} unjudged (measured, no judge: not passes)`] : []),
    ...(summary.notEvaluated > 0 ? [`${summary.notEvaluated} not evaluated`] : []),
    ...(summary.partial > 0 ? [`${summary.partial} partial traces`] : []),
  ];
  lines.push(`Run ${summary.runId}: ${summary.cases} cases — ${states.join(", ")}`);
  lines.push("");
  lines.push("Metric averages (over cases where the metric applies):");
  // A heuristic rule's metric is named so (metric-catalog.ts), as eval, the boards and the web UI name it.
  const width = Math.max(...summary.metrics.map((metric) => labelOfMetric(metric.metric).length), 10);
  let evaluator = "";
  for (const metric of summary.metrics) {
    if (metric.evaluatorId !== evaluator) {
      evaluator = metric.evaluatorId;
      lines.push(`  ${evaluator}`);
    }
    const notApplicable = metric.notApplicable > 0 ? `  (${metric.notApplicable} not applicable)` : "";
    lines.push(`    ${labelOfMetric(metric.metric).padEnd(width)}  ${formatNumber(metric.mean).padStart(8)}  n=${metric.applicable}${notApplicable}`);
  }
  // Heuristic signals (the heuristic judge, overlap measures' review rules) do not fail a case: they are listed for review only.
  const failing = summary.failures.filter((failure) => failure.caseStatus === "failed" && !failure.heuristicJudgement && !failure.reviewSignal);
  const review = summary.failures.filter((failure) => failure.heuristicJudgement || failure.reviewSignal || failure.caseStatus === "review_required");
  lines.push("");
  if (failing.length === 0) lines.push("No failing cases.");
  else {
    // One block per failing case: its primary root cause first, then each failed evaluator.
    const byCase = groupByCase(failing);
    const labels = new Map<string, number>();
    for (const failures of byCase.values()) {
      const label = failures.find((failure) => failure.evaluatorId === ROOT_CAUSE)?.reason.split(":")[0] ?? "UNATTRIBUTED";
      labels.set(label, (labels.get(label) ?? 0) + 1);
    }
    lines.push(`Root causes: ${[...labels].sort((left, right) => right[1] - left[1]).map(([label, count]) => `${label} ${count}`).join(", ")}`);
    lines.push("");
    lines.push("Failing cases:");
    for (const [caseId, failures] of byCase) {
      const rootCause = failures.find((failure) => failure.evaluatorId === ROOT_CAUSE);
      lines.push(`  ${caseId}${rootCause ? `  ${rootCause.reason}` : ""}`);
      for (const failure of failures) if (failure !== rootCause) lines.push(`      [${failure.evaluatorId}] ${failure.reason}`);
    }
  }
  if (review.length > 0) {
    lines.push("");
    lines.push("For review (heuristic signals — overlap measures, the heuristic judge — or an evaluator error; not verdicts):");
    for (const [caseId, failures] of groupByCase(review)) lines.push(`  ${caseId}  ${failures.map((failure) => failure.evaluatorId).join(", ")}`);
  }
  lines.push("");
  lines.push(`Stored in ${storedIn}`);
  return lines.join("\n");
}
