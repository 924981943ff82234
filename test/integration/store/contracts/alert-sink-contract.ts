/** The AlertSink contract: events kept once per event_id; the latest state of each rule. */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { AlertEvent } from "../../../../collector/10-alert/alert-event.js";
import { stateAfter } from "../../../../store/ports/alert-sink.js";
import type { StoreFactory, StoreUnderTest } from "./store-under-test.js";

export function alertEvent(overrides: Partial<AlertEvent> = {}): AlertEvent {
  return {
    event_id: "ev_1",
    alert_id: "al_1",
    rule_id: "faithfulness_floor",
    metric: "faithfulness",
    state: "firing",
    threshold: ">= 0.92",
    statistic: "wilson",
    value: 0.8,
    lower: 0.7,
    upper: 0.88,
    confidence: 0.95,
    sample_count: 40,
    heuristic_judgements_left_out: 0,
    window: "15m",
    trace_ids: ["0af7651916cd43dd8448eb211c80319c"],
    at: "2026-07-08T10:00:00.000Z",
    fired_at: "2026-07-08T10:00:00.000Z",
    message: "faithfulness_floor is failing",
    ...overrides,
  };
}

export function alertSinkContract(name: string, factory: StoreFactory): void {
  describe(`AlertSink: ${name}`, () => {
    let clock = Date.parse("2026-07-08T10:00:00.000Z");
    let subject: StoreUnderTest;
    before(async () => {
      subject = await factory({ now: () => clock });
    });
    after(() => subject.cleanup());

    test("an event recorded twice is kept once, as it was", async () => {
      const event = alertEvent();
      assert.deepEqual(await subject.store.alerts.record([event]), { ok: true, value: undefined });
      assert.deepEqual(await subject.store.alerts.record([event]), { ok: true, value: undefined });
      assert.deepEqual(await subject.alertEvents(), [event]);
    });

    // One event_id recorded again with other values (its transition computed again after a restart that had not saved
    // the rule's state), in another batch (the same batch again is a retried delivery: kept once, above): the store's
    // row versions (store/row-version-clock.ts) keep the one recorded later, even after the clock stepped back.
    // Versioned by the clock alone, the ClickHouse adapter kept the earlier.
    test("an event recorded again with other values keeps the later record, whatever the clock did", async () => {
      const first = alertEvent({ event_id: "ev_again", alert_id: "al_again", value: 0.8 });
      const again = alertEvent({ event_id: "ev_again", alert_id: "al_again", value: 0.75, at: "2026-07-08T10:01:00.000Z" });
      const beside = alertEvent({ event_id: "ev_beside", alert_id: "al_beside" });
      assert.deepEqual(await subject.store.alerts.record([first]), { ok: true, value: undefined });
      clock -= 5_000;
      assert.deepEqual(await subject.store.alerts.record([again, beside]), { ok: true, value: undefined });
      clock += 5_000;
      assert.deepEqual((await subject.alertEvents()).filter((event) => event.event_id === "ev_again"), [again]);
    });

    // The same event ids again, alone in a later batch, with other values: a transition computed again after a
    // restart. The ClickHouse adapter's deduplication token once named the event ids only, so the server dropped this
    // insert as a retry of the first and the earlier values stayed, where the in-memory store kept the later.
    test("a later batch of the same event ids with other values is read as the later values", async () => {
      const first = [alertEvent({ event_id: "ev_recomputed_1", alert_id: "al_recomputed", value: 0.8 }), alertEvent({ event_id: "ev_recomputed_2", alert_id: "al_recomputed_2", value: 0.6 })];
      const later = [
        alertEvent({ event_id: "ev_recomputed_1", alert_id: "al_recomputed", value: 0.7, lower: 0.6, at: "2026-07-08T10:02:00.000Z", fired_at: "2026-07-08T10:02:00.000Z", message: "faithfulness_floor is failing again" }),
        alertEvent({ event_id: "ev_recomputed_2", alert_id: "al_recomputed_2", value: 0.5, sample_count: 41 }),
      ];
      assert.deepEqual(await subject.store.alerts.record(first), { ok: true, value: undefined });
      assert.deepEqual(await subject.store.alerts.record(later), { ok: true, value: undefined });
      const read = (await subject.alertEvents()).filter((event) => event.event_id.startsWith("ev_recomputed_")).sort((left, right) => left.event_id.localeCompare(right.event_id));
      assert.deepEqual(read, later);
    });

    // A retried delivery (the same events again, say after a timeout whose insert had in fact landed) is dropped by
    // the server, merges or not: one copy is stored, though the retry takes a newer row version.
    test("a retried insert of the same events stores one copy", async () => {
      const events = [alertEvent({ event_id: "ev_retried_1", alert_id: "al_retried" }), alertEvent({ event_id: "ev_retried_2", alert_id: "al_retried_2", value: 0.6 })];
      await subject.holdMerges("alerts", true);
      try {
        assert.deepEqual(await subject.store.alerts.record(events), { ok: true, value: undefined });
        assert.deepEqual(await subject.store.alerts.record(events), { ok: true, value: undefined });
        assert.equal(await subject.storedAlertRows("ev_retried_1"), 1);
        assert.equal(await subject.storedAlertRows("ev_retried_2"), 1);
      } finally {
        await subject.holdMerges("alerts", false);
      }
    });

    test("nothing saved: no state; then the latest state of each rule, in rule order", async () => {
      assert.deepEqual(await subject.store.alerts.loadState(), []);
      const firing = alertEvent();
      const resolved = alertEvent({ event_id: "ev_2", state: "resolved", at: "2026-07-08T10:20:00.000Z" });
      const other = alertEvent({ event_id: "ev_3", alert_id: "al_3", rule_id: "a_latency", at: "2026-07-08T10:05:00.000Z", fired_at: "2026-07-08T10:05:00.000Z" });
      await subject.store.alerts.saveState([stateAfter(firing), stateAfter(other)]);
      assert.deepEqual(await subject.store.alerts.loadState(), [
        { ruleId: "a_latency", firing: { alertId: "al_3", firedAt: Date.parse("2026-07-08T10:05:00.000Z") }, updatedAt: Date.parse("2026-07-08T10:05:00.000Z") },
        { ruleId: "faithfulness_floor", firing: { alertId: "al_1", firedAt: Date.parse("2026-07-08T10:00:00.000Z") }, updatedAt: Date.parse("2026-07-08T10:00:00.000Z") },
      ]);
      await subject.store.alerts.saveState([stateAfter(resolved)]);
      // An older state saved late (a retried write) does not bring the alert back.
      await subject.store.alerts.saveState([stateAfter(firing)]);
      assert.deepEqual((await subject.store.alerts.loadState()).find((state) => state.ruleId === "faithfulness_floor"), { ruleId: "faithfulness_floor", firing: null, updatedAt: Date.parse("2026-07-08T10:20:00.000Z") });
    });
  });
}
