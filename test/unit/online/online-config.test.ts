/**
 * Online evaluation configuration: defaults, environment variables, and
 * fix-it messages that name the variable.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { loadSettings } from "../../../collector/wiring/config/load-settings.js";

describe("online configuration", () => {
  test("defaults: judging off, 10 % sampling, alerts without a gate file", () => {
    const loaded = loadSettings({});
    assert.ok(loaded.ok);
    assert.equal(loaded.value.judge.enabled, false);
    assert.equal(loaded.value.sampling.defaultRate, 0.1);
    assert.equal(loaded.value.alerts.gateFile, null);
    assert.equal(loaded.value.alerts.confidence, 0.95);
    assert.ok(Object.isFrozen(loaded.value));
  });

  test("environment variables: rate tables, webhooks, the Kafka queue", () => {
    const loaded = loadSettings({ environment: {
      RAGSCOPE_SAMPLE_RATE: "0.05",
      RAGSCOPE_SAMPLE_RATES_BY_TENANT: "acme=1, test=0",
      RAGSCOPE_SAMPLE_RATES_BY_ROUTE: "/refund=0.5",
      RAGSCOPE_JUDGE_ENABLED: "true",
      RAGSCOPE_JUDGE_QUEUE: "kafka",
      RAGSCOPE_ALERT_WEBHOOK_URLS: "https://alerts.example.com/a,https://alerts.example.com/b",
      RAGSCOPE_ALERT_WINDOW: "1h",
    } });
    assert.ok(loaded.ok, loaded.ok ? "" : loaded.error.join("; "));
    assert.deepEqual(loaded.value.sampling, { defaultRate: 0.05, services: {}, routes: { "/refund": 0.5 }, tenants: { acme: 1, test: 0 } });
    assert.equal(loaded.value.judge.queue, "kafka");
    assert.equal(loaded.value.judge.topic, "ragscope_judge_requests");
    assert.equal(loaded.value.judge.consumerGroup, "ragscope-judges");
    assert.deepEqual(loaded.value.alerts.webhookUrls, ["https://alerts.example.com/a", "https://alerts.example.com/b"]);
    assert.equal(loaded.value.alerts.window, "1h");
  });

  test("bad values name the variable and say what to write", () => {
    const loaded = loadSettings({ environment: { RAGSCOPE_SAMPLE_RATE: "1.5", RAGSCOPE_ALERT_WINDOW: "15 minutes", RAGSCOPE_JUDGE_QUEUE: "redis" } });
    assert.ok(!loaded.ok);
    assert.deepEqual(loaded.error.sort(), [
      "environment variable RAGSCOPE_ALERT_WINDOW: must be a duration such as 30s, 15m, 1h or 1d",
      "environment variable RAGSCOPE_JUDGE_QUEUE: must be in_process or kafka",
      "environment variable RAGSCOPE_SAMPLE_RATE: must be a rate between 0 and 1",
    ]);
    const table = loadSettings({ environment: { RAGSCOPE_SAMPLE_RATES_BY_SERVICE: "checkout" } });
    assert.ok(!table.ok);
    assert.match(table.error[0]!, /RAGSCOPE_SAMPLE_RATES_BY_SERVICE: "checkout" is not name=value/);
  });
});
