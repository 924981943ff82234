/**
 * What an alert made from a gate rule reads, and how it says so when that is
 * a heuristic (metric-catalog.ts METRIC_SEMANTICS). One answer for both kinds
 * of alert: the Grafana rules generated from the gate file
 * (dashboards/source/alert-rules.ts) and the evaluator's own alerting
 * (collector/10-alert).
 *
 * An alert is a signal, a reason to look, never a pass: unlike the release
 * gate (release-gate.ts readingOf) it may read a heuristic, but its title,
 * annotation and message label it " (heuristic)" with the catalog's own label
 * helper and say what decides instead.
 *
 * Where the gate reads a judged metric in the heuristic's place
 * (completeness → completeness_judged), the alert still reads the heuristic:
 * the rule writes it on every trace, whereas the judged metric exists only on
 * the traces a judge samples, and only when the collector's judge is enabled
 * (RAGSCOPE_JUDGE_ENABLED, off by default). An alert on the judged metric
 * would stay silent — no data is "OK" — on a default deployment and see a
 * thin sample otherwise, and the collector's judge may be the heuristic judge,
 * whose completeness_judged is no more a decision than the rule's. A silent
 * alert hides a drop; a labelled heuristic one shows it and names the judged
 * metric the gate decides on.
 *
 * A dataset-level gate metric is labelled the same way when its alert query
 * counts a heuristic's readings that the release gate does not: the Grafana
 * no_answer_accuracy rule reads the boards' measurement, where every stored
 * abstention counts, a heuristic's among them (answer.abstention: a refusal
 * phrase beside claims of the answer's own); the release gate counts those
 * in the denominator only (aggregate/no-answer-accuracy.ts, a lower bound).
 * The alert still alerts — on the same cases it reads a value no lower than
 * the gate's, so when it fires the gate would fail too — but a quiet alert is
 * no pass.
 *
 * The other two abstention rates of the boards, correct_refusal_rate and
 * false_refusal_rate, are measured the same way (every stored abstention, a
 * heuristic's among them), and a gate file may name them, so their alerts are
 * labelled too: a heuristic refusal counts among the refusals and, of an
 * answerable question, as a false one. The release gate bounds them instead
 * (aggregate/refusal-rates.ts): only refusals read exactly count in a rate's
 * favour, so on the same cases the alert reads a value no worse than the gate's.
 */
import { HEURISTIC_METRIC_LABEL_SUFFIX, isMetricName, labelOfMetric, METRIC_SEMANTICS } from "../metric-catalog.js";
import { ABSTENTION_READ_EXACTLY } from "../rules/answer-abstention.js";
import { measuredMetricOf } from "./gate-metrics.js";

/** Dataset-level gate metrics whose alert counts a heuristic's readings the release gate leaves out: the note's reason. */
const PARTLY_HEURISTIC_GATE_METRICS: Readonly<Record<string, string>> = {
  no_answer_accuracy: `the alert counts every stored abstention as the boards do, answer.abstention's heuristic ones (a refusal phrase beside claims of the answer's own) among them; the release gate counts only abstentions read exactly (a heuristic one stays in its denominator, never its numerator: a lower bound), so it may fail where this alert stays quiet — ${ABSTENTION_READ_EXACTLY}`,
  correct_refusal_rate: `the alert counts every stored abstention as the boards do, answer.abstention's heuristic ones (a refusal phrase beside claims of the answer's own) among them, in the refusals and in the correct ones; the release gate credits only refusals read exactly and counts an answerable case read only by a heuristic as a false refusal (a lower bound), so it may fail where this alert stays quiet — ${ABSTENTION_READ_EXACTLY}`,
  false_refusal_rate: `the alert counts every stored abstention as the boards do, answer.abstention's heuristic ones (a refusal phrase beside claims of the answer's own) among them, so a heuristic refusal of an answerable question counts as a false refusal; the release gate also counts as one an answerable case whose answer only a heuristic read as answering (no refusal phrase found: an upper bound), so it may fail where this alert stays quiet — ${ABSTENTION_READ_EXACTLY}`,
};

export interface AlertMetricReading {
  /** The per-case metric the alert reads. */
  measured: string;
  heuristic: boolean;
  /** The gate metric's name as an alert shows it: with " (heuristic)" when it reads a heuristic. */
  label: string;
  /** For a heuristic: that it is a signal, not a pass, and what decides instead; null otherwise. */
  note: string | null;
}

export function alertMetricReading(gateMetric: string): AlertMetricReading {
  const measured = measuredMetricOf(gateMetric);
  const partly = Object.hasOwn(PARTLY_HEURISTIC_GATE_METRICS, gateMetric) ? PARTLY_HEURISTIC_GATE_METRICS[gateMetric] : undefined;
  if (partly !== undefined) return { measured, heuristic: true, label: `${gateMetric}${HEURISTIC_METRIC_LABEL_SUFFIX}`, note: `${gateMetric} counts a heuristic's readings: a signal to look at the traces, not a pass — ${partly}` };
  const label = labelOfMetric(measured, gateMetric);
  if (!isMetricName(measured) || METRIC_SEMANTICS[measured].semantics !== "heuristic") return { measured, heuristic: false, label, note: null };
  const entry = METRIC_SEMANTICS[measured];
  const decides =
    entry.ruleInSeed !== undefined
      ? `the seed defines it as a rule metric (${entry.ruleInSeed}), so the release gate decides on it`
      : entry.judgedAs !== undefined
        ? `the release gate reads ${entry.judgedAs}, an LLM judge's, instead; this alert reads the heuristic, written on every trace, as ${entry.judgedAs} exists only on the traces a configured judge samples`
        : `the release gate does not decide on it${entry.decideWith === undefined ? "" : ` (${entry.decideWith})`}`;
  return { measured, heuristic: true, label, note: `${measured} is a heuristic (${entry.evaluatorId}): a signal to look at the traces, not a pass — ${decides}` };
}
