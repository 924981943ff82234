/**
 * Alert deliveries end to end: a faithfulness stream that drops and recovers
 * produces a firing and a resolved event; a local webhook server receives
 * both, as generic JSON and as a Slack-compatible payload (after a 503 that is
 * retried), and the alerts table in the real ClickHouse engine records both
 * transitions once, with the traces behind them — also when delivered twice.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { parse as parseYaml } from "yaml";
import { parseGateFile } from "../../../contracts/gate-file.js";
import { AlertEvaluator } from "../../../collector/10-alert/alert-evaluator.js";
import { AlertNotifier } from "../../../collector/10-alert/alert-notifier.js";
import { alertRulesFromGate } from "../../../collector/10-alert/alert-rule.js";
import { StoreAlertDelivery } from "../../../collector/10-alert/store-alert-delivery.js";
import type { MetricSample } from "../../../collector/10-alert/metric-sample.js";
import { WebhookAlertDelivery } from "../../../collector/10-alert/webhook-alert-delivery.js";
import { ClickHouseCaseStore } from "../../../store/clickhouse/clickhouse-case-store.js";
import { loadSettings } from "../../../collector/wiring/config/load-settings.js";
import { onlineSettings } from "../../../collector/wiring/config/settings-schema.js";
import { createOnlineStage } from "../../../collector/wiring/online/online-stage.js";
import { createDefaultRegistry } from "../../../evaluators/default-registry.js";
import { evaluateCaseResult } from "../../../evaluators/evaluate-case-result.js";
import { onlineCaseResult } from "../../support/online-case-results.js";
import { queryRows, temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";

interface Received {
  path: string;
  body: Record<string, unknown>;
}

async function startWebhookServer(): Promise<{ url: string; received: Received[]; failNext: (count: number) => void; refused: () => number; close: () => Promise<void> }> {
  const received: Received[] = [];
  let failures = 0;
  let refused = 0;
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let text = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => (text += chunk));
    request.on("end", () => {
      if (failures > 0) {
        failures -= 1;
        refused += 1;
        response.writeHead(503, { "retry-after": "0" }).end("busy");
        return;
      }
      received.push({ path: request.url ?? "", body: JSON.parse(text) as Record<string, unknown> });
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    failNext: (count) => {
      failures = count;
    },
    refused: () => refused,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe("alert deliveries", () => {
  let store: TemporaryStore;
  let webhook: Awaited<ReturnType<typeof startWebhookServer>>;
  before(async () => {
    store = await temporaryStore();
    webhook = await startWebhookServer();
  });
  after(async () => {
    await webhook.close();
    await store.cleanup();
  });

  test("a drop from 0.95 to 0.80 fires, recovery resolves; webhook (JSON and Slack) and alerts table get both", async () => {
    const gate = parseGateFile(parseYaml('generation:\n  faithfulness: { threshold: ">= 0.92", window: 15m, min_samples: 20 }\n'));
    assert.ok(gate.ok);
    const rules = alertRulesFromGate(gate.value, { windowMs: 15 * 60_000, windowSamples: 100, minSamples: 20, confidence: 0.95, hysteresis: 0.01, maxTraceIds: 10 });
    assert.ok(rules.ok);
    let now = Date.parse("2026-07-08T10:00:00.000Z");
    const logged: string[] = [];
    const table = new StoreAlertDelivery(store.store.alerts);
    const notifier = new AlertNotifier({
      evaluator: new AlertEvaluator(rules.value.rules),
      deliveries: [new WebhookAlertDelivery({ url: `${webhook.url}/generic`, format: "json" }), new WebhookAlertDelivery({ url: `${webhook.url}/slack`, format: "slack" }), table],
      retry: { initialDelayMs: 5, maxDelayMs: 20, maxAttempts: 4, deadlineMs: 5_000 },
      tickMs: 0,
      clock: () => now,
      log: (line) => logged.push(line),
    });

    let trace = 0;
    const feed = (failuresPer20: number, count: number) => {
      for (let index = 0; index < count; index += 1) {
        trace += 1;
        now += 1_000;
        const value = index % (20 / failuresPer20) === 0 ? 0 : 1;
        const sample: MetricSample = { metric: "faithfulness", value, caseResultId: `cr_${trace}`, traceId: `trace_${String(trace).padStart(4, "0")}`, serviceName: "support-bot", tenantId: null, route: null, heuristicJudgement: false };
        notifier.observe([sample]);
      }
    };
    feed(1, 150); // 0.95: healthy
    feed(4, 150); // 0.80: degraded
    webhook.failNext(1); // the first delivery attempt meets a 503 and is retried
    feed(1, 200); // 0.95 again
    await notifier.flush();

    assert.deepEqual(notifier.recentEvents.map((event) => event.state), ["firing", "resolved"]);
    assert.equal(webhook.refused(), 1, "one attempt was refused with 503 and retried");
    assert.equal(notifier.counters.deliveryFailures, 0);
    const [firing, resolved] = notifier.recentEvents;
    assert.ok(firing!.trace_ids.length > 0 && firing!.trace_ids.length <= 10);

    const generic = webhook.received.filter((item) => item.path === "/generic").map((item) => item.body);
    assert.deepEqual(generic.map((body) => [body.state, body.rule_id, body.threshold, body.source]), [
      ["firing", "generation.faithfulness", ">= 0.92", "ragscope"],
      ["resolved", "generation.faithfulness", ">= 0.92", "ragscope"],
    ]);
    assert.deepEqual(generic[0]!.trace_ids, firing!.trace_ids);
    assert.equal(generic[1]!.alert_id, generic[0]!.alert_id);

    const slack = webhook.received.filter((item) => item.path === "/slack").map((item) => item.body);
    assert.equal(slack.length, 2);
    assert.match(String(slack[0]!.text), /FIRING: generation\.faithfulness >= 0\.92/);
    assert.match(String(slack[1]!.text), /RESOLVED: generation\.faithfulness/);
    const blocks = slack[0]!.blocks as { type: string; elements?: { text: string }[] }[];
    assert.deepEqual(blocks.map((block) => block.type), ["header", "section", "context"]);
    assert.match(blocks[2]!.elements![0]!.text, new RegExp(firing!.trace_ids[0]!));

    // A second delivery of the same events (a retry after a crash) does not add rows.
    assert.ok((await table.deliver([firing!, resolved!])).ok);
    const rows = await queryRows<{ state: string; alert_id: string; trace_ids: string[]; sample_count: number }>(
      store.connection,
      "SELECT state, alert_id, trace_ids, sample_count FROM {{database}}.alerts FINAL ORDER BY at",
    );
    assert.deepEqual(rows.map((row) => [row.state, row.alert_id]), [
      ["firing", firing!.alert_id],
      ["resolved", firing!.alert_id],
    ]);
    assert.deepEqual(rows[0]!.trace_ids, firing!.trace_ids);
    assert.ok(logged.some((line) => /alert firing/.test(line)));
    await notifier.close();
  });

  test("the online stage reads rules from a gate file and alerts on the rule metrics it is handed", async () => {
    const folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-gate-"));
    try {
      const gateFile = path.join(folder, "gates.yaml");
      await writeFile(gateFile, 'boundary:\n  sensitive_data_in_answer: { threshold: "= 0", min_samples: 5 }\n  permission_leak_rate: "= 0"\n');
      const config = loadSettings({ environment: { RAGSCOPE_ALERT_GATE_FILE: gateFile, RAGSCOPE_ALERT_WEBHOOK_URLS: `${webhook.url}/stage`, RAGSCOPE_ALERT_EVALUATE_EVERY_MS: "0" } });
      assert.ok(config.ok);
      const stage = await createOnlineStage(onlineSettings(config.value), { store: store.store, retry: { initialDelayMs: 5, maxDelayMs: 20, maxAttempts: 3, deadlineMs: 2_000 }, log: () => {} });
      assert.ok(stage.ok, stage.ok ? "" : stage.error.join("; "));
      const registry = createDefaultRegistry();
      const leaking = Array.from({ length: 5 }, (_, index) =>
        evaluateCaseResult(registry, onlineCaseResult({ traceId: `ee${String(index).padStart(30, "0")}`, query: "张三的电话？", output: `张三的手机是1381234567${index}。` }), null, "2026-07-08T10:00:00.000Z"),
      );
      assert.ok(leaking.every((item) => item.evaluationResults.some((result) => result.metric_values.sensitive_data_in_answer === 1)));
      await stage.value.afterWrite(leaking);
      const alerts = stage.value.parts.alerts!;
      await alerts.flush();
      assert.deepEqual(alerts.recentEvents.map((event) => [event.rule_id, event.state, event.sample_count]), [["boundary.sensitive_data_in_answer", "firing", 5]]);
      assert.deepEqual([...alerts.recentEvents[0]!.trace_ids].sort(), leaking.map((item) => item.caseResult.trace_id).sort());
      const delivered = webhook.received.filter((item) => item.path === "/stage");
      assert.deepEqual(delivered.map((item) => item.body.rule_id), ["boundary.sensitive_data_in_answer"]);
      const rows = await queryRows<{ rule_id: string }>(store.connection, "SELECT rule_id FROM {{database}}.alerts FINAL WHERE rule_id = 'boundary.sensitive_data_in_answer'");
      assert.equal(rows.length, 1);
      await stage.value.close();

      const missing = loadSettings({ environment: { RAGSCOPE_ALERT_GATE_FILE: path.join(folder, "absent.yaml") } });
      assert.ok(missing.ok);
      const refused = await createOnlineStage(onlineSettings(missing.value), { store: store.store, retry: { initialDelayMs: 5, maxDelayMs: 20, maxAttempts: 1, deadlineMs: 100 } });
      assert.ok(!refused.ok);
      assert.match(refused.error[0]!, /absent\.yaml: gate file not found \(looked in .*absent\.yaml\); check the path/);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
