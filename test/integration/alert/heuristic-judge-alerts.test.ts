/**
 * The evaluator's own alerts on a judged metric read an LLM judge's values
 * only: the heuristic judge's measurements (serve's judge without an LLM
 * endpoint) are left out of the window and counted, and every delivery says
 * how many (collector/10-alert/alert-evaluator.ts says why they are not
 * labelled and kept instead).
 *
 * 1. The online stage as the collector builds it from settings, the heuristic
 *    judge (its default) judging every trace on the real embedded store: its
 *    faithfulness scores of 0 are stored, yet the faithfulness rule stays
 *    silent.
 * 2. A window holding an LLM judge's failing values and the heuristic judge's:
 *    the alert fires on the LLM judge's alone, and the webhook (JSON and
 *    Slack) and the alerts table all say how many measurements it left out.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { parse as parseYaml } from "yaml";
import { AlertEvaluator } from "../../../collector/10-alert/alert-evaluator.js";
import { AlertNotifier } from "../../../collector/10-alert/alert-notifier.js";
import { alertRulesFromGate } from "../../../collector/10-alert/alert-rule.js";
import { metricSamples } from "../../../collector/10-alert/metric-sample.js";
import { StoreAlertDelivery } from "../../../collector/10-alert/store-alert-delivery.js";
import { WebhookAlertDelivery } from "../../../collector/10-alert/webhook-alert-delivery.js";
import { loadSettings } from "../../../collector/wiring/config/load-settings.js";
import { onlineSettings } from "../../../collector/wiring/config/settings-schema.js";
import { createOnlineStage } from "../../../collector/wiring/online/online-stage.js";
import { parseGateFile } from "../../../contracts/gate-file.js";
import { createDefaultRegistry } from "../../../evaluators/default-registry.js";
import { evaluateCaseResult } from "../../../evaluators/evaluate-case-result.js";
import { HeuristicJudge } from "../../../evaluators/judge/heuristic-judge.js";
import type { Judge } from "../../../evaluators/judge/judge.js";
import { runJudgeEvaluations } from "../../../evaluators/judge/judge-evaluations.js";
import { onlineCaseResult } from "../../support/online-case-results.js";
import { ScriptedJudge } from "../../support/scripted-judge.js";
import { queryRows, temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";

const FAST_RETRY = { initialDelayMs: 5, maxDelayMs: 20, maxAttempts: 3, deadlineMs: 2_000 };
const EVALUATED_AT = "2026-07-08T10:00:00.000Z";
const GATE = 'generation:\n  faithfulness: { threshold: ">= 0.92", min_samples: 5 }\n';

/** An answer whose every claim the context does not hold: the heuristic judge's faithfulness is 0. */
function unsupportedAnswer(traceId: string) {
  return onlineCaseResult({
    traceId,
    query: "How many days of annual leave do employees get?",
    context: "Employees have 10 days of annual leave per year.",
    output: "Contractors receive 25 weeks of paid sabbatical. The cafeteria serves breakfast on Saturdays.",
  });
}

function traceIdOf(prefix: string, index: number): string {
  return `${prefix}${String(index).padStart(32 - prefix.length, "0")}`;
}

async function startReceiver(): Promise<{ url: string; received: { path: string; body: Record<string, unknown> }[]; close: () => Promise<void> }> {
  const received: { path: string; body: Record<string, unknown> }[] = [];
  const server: Server = createServer((request, response) => {
    let text = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => (text += chunk));
    request.on("end", () => {
      received.push({ path: request.url ?? "", body: JSON.parse(text) as Record<string, unknown> });
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, received, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe("alerts on a judged metric and the heuristic judge", () => {
  let store: TemporaryStore;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  before(async () => {
    store = await temporaryStore();
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
    await store.cleanup();
  });

  test("serve's heuristic judge scoring every trace 0 on faithfulness does not fire the faithfulness alert", async () => {
    const folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-heuristic-judge-alerts-"));
    try {
      const gateFile = path.join(folder, "gates.yaml");
      await writeFile(gateFile, GATE);
      const loaded = loadSettings({
        environment: {
          RAGSCOPE_JUDGE_ENABLED: "true",
          RAGSCOPE_SAMPLE_RATE: "1",
          RAGSCOPE_ALERT_GATE_FILE: gateFile,
          RAGSCOPE_ALERT_WEBHOOK_URLS: `${receiver.url}/stage`,
          RAGSCOPE_ALERT_EVALUATE_EVERY_MS: "0",
        },
      });
      assert.ok(loaded.ok, JSON.stringify(loaded.ok ? null : loaded.error));
      // No judge given: the stage judges with the heuristic judge, as serve does without an LLM endpoint.
      const stage = await createOnlineStage(onlineSettings(loaded.value), { store: store.store, retry: FAST_RETRY, log: () => {} });
      assert.ok(stage.ok, stage.ok ? "" : stage.error.join("; "));
      const registry = createDefaultRegistry();
      const batch = Array.from({ length: 12 }, (_, index) => evaluateCaseResult(registry, unsupportedAnswer(traceIdOf("ab", index)), null, EVALUATED_AT));
      try {
        await stage.value.afterWrite(batch);
        const deadline = Date.now() + 30_000;
        while (!stage.value.isIdle()) {
          assert.ok(Date.now() < deadline, "the judge queue drained");
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        await stage.value.parts.alerts!.flush();
      } finally {
        await stage.value.close();
      }

      const judged = await queryRows<{ value: number; evaluator_version: string }>(
        store.connection,
        "SELECT value, evaluator_version FROM {{database}}.metric_values FINAL WHERE metric = 'faithfulness' AND case_result_id IN {ids:Array(String)}",
        { ids: batch.map((item) => item.caseResult.case_result_id) },
      );
      assert.equal(judged.length, 12, "the heuristic judge scored every trace");
      assert.ok(
        judged.every((row) => row.value === 0 && row.evaluator_version.endsWith("+heuristic")),
        JSON.stringify(judged),
      );
      const alerts = stage.value.parts.alerts!;
      assert.ok(alerts.counters.samples >= 12, "the judge's values reached the alert evaluator");
      assert.deepEqual(alerts.recentEvents.map((event) => `${event.rule_id} ${event.state}`), [], "no alert on the heuristic judge's measurements");
      assert.deepEqual(receiver.received.filter((item) => item.path === "/stage"), []);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  test("an LLM judge's failing values fire the alert; webhook, Slack and the alerts table say how many heuristic judge measurements it left out", async () => {
    const gate = parseGateFile(parseYaml(GATE));
    assert.ok(gate.ok);
    const rules = alertRulesFromGate(gate.value, { windowMs: 15 * 60_000, windowSamples: null, minSamples: 5, confidence: 0.95, hysteresis: 0.01, maxTraceIds: 20 });
    assert.ok(rules.ok);
    let now = Date.parse(EVALUATED_AT);
    const evaluator = new AlertEvaluator(rules.value.rules);
    const notifier = new AlertNotifier({
      evaluator,
      deliveries: [new WebhookAlertDelivery({ url: `${receiver.url}/generic`, format: "json" }), new WebhookAlertDelivery({ url: `${receiver.url}/slack`, format: "slack" }), new StoreAlertDelivery(store.store.alerts)],
      retry: FAST_RETRY,
      tickMs: 0,
      clock: () => now,
      log: () => {},
    });
    // The LLM judge reads every answer as unfaithful too (0), so the alert fires on its values alone.
    const llmJudge = new ScriptedJudge({ value: () => 0 });
    const heuristicJudge = new HeuristicJudge();
    const judgeTrace = async (judge: Judge, traceId: string) => {
      const caseResult = unsupportedAnswer(traceId);
      return { caseResult, evaluationResults: await runJudgeEvaluations(judge, caseResult, null, EVALUATED_AT) };
    };
    // Eight heuristic judge measurements first, then five LLM judgements: 5 samples (the rule's minimum), 8 left out.
    const heuristicTraces = Array.from({ length: 8 }, (_, index) => traceIdOf("cd", index));
    const llmTraces = Array.from({ length: 5 }, (_, index) => traceIdOf("ef", index));
    for (const traceId of heuristicTraces) {
      now += 1_000;
      notifier.observe(metricSamples([await judgeTrace(heuristicJudge, traceId)]));
    }
    assert.equal(notifier.recentEvents.length, 0, "nothing fires on the heuristic judge's measurements");
    assert.equal(evaluator.status(now)[0]!.heuristicJudgementsLeftOut, 8);
    for (const traceId of llmTraces) {
      now += 1_000;
      notifier.observe(metricSamples([await judgeTrace(llmJudge, traceId)]));
    }
    await notifier.flush();

    assert.equal(notifier.recentEvents.length, 1);
    const firing = notifier.recentEvents[0]!;
    assert.equal(firing.state, "firing");
    assert.equal(firing.sample_count, 5, "the LLM judge's values only");
    assert.equal(firing.heuristic_judgements_left_out, 8);
    assert.deepEqual([...firing.trace_ids].sort(), [...llmTraces].sort(), "the traces behind it are the LLM judge's");
    const leftOut = /; 8 heuristic judge measurements in the window left out \(a measurement, never a pass: only an LLM judge's faithfulness is alerted on\)/;
    assert.match(firing.message, /^generation\.faithfulness is failing: faithfulness mean 0 \(95% interval 0–[\d.]+, 5 samples, window 15m\)/);
    assert.match(firing.message, leftOut);

    const generic = receiver.received.filter((item) => item.path === "/generic").map((item) => item.body);
    assert.equal(generic.length, 1);
    assert.equal(generic[0]!.heuristic_judgements_left_out, 8);
    assert.equal(generic[0]!.sample_count, 5);
    assert.match(String(generic[0]!.message), leftOut);

    const slack = receiver.received.filter((item) => item.path === "/slack").map((item) => item.body);
    assert.equal(slack.length, 1);
    assert.match(String(slack[0]!.text), leftOut);
    const details = (slack[0]!.blocks as { type: string; text?: { text: string } }[])[1]!.text!.text;
    assert.match(details, /over 5 samples/);
    assert.match(details, /\*Left out:\* 8 heuristic judge measurements \(a measurement, never a pass\)/);

    const rows = await queryRows<{ sample_count: number; message: string; payload: string }>(
      store.connection,
      "SELECT sample_count, message, payload FROM {{database}}.alerts FINAL WHERE alert_id = {alert:String}",
      { alert: firing.alert_id },
    );
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.sample_count, 5);
    assert.match(rows[0]!.message, leftOut);
    assert.equal((JSON.parse(rows[0]!.payload) as { heuristic_judgements_left_out: number }).heuristic_judgements_left_out, 8);
    await notifier.close();
  });
});
