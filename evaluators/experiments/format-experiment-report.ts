/** The experiment report as plain text lines for the terminal (`ragscope experiment report`); the UI page shows its numbers with the same formatting. */
import { EARLY_HARM_P_VALUE, type ExperimentReport, type MetricReport, type VariantComparison } from "./experiment-report.js";
import { LINEAGE_NOT_ON_TRACES } from "./lineage-differences.js";
import { labelOfReportedMetric } from "./judged-values.js";
import { pValueText } from "./p-value-text.js";
import { rounded } from "../../report/format-value.js";

export const VERDICT_WORDS = {
  better: "better",
  worse: "worse",
  changed: "changed (direction not judged)",
  no_difference: "no significant difference",
  not_enough_data: "not enough data",
  untrustworthy: "not trustworthy (sample ratio mismatch)",
  heuristic_not_decided: "not decided (heuristic)",
} as const;

/** A comparison's verdict in words: how it was reached when that matters (early for harm, or what a heuristic's numbers alone say). */
export function verdictWords(item: VariantComparison): string {
  if (item.verdict === "heuristic_not_decided") return `${VERDICT_WORDS.heuristic_not_decided}; its numbers alone: ${VERDICT_WORDS[item.indication]}`;
  if (item.decidedEarly) return `${VERDICT_WORDS[item.verdict]} (early: p < ${EARLY_HARM_P_VALUE} before the planned sample)`;
  return VERDICT_WORDS[item.verdict];
}

export function number(value: number | null): string {
  if (value === null || !Number.isFinite(value)) return "—";
  // A value four decimals would write as 0 (a cost of 0.0000217) keeps two significant digits, as the report prints it.
  return Math.abs(value) >= 100 ? value.toFixed(1) : rounded(value, 4);
}

export function signed(value: number): string {
  return `${value >= 0 ? "+" : ""}${number(value)}`;
}

export function pValue(value: number | null): string {
  if (value === null) return "p n/a (bootstrap)";
  return pValueText(value);
}

function metricLines(metric: MetricReport, confidencePercent: number): string[] {
  const values = metric.values.map((item) => `${item.variant} ${number(item.value)} (n ${item.observations})`).join(" · ");
  // The same label every surface gives a heuristic rule or the heuristic judge's measurement (judged-values.ts).
  const lines = [`  ${labelOfReportedMetric(metric.metric, metric.heuristicJudge)} [${metric.source}, ${metric.kind}]: ${values}`];
  for (const item of metric.comparisons) {
    const comparison = item.comparison;
    const detail =
      comparison === null
        ? (item.note ?? "no comparison")
        : `${signed(comparison.difference)} [${signed(comparison.lower)}, ${signed(comparison.upper)}] ${confidencePercent} % CI, ${pValue(comparison.pValue)} (${comparison.method}${item.requiredObservations === null ? "" : `; needs ${item.requiredObservations} per arm`})`;
    lines.push(`    ${item.variant} − control: ${detail} → ${verdictWords(item)}`);
  }
  if (metric.caution !== null) lines.push(`    note: ${metric.caution}`);
  return lines;
}

export function formatExperimentReport(report: ExperimentReport): string[] {
  const confidencePercent = Math.round((1 - report.alpha) * 100);
  const lines: string[] = [
    `Experiment ${report.experimentId} — control ${report.control}, unit ${report.unit}, α ${report.alpha}, power ${report.power}, minimum effect ${Math.round(report.minimumEffect * 100)} % of the control's value`,
    "",
    "Traffic",
    ...report.traffic.map((item) => `  ${item.variant}: ${item.requests} requests, ${item.units} ${report.unit}s, ${item.sessions} sessions`),
  ];
  if (report.sampleRatio !== null) {
    lines.push(
      `  sample ratio: chi-square ${report.sampleRatio.chiSquare.toFixed(3)}, p=${report.sampleRatio.pValue < 0.0001 ? report.sampleRatio.pValue.toExponential(2) : report.sampleRatio.pValue.toFixed(4)} — ${report.sampleRatio.mismatch ? "MISMATCH (p < 0.001)" : "ok"}`,
    );
  }
  if (report.metrics.length > 0) {
    lines.push("", `Metrics (variant − control, ${confidencePercent} % confidence interval, two-sided p-value)`);
    for (const metric of report.metrics) lines.push(...metricLines(metric, confidencePercent));
  }
  if (report.lineage.length > 0) {
    lines.push("", "Lineage per variant (one main variable per experiment)");
    for (const field of report.lineage) lines.push(`  ${field.field}: ${Object.entries(field.values).map(([variant, values]) => `${variant} ${values.join("/")}`).join(" · ")}${field.differs ? "  ← differs" : ""}`);
    lines.push(`  not on traces, so not checked: ${LINEAGE_NOT_ON_TRACES.join(", ")}`);
  }
  if (report.warnings.length > 0) lines.push("", "Warnings", ...report.warnings.map((warning) => `  ! ${warning}`));
  lines.push("", "Decision", ...report.decisions.map((decision) => `  ${decision}`));
  return lines;
}
