/**
 * root_cause_rollups of a case sent again, whatever the order the refreshes ran in (embedded chDB, the store's own
 * sink and rollup refresh): a harness retried a failing case after midnight UTC from a renamed service
 * (contracts/case-sent-again.ts: 23:59 from support-bot, 00:01 from support-bot-v2, one case_result_id), and the
 * root-cause evaluator labelled each request CITATION_ERROR. Two stores hold the same rows, refreshed differently:
 * one after each write (two refreshes), one after both (one refresh). Each stored request is a failing request of
 * its own minute and service, as the trace list lists them and the request rollups count them.
 *
 * Worked by hand: 23:59 support-bot CITATION_ERROR 1, 00:01 support-bot-v2 CITATION_ERROR 1 — in both stores. Before,
 * a refresh grouped the case's rows within its minutes by case_result_id: the store refreshed twice had those two
 * rows, the one refreshed once a single row (23:59, the first start, under support-bot-v2, the newest row's service,
 * which sent nothing at 23:59).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ClickHouseSink } from "../../../store/clickhouse/clickhouse-sink.js";
import { ClickHouseRunLineageSink } from "../../../store/clickhouse/clickhouse-run-lineage-sink.js";
import { RowVersionClock } from "../../../store/row-version-clock.js";
import { ClickHouseMetricRollups, type WrittenRequest } from "../../../store/clickhouse/metric-rollups.js";
import { queryRows, temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";
import { AFTER_MIDNIGHT, sendFailingCaseAgain } from "./contracts/case-sent-again.js";
import type { StoreUnderTest } from "./contracts/store-under-test.js";

const ROLLUP_ROWS =
  "SELECT toString(minute) AS minute, service_name, root_cause, sum(failing_requests) AS failing FROM {{database}}.root_cause_rollups FINAL GROUP BY minute, service_name, root_cause HAVING failing > 0 ORDER BY minute, service_name, root_cause";

const EXPECTED = [
  ["2026-07-07 23:59:00", "support-bot", "CITATION_ERROR", 1],
  ["2026-07-08 00:01:00", "support-bot-v2", "CITATION_ERROR", 1],
];

/** The two requests' minutes, tenant and service, as the sink notes them for a refresh. */
const FIRST: WrittenRequest = { startedAt: AFTER_MIDNIGHT.startedAt[0], tenantId: "t1", serviceName: "support-bot" };
const SECOND: WrittenRequest = { startedAt: AFTER_MIDNIGHT.startedAt[1], tenantId: "t1", serviceName: "support-bot-v2" };

/**
 * A store holding the case sent again, its rollups refreshed after each write (`refreshEachWrite`) or once, after
 * both. The requests are written through a sink of their own that notes nothing, and the minutes are noted here: the
 * store's sink starts a refresh as soon as it writes, which would make the number of refreshes a matter of timing.
 */
async function storeWithCaseSentAgain(refreshEachWrite: boolean, beside?: TemporaryStore): Promise<{ temporary: TemporaryStore; rollups: ClickHouseMetricRollups }> {
  let clock = Date.parse("2026-07-08T10:00:00.000Z");
  // chDB opens one data folder per process: the second store is another database beside the first.
  const temporary = await temporaryStore({ store: { now: () => clock }, ...(beside === undefined ? {} : { beside }) });
  const rollups = new ClickHouseMetricRollups(temporary.connection, { now: () => clock });
  const subject: StoreUnderTest = {
    store: { ...temporary.store, results: new ClickHouseSink(temporary.connection, { now: () => clock }) },
    healthRows: async () => [],
    alertEvents: async () => [],
    storedAlertRows: async () => 0,
    quarantinedIds: async () => [],
    quarantinedErrors: async () => [],
    runLineageSinkOfAnotherProcess: (now) => new ClickHouseRunLineageSink(temporary.connection, new RowVersionClock(now)),
    holdMerges: async () => {},
    settle: async () => {
      rollups.note(refreshEachWrite ? [SECOND] : [FIRST, SECOND]);
      await rollups.refresh();
    },
    cleanup: () => temporary.cleanup(),
  };
  // sendFailingCaseAgain moves the clock between the two writes: a refresh there recomputes the first request alone.
  await sendFailingCaseAgain(
    subject,
    async (milliseconds) => {
      if (refreshEachWrite) {
        rollups.note([FIRST]);
        await rollups.refresh();
      }
      clock += milliseconds;
    },
    "t1",
    "CITATION_ERROR",
  );
  assert.deepEqual([rollups.counters.refreshes, rollups.counters.failures], [refreshEachWrite ? 2 : 1, 0], rollups.counters.lastError);
  return { temporary, rollups };
}

describe("root_cause_rollups of a case sent again after midnight from a renamed service", () => {
  let refreshedTwice: { temporary: TemporaryStore; rollups: ClickHouseMetricRollups };
  let refreshedOnce: { temporary: TemporaryStore; rollups: ClickHouseMetricRollups };
  before(async () => {
    refreshedTwice = await storeWithCaseSentAgain(true);
    refreshedOnce = await storeWithCaseSentAgain(false, refreshedTwice.temporary);
  });
  after(async () => {
    for (const { temporary, rollups } of [refreshedOnce, refreshedTwice]) {
      await rollups.close();
      await temporary.cleanup();
    }
  });

  const rows = async ({ temporary }: { temporary: TemporaryStore }) => (await queryRows<{ minute: string; service_name: string; root_cause: string; failing: string }>(temporary.connection, ROLLUP_ROWS)).map((row) => [row.minute, row.service_name, row.root_cause, Number(row.failing)]);

  test("refreshed after each write: each request under its own minute and service", async () => {
    assert.deepEqual(await rows(refreshedTwice), EXPECTED);
  });

  test("refreshed once after both writes: the same rows", async () => {
    assert.deepEqual(await rows(refreshedOnce), EXPECTED);
  });
});
