/**
 * An alert on a heuristic metric is a signal, not a pass: the project gate file's completeness rule alerts — in the
 * evaluator's own alerting and in the generated Grafana rules — on the heuristic rule metric, labelled
 * " (heuristic)" with the judged metric the release gate decides on named (evaluators/gates/alert-metric-reading.ts).
 * So is the Grafana no_answer_accuracy rule, whose query counts every stored abstention, a heuristic's among them,
 * where the release gate counts exact ones only, and so are the correct_refusal_rate and false_refusal_rate rules a
 * gate file may add, measured the same way. Alerts on exact or judged metrics carry no such label.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import { parse as parseYaml } from "yaml";
import { AlertEvaluator } from "../../../collector/10-alert/alert-evaluator.js";
import { alertRulesFromGate, type AlertRule } from "../../../collector/10-alert/alert-rule.js";
import { slackPayload } from "../../../collector/10-alert/slack-payload.js";
import { renderAlertRules } from "../../../dashboards/source/generated-files.js";
import { readGateFile } from "../../../dashboards/source/read-gate-file.js";

const repository = new URL("../../../", import.meta.url);

async function projectAlertRules(): Promise<AlertRule[]> {
  const gate = await readGateFile(new URL("dashboards/gates/ragscope-gates.yaml", repository).pathname);
  assert.ok(gate.ok, gate.ok ? "" : gate.error.join("; "));
  const built = alertRulesFromGate(gate.value.rules);
  assert.ok(built.ok, built.ok ? "" : built.error.join("; "));
  return built.value.rules;
}

/** Fires a rule with 40 samples of 0 (an answer missing every key point), one trace each. */
function fire(rule: AlertRule) {
  const evaluator = new AlertEvaluator([{ ...rule, windowMs: null, windowSamples: 40, minSamples: 20 }]);
  const samples = Array.from({ length: 40 }, (_, index) => ({ metric: rule.metric, value: 0, caseResultId: `cr_${index}`, traceId: `trace_${index}`, serviceName: null, tenantId: null, route: null, heuristicJudgement: false }));
  const events = samples.flatMap((sample, index) => evaluator.observe([sample], index));
  assert.equal(events.length, 1, `${rule.id} fires once`);
  return events[0]!;
}

describe("alerts on heuristic metrics", () => {
  test("the evaluator's completeness alert reads the heuristic rule metric and says so, naming completeness_judged", async () => {
    const rules = await projectAlertRules();
    const completeness = rules.find((rule) => rule.id === "generation.completeness")!;
    assert.equal(completeness.metric, "completeness", "the alert reads the rule metric written on every trace");
    const event = fire(completeness);
    assert.match(event.message, /^generation\.completeness is failing: completeness \(heuristic\) mean 0 /);
    assert.match(event.message, /a signal to look at the traces, not a pass — the release gate reads completeness_judged/);
    const slack = slackPayload(event);
    assert.match(JSON.stringify(slack.blocks[0]), /FIRING: generation\.completeness \(heuristic\) >= 0\.82/);
    assert.match(JSON.stringify(slack.blocks[1]), /`completeness` \(heuristic\) — mean 0/);

    const faithfulness = fire(rules.find((rule) => rule.id === "generation.faithfulness")!);
    assert.doesNotMatch(faithfulness.message, /heuristic/);
    assert.doesNotMatch(JSON.stringify(slackPayload(faithfulness)), /heuristic/);
  });

  test("the generated Grafana rules label the completeness and no_answer_accuracy alerts heuristic and no exact or judged one", async () => {
    const document = parseYaml(await readFile(new URL("deploy/grafana/provisioning/alerting/ragscope-gate-rules.yaml", repository), "utf8")) as {
      groups: { rules: { title: string; labels: Record<string, string>; annotations: Record<string, string>; data: { model: { rawSql?: string } }[] }[] }[];
    };
    const rules = document.groups.flatMap((group) => group.rules);
    const completeness = rules.find((rule) => rule.labels.metric === "completeness")!;
    assert.equal(completeness.title, "completeness (heuristic) >= 0.82 (generation gate)");
    assert.equal(completeness.labels.semantics, "heuristic");
    assert.match(completeness.annotations.summary!, /: completeness \(heuristic\) = \{\{ \.Values\.B\.Value \}\} breaks/);
    assert.match(completeness.annotations.description!, /completeness is a heuristic \(answer\.completeness\): a signal to look at the traces, not a pass — the release gate reads completeness_judged/);
    // The decision (alert-metric-reading.ts): the query reads the heuristic on every trace, not the judged metric.
    assert.match(completeness.data[0]!.model.rawSql!, /'completeness'/);
    assert.doesNotMatch(completeness.data[0]!.model.rawSql!, /completeness_judged/);
    // no_answer_accuracy's query counts every stored abstention, a heuristic's among them; the release gate counts exact ones only.
    const noAnswer = rules.find((rule) => rule.labels.metric === "no_answer_accuracy")!;
    assert.equal(noAnswer.title, "no_answer_accuracy (heuristic) >= 0.90 (boundary gate)");
    assert.equal(noAnswer.labels.semantics, "heuristic");
    assert.match(noAnswer.annotations.summary!, /: no_answer_accuracy \(heuristic\) = \{\{ \.Values\.B\.Value \}\} breaks/);
    assert.match(
      noAnswer.annotations.description!,
      /no_answer_accuracy counts a heuristic's readings: a signal to look at the traces, not a pass — the alert counts every stored abstention as the boards do, answer\.abstention's heuristic ones .* the release gate counts only abstentions read exactly \(a heuristic one stays in its denominator, never its numerator: a lower bound\)/,
    );
    assert.match(noAnswer.annotations.description!, /ragscope\.answer\.abstained/, "says how to have abstentions read exactly");
    const others = rules.filter((rule) => rule !== completeness && rule !== noAnswer);
    assert.ok(others.length >= 5);
    for (const rule of others) {
      assert.equal(rule.labels.semantics, undefined, rule.title);
      assert.doesNotMatch(`${rule.title} ${rule.annotations.summary} ${rule.annotations.description}`, /heuristic/, rule.title);
    }
  });

  // The project gate file names neither refusal rate; a user's may, and `npm run dashboards` renders its rules so.
  test("a gate file naming correct_refusal_rate and false_refusal_rate gets both Grafana alerts labelled heuristic", async () => {
    const folder = await mkdtemp(path.join(tmpdir(), "ragscope-refusal-gates-"));
    try {
      const file = path.join(folder, "gates.yaml");
      await writeFile(file, ['boundary:', '  correct_refusal_rate: ">= 0.80"', '  false_refusal_rate: "<= 0.05"', 'performance:', '  error_rate: "<= 0.01"', ""].join("\n"));
      const gate = await readGateFile(file);
      assert.ok(gate.ok, gate.ok ? "" : gate.error.join("; "));
      const document = parseYaml(renderAlertRules(gate.value.rules, file)) as { groups: { rules: { title: string; labels: Record<string, string>; annotations: Record<string, string> }[] }[] };
      const rules = document.groups.flatMap((group) => group.rules);
      const byMetric = (metric: string) => rules.find((rule) => rule.labels.metric === metric)!;
      for (const [metric, threshold, counted] of [
        ["correct_refusal_rate", ">= 0.80", /in the refusals and in the correct ones/],
        ["false_refusal_rate", "<= 0.05", /a heuristic refusal of an answerable question counts as a false refusal/],
      ] as const) {
        const rule = byMetric(metric);
        assert.equal(rule.title, `${metric} (heuristic) ${threshold} (boundary gate)`);
        assert.equal(rule.labels.semantics, "heuristic", metric);
        assert.match(rule.annotations.summary!, new RegExp(`: ${metric} \\(heuristic\\) = \\{\\{ \\.Values\\.B\\.Value \\}\\} breaks`));
        assert.match(rule.annotations.description!, new RegExp(`${metric} counts a heuristic's readings: a signal to look at the traces, not a pass — the alert counts every stored abstention as the boards do, answer\\.abstention's heuristic ones`));
        assert.match(rule.annotations.description!, counted, metric);
        // The release gate bounds the rate itself (aggregate/refusal-rates.ts), so a quiet alert is no pass.
        assert.match(rule.annotations.description!, /the release gate (credits only refusals read exactly|also counts as one an answerable case whose answer only a heuristic read as answering).*, so it may fail where this alert stays quiet/, metric);
        assert.match(rule.annotations.description!, /ragscope\.answer\.abstained/, "says how to have abstentions read exactly");
      }
      const errorRate = byMetric("error_rate");
      assert.equal(errorRate.labels.semantics, undefined);
      assert.doesNotMatch(`${errorRate.title} ${errorRate.annotations.summary} ${errorRate.annotations.description}`, /heuristic/);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
