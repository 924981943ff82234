/**
 * The sliding-window alert evaluator: fires on a real drop, not on 3 unlucky
 * samples in 20, resolves on recovery with hysteresis, counts a replayed
 * trace once, and reads its rules from a gate file in the seed's format.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parse as parseYaml } from "yaml";
import { parseGateFile } from "../../../contracts/gate-file.js";
import type { AlertEvent } from "../../../collector/10-alert/alert-event.js";
import { AlertEvaluator } from "../../../collector/10-alert/alert-evaluator.js";
import { alertRulesFromGate, defaultAlertRuleDefaults, type AlertRule } from "../../../collector/10-alert/alert-rule.js";
import type { MetricSample } from "../../../collector/10-alert/metric-sample.js";
import { parseThreshold } from "../../../evaluators/threshold.js";

function threshold(expression: string) {
  const parsed = parseThreshold(expression);
  assert.ok(parsed.ok);
  return parsed.value;
}

function rule(overrides: Partial<AlertRule> = {}): AlertRule {
  return { id: "generation.faithfulness", metric: "faithfulness", threshold: threshold(">= 0.92"), windowMs: null, windowSamples: 100, minSamples: 20, confidence: 0.95, statistic: "auto", hysteresis: 0.01, maxTraceIds: 5, ...overrides };
}

let counter = 0;
function sample(value: number, metric = "faithfulness"): MetricSample {
  counter += 1;
  return { metric, value, caseResultId: `cr_${counter}`, traceId: `trace_${counter}`, serviceName: null, tenantId: null, route: null, heuristicJudgement: false };
}

/** Feeds samples one by one (a live stream), returns every transition with the index it happened at. */
function stream(evaluator: AlertEvaluator, values: readonly number[], start = 0): { index: number; event: AlertEvent }[] {
  const events: { index: number; event: AlertEvent }[] = [];
  values.forEach((value, offset) => {
    for (const event of evaluator.observe([sample(value)], start + offset)) events.push({ index: start + offset, event });
  });
  return events;
}

/** `count` pass/fail values with exactly `failuresPer20` (1, 2, 4 or 5) failures in every 20, evenly spread. */
function passFail(count: number, failuresPer20: number): number[] {
  return Array.from({ length: count }, (_, index) => (index % (20 / failuresPer20) === 0 ? 0 : 1));
}

/** A deterministic value stream around `mean` (± spread, triangular-ish), clipped to [0, 1]. */
function around(count: number, mean: number, spread: number): number[] {
  return Array.from({ length: count }, (_, index) => Math.min(1, Math.max(0, mean + spread * Math.sin(index * 2.399963))));
}

describe("alert evaluator", () => {
  test("costs a trace may state (1e200 and up, whose squares are beyond the largest number) still fire a cost rule they break", () => {
    // Before: the variance was Infinity, the interval (-Infinity, Infinity), never wholly outside the threshold.
    const evaluator = new AlertEvaluator([rule({ id: "performance.average_cost", metric: "cost", threshold: threshold("<= 0.05"), windowSamples: 20, minSamples: 20, statistic: "t" })]);
    const costs = Array.from({ length: 20 }, (_, index) => Number(`${1 + (index % 5)}e200`));
    const events: AlertEvent[] = [];
    costs.forEach((value, index) => events.push(...evaluator.observe([sample(value, "cost")], index)));
    assert.deepEqual(events.map((event) => event.state), ["firing"]);
    const [firing] = events;
    assert.ok(Math.abs(firing!.value / 3e200 - 1) < 1e-12, `mean ${firing!.value}`);
    assert.ok(Number.isFinite(firing!.lower) && Number.isFinite(firing!.upper) && firing!.lower > 0.05 && firing!.lower < firing!.value && firing!.upper > firing!.value, `${firing!.lower}–${firing!.upper}`);
    // Values at the edge of the range (whose sum, and the power of two nearest the largest, are Infinity): the bounds stay numbers.
    const edge = new AlertEvaluator([rule({ id: "edge", metric: "cost", threshold: threshold("<= 0.05"), windowSamples: 20, minSamples: 20, statistic: "t" })]);
    const edgeEvents = Array.from({ length: 20 }, (_, index) => (index % 2 === 0 ? Number.MAX_VALUE : Number.MAX_VALUE * 0.9)).flatMap((value, index) => edge.observe([sample(value, "cost")], index));
    assert.equal(edgeEvents.length, 1);
    assert.ok(Number.isFinite(edgeEvents[0]!.lower) && Number.isFinite(edgeEvents[0]!.upper), `${edgeEvents[0]!.lower}–${edgeEvents[0]!.upper}`);
  });


  test("3 failures in 20 samples of a 0.95 stream do not fire: the Wilson interval still reaches 0.92", () => {
    const evaluator = new AlertEvaluator([rule({ windowSamples: 20 })]);
    const values = [1, 1, 0, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1];
    assert.equal(values.filter((value) => value === 0).length, 3);
    assert.deepEqual(stream(evaluator, values), []);
    const [status] = evaluator.status(values.length);
    // 17/20 = 0.85 < 0.92, yet the interval 0.64–0.95 includes 0.92: not enough evidence to page anyone.
    assert.equal(status!.statistic, "wilson");
    assert.equal(status!.interval!.mean, 0.85);
    assert.ok(status!.interval!.upper > 0.92);
    assert.equal(status!.state, "ok");
  });

  test("a pass-rate stream dropping from 0.95 to 0.80 fires once, then resolves on recovery", () => {
    const evaluator = new AlertEvaluator([rule()]);
    const healthy = passFail(200, 1);
    const degraded = passFail(200, 4);
    assert.equal(healthy.filter((value) => value === 1).length / 200, 0.95);
    assert.equal(degraded.filter((value) => value === 1).length / 200, 0.8);
    assert.deepEqual(stream(evaluator, healthy, 0), [], "a 0.95 stream never fires");
    const fired = stream(evaluator, degraded, 200);
    assert.equal(fired.length, 1);
    const firing = fired[0]!.event;
    assert.equal(firing.state, "firing");
    assert.equal(firing.statistic, "wilson");
    assert.ok(firing.upper < 0.92, `the whole interval is below 0.92 (upper ${firing.upper})`);
    assert.ok(fired[0]!.index < 300, "fires within one window of the drop");
    // The traces behind it: failing ones first, most recent first.
    assert.equal(firing.trace_ids.length, 5);
    assert.match(firing.message, /generation\.faithfulness is failing/);

    const recovered = stream(evaluator, passFail(300, 1), 400);
    assert.deepEqual(recovered.map((item) => item.event.state), ["resolved"]);
    const resolved = recovered[0]!.event;
    assert.equal(resolved.alert_id, firing.alert_id);
    assert.notEqual(resolved.event_id, firing.event_id);
    assert.ok(resolved.value >= 0.92 * 1.01, "resolves only with the mean back above 0.92 by the hysteresis (1 % of it)");
    assert.equal(resolved.fired_at, firing.fired_at);
  });

  test("the message rounds as printf does: a mean of exactly 1/32 reads 0.0312 (toFixed would say 0.0313)", () => {
    const evaluator = new AlertEvaluator([rule({ windowSamples: 32, minSamples: 32 })]);
    const fired = stream(evaluator, [1, ...Array.from({ length: 31 }, () => 0)]);
    assert.equal(fired.length, 1);
    assert.equal(fired[0]!.event.value, 1 / 32);
    assert.match(fired[0]!.event.message, /faithfulness mean 0\.0312 \(/);
  });

  test("a continuous faithfulness stream dropping from 0.95 to 0.80 fires (t interval) and resolves", () => {
    const evaluator = new AlertEvaluator([rule({ windowSamples: 50 })]);
    assert.deepEqual(stream(evaluator, around(100, 0.95, 0.04)), []);
    const fired = stream(evaluator, around(100, 0.8, 0.08), 100);
    assert.deepEqual(fired.map((item) => [item.event.state, item.event.statistic]), [["firing", "t"]]);
    assert.ok(fired[0]!.event.upper < 0.92);
    const resolved = stream(evaluator, around(100, 0.96, 0.03), 200);
    assert.deepEqual(resolved.map((item) => item.event.state), ["resolved"]);
  });

  test("the resolve margin is a share of the threshold: a cost rule on \"<= 0.005\" resolves once costs are back at 0.001", () => {
    // Before: the margin was 0.01 on every scale, so this rule resolved only at a mean cost of -0.005, never.
    const evaluator = new AlertEvaluator([rule({ id: "performance.average_cost", metric: "cost", threshold: threshold("<= 0.005"), windowSamples: 20, minSamples: 20 })]);
    const costs = (values: number[], start: number) => values.flatMap((value, offset) => evaluator.observe([sample(value, "cost")], start + offset));
    const fired = costs(Array.from({ length: 20 }, (_, index) => 0.001 * (index + 1)), 0);
    assert.deepEqual(fired.map((event) => event.state), ["firing"], "a mean of 0.0105");
    // A mean of 0.00499 meets the threshold but not by its margin (0.005 - 1 % = 0.00495): still firing.
    assert.deepEqual(costs(new Array(20).fill(0.00499), 20), []);
    assert.deepEqual(costs(new Array(20).fill(0.001), 40).map((event) => event.state), ["resolved"]);
  });

  test("a rule at the edge of its metric's values resolves at that edge: \">= 1\" on a rate once every sample is 1", () => {
    // citation_validity takes values from 0 to 1; the margin would put the target at 1.01, which no mean reaches.
    const evaluator = new AlertEvaluator([rule({ id: "generation.citation_validity", metric: "citation_validity", threshold: threshold(">= 1"), windowSamples: 20, minSamples: 20 })]);
    const rates = (values: number[], start: number) => values.flatMap((value, offset) => evaluator.observe([sample(value, "citation_validity")], start + offset));
    assert.deepEqual(rates(passFail(20, 5), 0).map((event) => event.state), ["firing"], "5 of 20 citations invalid");
    const resolved = rates(new Array(20).fill(1), 20);
    assert.deepEqual(resolved.map((event) => event.state), ["resolved"]);
    assert.equal(resolved[0]!.value, 1);
  });

  test("a bound that would round onto the threshold keeps the digits that tell it apart", () => {
    const evaluator = new AlertEvaluator([rule({ id: "performance.average_cost", metric: "cost", threshold: threshold("<= 0.0002"), windowSamples: 20, minSamples: 20, statistic: "t" })]);
    const events = Array.from({ length: 20 }, (_, index) => 0.00003 * (index + 1)).flatMap((value, index) => evaluator.observe([sample(value, "cost")], index));
    assert.deepEqual(events.map((event) => event.state), ["firing"]);
    const [firing] = events;
    assert.ok(firing!.lower > 0.0002 && firing!.lower < 0.00025, `lower ${firing!.lower}`);
    // At 4 decimals the lower bound read 0.0002, the threshold it fails.
    // The upper bound (below 0.0004, not on it) keeps two significant digits, the zero one of them: 0.00040.
    assert.ok(firing!.upper !== 0.0004, `upper ${firing!.upper}`);
    assert.match(firing!.message, /cost mean 0\.00032 \(95% interval 0\.00023–0\.00040, 20 samples/);
  });

  test("below the minimum sample count nothing fires, however bad", () => {
    const evaluator = new AlertEvaluator([rule({ minSamples: 20 })]);
    assert.deepEqual(stream(evaluator, new Array(19).fill(0)), []);
    assert.equal(stream(evaluator, [0], 19).length, 1);
  });

  test("a replayed trace replaces its sample instead of adding one", () => {
    const evaluator = new AlertEvaluator([rule()]);
    const replayed: MetricSample = { metric: "faithfulness", value: 0, caseResultId: "cr_replayed", traceId: "trace_replayed", serviceName: null, tenantId: null, route: null, heuristicJudgement: false };
    for (let time = 0; time < 50; time += 1) assert.deepEqual(evaluator.observe([replayed], time), []);
    assert.equal(evaluator.status(50)[0]!.sampleCount, 1);
  });

  test("a time window forgets old samples: a single leak fires '= 0' and resolves once it slid out", () => {
    const leak = rule({ id: "boundary.permission_leak_rate", metric: "permission_leak_rate", threshold: threshold("= 0"), windowMs: 15 * 60_000, windowSamples: null, minSamples: 20 });
    const evaluator = new AlertEvaluator([leak]);
    const minute = 60_000;
    const events: AlertEvent[] = [];
    for (let index = 0; index < 19; index += 1) events.push(...evaluator.observe([sample(0, "permission_leak_rate")], index * 10_000));
    events.push(...evaluator.observe([sample(1, "permission_leak_rate")], 190_000));
    assert.deepEqual(events.map((event) => event.state), ["firing"], "one leak among 20 puts the Wilson interval above 0");
    // 20 minutes on, clean traffic only: the leak left the 15-minute window.
    for (let index = 0; index < 20; index += 1) events.push(...evaluator.observe([sample(0, "permission_leak_rate")], 20 * minute + index * 1_000));
    assert.deepEqual(events.map((event) => event.state), ["firing", "resolved"]);
  });

  test("rules from a gate file in the seed's §十三 format", () => {
    const document = parseYaml(`
generation:
  faithfulness: ">= 0.92"
  citation_accuracy: { threshold: ">= 0.95", window: 1h, min_samples: 50 }
boundary:
  permission_leak_rate: "= 0"
performance:
  p95_latency_ms: "<= 5000"
  average_cost: "<= 0.05"
`);
    const gate = parseGateFile(document);
    assert.ok(gate.ok);
    const built = alertRulesFromGate(gate.value);
    assert.ok(built.ok);
    assert.deepEqual(
      built.value.rules.map((item) => [item.id, item.metric, item.threshold.source, item.windowMs, item.minSamples]),
      [
        ["generation.faithfulness", "faithfulness", ">= 0.92", defaultAlertRuleDefaults.windowMs, 20],
        ["generation.citation_accuracy", "citation_accuracy", ">= 0.95", 3_600_000, 50],
        ["boundary.permission_leak_rate", "permission_leak_rate", "= 0", defaultAlertRuleDefaults.windowMs, 20],
        ["performance.average_cost", "cost", "<= 0.05", defaultAlertRuleDefaults.windowMs, 20],
      ],
    );
    assert.deepEqual(built.value.skipped.map((item) => item.id), ["performance.p95_latency_ms"]);
    // The gate file's own schema takes min_samples ≥ 1 (contracts/gate-file.ts); a default of 0 is refused here.
    const impossible = parseGateFile({ generation: { faithfulness: ">= 0.9" } });
    assert.ok(impossible.ok);
    const refused = alertRulesFromGate(impossible.value, { ...defaultAlertRuleDefaults, minSamples: 0 });
    assert.ok(!refused.ok);
    assert.match(refused.error[0]!, /min samples must be a whole number of at least 1/);
  });

  test("the project's own gate file gives alert rules: min_samples 1 is accepted, dataset-level gates are skipped with the reason", async () => {
    // dashboards/gates/ragscope-gates.yaml is the file README points RAGSCOPE_ALERT_GATE_FILE at; it was refused
    // (permission_leak_rate has min_samples: 1) and the evaluator did not start.
    const { readGateFile } = await import("../../../dashboards/source/read-gate-file.js");
    const gate = await readGateFile(new URL("../../../dashboards/gates/ragscope-gates.yaml", import.meta.url).pathname);
    assert.ok(gate.ok, gate.ok ? "" : gate.error.join("; "));
    const built = alertRulesFromGate(gate.value.rules);
    assert.ok(built.ok, built.ok ? "" : built.error.join("; "));
    const leak = built.value.rules.find((item) => item.id === "boundary.permission_leak_rate");
    assert.equal(leak?.minSamples, 1);
    const violation = built.value.rules.find((item) => item.id === "retrieval.permission_violation_rate");
    assert.deepEqual([violation?.metric, violation?.threshold.source, violation?.minSamples], ["permission_violation_rate", "= 0", 1]);
    // Per-trace metrics (metric_values) the alerts can see: the gate's retrieval and generation means, the leak and
    // retrieval's permission violations, the cost.
    assert.deepEqual(built.value.rules.map((item) => item.id).sort(), [
      "boundary.permission_leak_rate",
      "generation.answer_correctness",
      "generation.citation_accuracy",
      "generation.completeness",
      "generation.faithfulness",
      "performance.average_cost",
      "retrieval.mrr",
      "retrieval.permission_violation_rate",
      "retrieval.recall_at_5",
    ]);
    // Dataset-level values no evaluator writes per trace: a window of them would never get a sample.
    assert.deepEqual(built.value.skipped.map((item) => item.id).sort(), [
      "boundary.hallucination_rate",
      "boundary.no_answer_accuracy",
      "performance.error_rate",
      "performance.p95_latency_ms",
      "performance.timeout_rate",
      "regression.critical_case_pass_rate",
      "regression.overall_score_drop",
    ]);
    assert.equal(built.value.skipped.find((item) => item.id === "performance.error_rate")!.reason, "a dataset-level value no evaluator writes per trace");
    assert.equal(built.value.skipped.find((item) => item.id === "performance.p95_latency_ms")!.reason, "a percentile, not a mean of per-trace values");
  });

  test("the project's gate file: one request whose retrieval returned a denied chunk fires retrieval.permission_violation_rate, among clean ones too", async () => {
    const { readGateFile } = await import("../../../dashboards/source/read-gate-file.js");
    const gate = await readGateFile(new URL("../../../dashboards/gates/ragscope-gates.yaml", import.meta.url).pathname);
    assert.ok(gate.ok, gate.ok ? "" : gate.error.join("; "));
    const built = alertRulesFromGate(gate.value.rules);
    assert.ok(built.ok, built.ok ? "" : built.error.join("; "));
    const violation = built.value.rules.find((item) => item.id === "retrieval.permission_violation_rate")!;
    // A value is a share of one request's retrieved chunks: the README's toy search returns 1 denied chunk of 3.
    const alone = new AlertEvaluator([violation]);
    const fired = alone.observe([sample(1 / 3, "permission_violation_rate")], 0);
    assert.deepEqual(fired.map((event) => [event.rule_id, event.state, event.statistic, event.sample_count]), [["retrieval.permission_violation_rate", "firing", "wilson", 1]]);
    assert.ok(fired[0]!.lower > 0, String(fired[0]!.lower));
    // Among 19 clean requests (Student-t over 19 zeros and 1/3 straddles 0 and never fired).
    const mixed = new AlertEvaluator([violation]);
    const events: AlertEvent[] = [];
    for (let index = 0; index < 19; index += 1) events.push(...mixed.observe([sample(0, "permission_violation_rate")], index * 1_000));
    assert.equal(events.length, 0);
    events.push(...mixed.observe([sample(1 / 3, "permission_violation_rate")], 19_000));
    assert.deepEqual(events.map((event) => [event.state, event.sample_count]), [["firing", 20]]);
    assert.ok(Math.abs(events[0]!.value - 1 / 60) < 1e-12, String(events[0]!.value));
    assert.match(events[0]!.message, /1 of 20 samples fail it/);
    // Once the window holds only clean requests again, the alert resolves.
    const later = violation.windowMs! + 20_000;
    const resolved = mixed.observe([sample(0, "permission_violation_rate")], later);
    assert.deepEqual(resolved.map((event) => event.state), ["resolved"]);
  });

  test("min samples 1: one leak fires an \"= 0\" rule (Wilson), one continuous value decides nothing (a t interval needs two)", () => {
    const leakRule = rule({ id: "boundary.permission_leak_rate", metric: "permission_leak_rate", threshold: threshold("= 0"), minSamples: 1 });
    const leaks = new AlertEvaluator([leakRule]);
    const fired = leaks.observe([sample(1, "permission_leak_rate")], 0);
    // Wilson, n = 1, one success, z = 1.96: centre (1 + z²/2) / (1 + z²) = 2.9208 / 4.8416 = 0.6033,
    // half z·sqrt(z²/4) / (1 + z²) = 1.9208 / 4.8416 = 0.3967: lower bound 0.2065 > 0, wholly outside "= 0".
    assert.deepEqual(fired.map((event) => [event.rule_id, event.state, event.sample_count]), [["boundary.permission_leak_rate", "firing", 1]]);
    assert.ok(Math.abs(fired[0]!.lower - 0.2065) < 0.001, String(fired[0]!.lower));
    const continuous = new AlertEvaluator([rule({ minSamples: 1 })]);
    assert.deepEqual(continuous.observe([sample(0.5)], 0), []);
    assert.equal(continuous.status(0)[0]!.interval, null);
    // A second value gives a t interval: 0.5 and 0.5 have no spread, [0.5, 0.5] is wholly below 0.92.
    assert.deepEqual(continuous.observe([sample(0.5)], 1).map((event) => event.state), ["firing"]);
  });
});
