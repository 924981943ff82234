/**
 * Grafana alert rules from the gate file, in Grafana's file-provisioning
 * format (interop.md §7 "Alert rule file provisioning"): one rule group per
 * gate section, one rule per metric, one alert instance per service.
 *
 * Each rule is three queries:
 *   A  the metric's aggregate (gate-metrics.ts) over the last `window` of
 *      traffic, per service, as one point; a service with fewer than
 *      `min_samples` samples returns no row, so thin traffic stays silent
 *      (noDataState OK) instead of firing on noise;
 *   B  reduce A to a number;
 *   C  a math expression true when the gate is broken: the negation of the
 *      gate's comparison (">= 0.9" fires on `$B < 0.9`).
 * Gates that compare a run with its baseline are release-gate only and are
 * listed as skipped. A rule on a heuristic metric alerts — an alert is a
 * signal, not a pass — but its title, label and annotations say it is a
 * heuristic's and what decides instead (evaluators/gates/alert-metric-reading.ts,
 * which also says why completeness alerts read the heuristic, not completeness_judged).
 */
import { createHash } from "node:crypto";
import type { GateRule } from "../../contracts/gate-file.js";
import { alertMetricReading } from "../../evaluators/gates/alert-metric-reading.js";
import { parseThreshold, type Comparator } from "../../evaluators/threshold.js";
import { aggregateSelect } from "./aggregate-metrics.js";
import { FORMAT_CODES } from "./clickhouse-query.js";
import { CLICKHOUSE_DATASOURCE, CLICKHOUSE_PLUGIN_VERSION } from "./datasource.js";
import { resolveGateMetric } from "./gate-metrics.js";
import { alertScope } from "./sql-scope.js";

export interface AlertDefaults {
  window: string;
  minSamples: number;
  /** How long a gate must stay broken before the alert fires. */
  pendingFor: string;
  /** How often the rule groups are evaluated. */
  interval: string;
  /** Folder title the rules are filed under. */
  folder: string;
}

export const DEFAULT_ALERT_OPTIONS: AlertDefaults = { window: "15m", minSamples: 20, pendingFor: "5m", interval: "1m", folder: "ragscope" };

/** The comparison that means "the gate is broken", for each gate comparator. */
export const BROKEN_WHEN: Record<Comparator, string> = { ">=": "<", "<=": ">", ">": "<=", "<": ">=", "=": "!=", "!=": "==" };

const EXPRESSION_DATASOURCE = { type: "__expr__", uid: "__expr__" };

export interface SkippedGate {
  section: string;
  metric: string;
  reason: string;
}

export interface AlertRulesFile {
  document: { apiVersion: 1; groups: unknown[] };
  skipped: SkippedGate[];
}

export function windowSeconds(window: string): number {
  const match = /^(\d+)(s|m|h|d)$/.exec(window);
  if (!match) throw new Error(`not a window duration: ${window}`);
  const factor = { s: 1, m: 60, h: 3_600, d: 86_400 }[match[2] as "s" | "m" | "h" | "d"];
  return Number(match[1]) * factor;
}

/** Grafana rule uids are at most 40 characters. */
export function ruleUid(metric: string): string {
  const uid = `ragscope-gate-${metric.replaceAll("_", "-")}`;
  if (uid.length <= 40) return uid;
  return `${uid.slice(0, 31)}-${createHash("sha256").update(metric).digest("hex").slice(0, 8)}`;
}

/** The SQL of query A for one gate rule. */
export function gateRuleSql(rule: GateRule, minSamples: number): string | null {
  const resolution = resolveGateMetric(rule.metric);
  if (resolution.kind !== "aggregate") return null;
  return aggregateSelect([{ ...resolution.aggregate, label: "Value" }], {
    leading: ["$__toTime AS time", "service_name"],
    scope: alertScope,
    groupBy: "service_name",
    having: `${resolution.aggregate.samples} >= ${minSamples}`,
    orderBy: "service_name",
  });
}

export function alertRulesFile(rules: readonly GateRule[], defaults: AlertDefaults = DEFAULT_ALERT_OPTIONS): AlertRulesFile {
  const skipped: SkippedGate[] = [];
  const groups = new Map<string, unknown[]>();
  for (const rule of rules) {
    const threshold = parseThreshold(rule.threshold);
    if (!threshold.ok) throw new Error(`gate ${rule.section}.${rule.metric}: ${threshold.error}`);
    const minSamples = rule.minSamples ?? defaults.minSamples;
    const sql = gateRuleSql(rule, minSamples);
    if (sql === null) {
      const resolution = resolveGateMetric(rule.metric);
      skipped.push({ section: rule.section, metric: rule.metric, reason: resolution.kind === "release_gate_only" ? resolution.reason : "no aggregate" });
      continue;
    }
    const window = rule.window ?? defaults.window;
    const broken = `$B ${BROKEN_WHEN[threshold.value.comparator]} ${threshold.value.value}`;
    const reading = alertMetricReading(rule.metric);
    const list = groups.get(rule.section) ?? [];
    list.push({
      uid: ruleUid(rule.metric),
      title: `${reading.label} ${threshold.value.source} (${rule.section} gate)`,
      condition: "C",
      data: [
        {
          refId: "A",
          datasourceUid: CLICKHOUSE_DATASOURCE.uid,
          relativeTimeRange: { from: windowSeconds(window), to: 0 },
          model: { refId: "A", datasource: { ...CLICKHOUSE_DATASOURCE }, editorType: "sql", format: FORMAT_CODES.time_series, pluginVersion: CLICKHOUSE_PLUGIN_VERSION, rawSql: sql },
        },
        {
          refId: "B",
          datasourceUid: EXPRESSION_DATASOURCE.uid,
          model: { refId: "B", type: "reduce", expression: "A", reducer: "last", settings: { mode: "dropNN" }, datasource: { ...EXPRESSION_DATASOURCE } },
        },
        {
          refId: "C",
          datasourceUid: EXPRESSION_DATASOURCE.uid,
          model: { refId: "C", type: "math", expression: broken, datasource: { ...EXPRESSION_DATASOURCE } },
        },
      ],
      for: defaults.pendingFor,
      noDataState: "OK",
      execErrState: "Error",
      // semantics=heuristic lets a notification policy route a heuristic's alerts apart; only those carry it.
      labels: { source: "ragscope-gate", section: rule.section, metric: rule.metric, ...(reading.heuristic ? { semantics: "heuristic" } : {}) },
      // No `$` here: provisioning interpolates environment variables in every field but `model` (interop.md §7).
      annotations: {
        summary: `{{ .Labels.service_name }}: ${reading.label} = {{ .Values.B.Value }} breaks the gate ${threshold.value.source}`,
        description: `Gate ${rule.section}.${rule.metric} ${threshold.value.source} over the last ${window} (at least ${minSamples} samples per service), from the gate file.${reading.note === null ? "" : ` ${reading.note}.`}`,
      },
    });
    groups.set(rule.section, list);
  }
  return {
    document: {
      apiVersion: 1,
      groups: [...groups.entries()].map(([section, sectionRules]) => ({ orgId: 1, name: `ragscope-${section}`, folder: defaults.folder, interval: defaults.interval, rules: sectionRules })),
    },
    skipped,
  };
}
