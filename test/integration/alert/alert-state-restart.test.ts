/**
 * Alert state outlives the evaluator: an alert evaluator started again on the
 * same store (ClickHouse adapter on chDB, and the in-memory store) restores
 * which alerts are firing, so a firing alert is neither fired again nor
 * forgotten — its resolution carries the original alert_id. A new evaluator
 * that does not restore fires a second alert for the same failure, which is
 * what the restore prevents.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { AlertEvaluator } from "../../../collector/10-alert/alert-evaluator.js";
import { AlertNotifier } from "../../../collector/10-alert/alert-notifier.js";
import type { AlertRule } from "../../../collector/10-alert/alert-rule.js";
import type { MetricSample } from "../../../collector/10-alert/metric-sample.js";
import { StoreAlertDelivery } from "../../../collector/10-alert/store-alert-delivery.js";
import { parseThreshold } from "../../../evaluators/threshold.js";
import type { Store } from "../../../store/ports/store.js";
import { implementations, type StoreUnderTest } from "../store/contracts/store-under-test.js";

const threshold = parseThreshold(">= 0.92");
assert.ok(threshold.ok);
const rule: AlertRule = { id: "generation.faithfulness", metric: "faithfulness", threshold: threshold.value, windowMs: null, windowSamples: 100, minSamples: 20, confidence: 0.95, statistic: "auto", hysteresis: 0.01, maxTraceIds: 5 };
const retry = { initialDelayMs: 1, maxDelayMs: 5, maxAttempts: 2, deadlineMs: 1_000 };

let counter = 0;
function samples(values: readonly number[]): MetricSample[] {
  return values.map((value) => {
    counter += 1;
    return { metric: "faithfulness", value, caseResultId: `cr_${counter}`, traceId: `trace_${counter}`, serviceName: null, tenantId: null, route: null, heuristicJudgement: false };
  });
}

/** One evaluator process: a new evaluator, restored from the store unless told not to, and its notifier. */
async function startAlerting(store: Store, clock: () => number, restore = true): Promise<AlertNotifier> {
  const evaluator = new AlertEvaluator([rule]);
  if (restore) evaluator.restore(await store.alerts.loadState());
  return new AlertNotifier({ evaluator, deliveries: [new StoreAlertDelivery(store.alerts)], state: store.alerts, retry, tickMs: 0, clock, log: () => {} });
}

/** Feeds samples one at a time, as traces arrive. */
function feed(notifier: AlertNotifier, values: readonly number[]): void {
  for (const sample of samples(values)) notifier.observe([sample]);
}

for (const [name, factory] of implementations) {
  describe(`alert state across a restart: ${name}`, () => {
    let now = Date.parse("2026-07-08T10:00:00.000Z");
    const clock = () => now;
    let subject: StoreUnderTest;
    before(async () => {
      subject = await factory({ now: clock });
    });
    after(() => subject.cleanup());

    test("a firing alert is neither fired again nor forgotten by the restarted evaluator", async () => {
      const first = await startAlerting(subject.store, clock);
      feed(first, Array(40).fill(0));
      await first.close();
      assert.equal(first.counters.firing, 1);
      const fired = first.recentEvents.find((event) => event.state === "firing")!;

      now += 60_000;
      const second = await startAlerting(subject.store, clock);
      feed(second, Array(40).fill(0));
      await second.flush();
      assert.equal(second.counters.firing, 0, "still failing after the restart: no second firing");
      feed(second, Array(100).fill(1));
      await second.close();
      assert.equal(second.counters.resolved, 1, "recovery after the restart resolves the alert fired before it");
      const resolved = second.recentEvents.find((event) => event.state === "resolved")!;
      assert.equal(resolved.alert_id, fired.alert_id);
      assert.equal(resolved.fired_at, fired.fired_at);

      const stored = (await subject.alertEvents()).map((event) => `${event.alert_id} ${event.state}`).sort();
      assert.deepEqual(stored, [`${fired.alert_id} firing`, `${fired.alert_id} resolved`]);
      assert.deepEqual(await subject.store.alerts.loadState(), [{ ruleId: rule.id, firing: null, updatedAt: now }]);
    });

    test("without the restore, the same failure fires a second alert", async () => {
      now += 60_000;
      const first = await startAlerting(subject.store, clock);
      feed(first, Array(40).fill(0));
      await first.close();
      assert.equal(first.counters.firing, 1);
      now += 60_000;
      const forgetful = await startAlerting(subject.store, clock, false);
      feed(forgetful, Array(40).fill(0));
      await forgetful.close();
      assert.equal(forgetful.counters.firing, 1);
    });
  });
}
