/**
 * Alert rules from the gate file: the provisioning shape of interop.md §7,
 * conditions that fire exactly when a gate is broken, and the aggregates the
 * gate names stand for.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { GateRule } from "../../../contracts/gate-file.js";
import { parseThreshold, satisfies, type Comparator } from "../../../evaluators/threshold.js";
import { alertRulesFile, BROKEN_WHEN, DEFAULT_ALERT_OPTIONS, ruleUid, windowSeconds } from "../../../dashboards/source/alert-rules.js";
import { resolveGateMetric } from "../../../dashboards/source/gate-metrics.js";

const rule = (metric: string, threshold: string, section = "quality", options: Partial<GateRule> = {}): GateRule => ({ section, metric, threshold, window: null, minSamples: null, ...options });

/** Evaluates Grafana's math condition `$B <op> <number>` for a value of B. */
function fires(expression: string, value: number): boolean {
  const match = /^\$B (<=|>=|==|!=|<|>) (-?[\d.e-]+)$/.exec(expression);
  assert.ok(match, `unexpected condition ${expression}`);
  const limit = Number(match[2]);
  switch (match[1]) {
    case "<":
      return value < limit;
    case ">":
      return value > limit;
    case "<=":
      return value <= limit;
    case ">=":
      return value >= limit;
    case "==":
      return value === limit;
    default:
      return value !== limit;
  }
}

interface Rule {
  uid: string;
  title: string;
  condition: string;
  for: string;
  noDataState: string;
  execErrState: string;
  data: { refId: string; datasourceUid: string; relativeTimeRange?: { from: number; to: number }; model: Record<string, unknown> }[];
  annotations: Record<string, string>;
}

describe("alert rules from the gate file", () => {
  test("each rule has the fields Grafana's file provisioning requires", () => {
    const { document } = alertRulesFile([rule("recall_at_5", ">= 0.90", "retrieval"), rule("error_rate", "<= 0.01", "performance", { window: "1h", minSamples: 50 })]);
    assert.equal(document.apiVersion, 1);
    const groups = document.groups as { orgId: number; name: string; folder: string; interval: string; rules: Rule[] }[];
    assert.deepEqual(groups.map((group) => [group.name, group.folder, group.interval, group.orgId]), [["ragscope-retrieval", "ragscope", "1m", 1], ["ragscope-performance", "ragscope", "1m", 1]]);
    const performance = groups[1]!.rules[0]!;
    assert.equal(performance.uid, "ragscope-gate-error-rate");
    assert.equal(performance.condition, "C");
    assert.deepEqual(performance.data.map((query) => query.refId), ["A", "B", "C"]);
    assert.deepEqual(performance.data[0]!.relativeTimeRange, { from: 3600, to: 0 });
    assert.equal(performance.data[0]!.model.editorType, "sql");
    assert.equal(performance.data[0]!.model.format, 0);
    assert.match(String(performance.data[0]!.model.rawSql), /HAVING count\(\) >= 50$/m);
    assert.deepEqual(performance.data[1]!.model.type, "reduce");
    assert.deepEqual(performance.data[2]!.model, { refId: "C", type: "math", expression: "$B > 0.01", datasource: { type: "__expr__", uid: "__expr__" } });
    assert.equal(performance.noDataState, "OK", "too few samples is no data, never an alert");
    assert.equal(performance.for, DEFAULT_ALERT_OPTIONS.pendingFor);
    // Provisioning interpolates $VARS outside `model`: the annotations must not contain "$".
    for (const text of Object.values(performance.annotations)) assert.ok(!text.includes("$"), text);
  });

  test("a condition fires exactly when the gate's threshold is not met", () => {
    const comparators = Object.keys(BROKEN_WHEN) as Comparator[];
    for (const comparator of comparators) {
      const gate = parseThreshold(`${comparator} 0.9`);
      assert.ok(gate.ok);
      const { document } = alertRulesFile([rule("mrr", `${comparator} 0.9`)]);
      const condition = String((document.groups[0] as { rules: Rule[] }).rules[0]!.data[2]!.model.expression);
      for (const value of [0, 0.5, 0.9, 0.95, 1]) assert.equal(fires(condition, value), !satisfies(value, gate.value), `${comparator} 0.9 at ${value}: ${condition}`);
    }
  });

  test("gates comparing a run with its baseline are release-gate only", () => {
    const { document, skipped } = alertRulesFile([rule("critical_case_pass_rate", "= 1.0", "regression"), rule("overall_score_drop", "<= 0.02", "regression"), rule("mrr", ">= 0.8")]);
    assert.deepEqual(skipped.map((gate) => gate.metric), ["critical_case_pass_rate", "overall_score_drop"]);
    assert.equal(document.groups.length, 1);
  });

  test("gate names resolve to their aggregates", () => {
    const resolved = (name: string) => {
      const resolution = resolveGateMetric(name);
      assert.equal(resolution.kind, "aggregate");
      return resolution.kind === "aggregate" ? resolution.aggregate : null!;
    };
    assert.match(resolved("p95_latency_ms").value, /intDiv\(95 \* countIf\(metric = 'latency_ms' AND value IS NOT NULL\) \+ 99, 100\)/);
    assert.equal(resolved("average_cost").value, "avgIf(value, metric = 'cost' AND value IS NOT NULL)");
    assert.equal(resolved("recall_at_5").value, "avgIf(value, metric = 'recall_at_5' AND value IS NOT NULL)");
    assert.equal(resolved("no_answer_accuracy").source, "abstention");
    assert.equal(resolved("error_rate").source, "case_results");
    assert.match(resolved("hallucination_rate").value, /metric = 'faithfulness' AND value IS NOT NULL AND value < 1/);
  });

  test("uids fit Grafana's 40 characters and windows are read as durations", () => {
    assert.equal(ruleUid("mrr"), "ragscope-gate-mrr");
    const long = ruleUid("a_very_long_metric_name_for_a_gate_rule");
    assert.ok(long.length <= 40);
    assert.notEqual(long, ruleUid("a_very_long_metric_name_for_a_gate_rule_2"));
    assert.deepEqual(["30s", "15m", "1h", "1d"].map(windowSeconds), [30, 900, 3600, 86400]);
  });
});
