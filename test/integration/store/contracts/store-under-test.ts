/**
 * A store a contract suite runs against, with the few read-backs the ports
 * themselves do not offer (what a write-only port wrote): the ClickHouse
 * adapter on a fresh chDB database (test/support/temporary-store.ts), or the
 * in-memory store.
 */
import type { AlertEvent } from "../../../../collector/10-alert/alert-event.js";
import type { HealthRow } from "../../../../store/ports/health-sink.js";
import type { Store } from "../../../../store/ports/store.js";
import { createMemoryStore } from "../../../../store/memory/memory-store.js";
import { queryRows, temporaryStore } from "../../../support/temporary-store.js";
import type { RunLineageSink } from "../../../../store/ports/run-lineage-sink.js";
import { ClickHouseRunLineageSink } from "../../../../store/clickhouse/clickhouse-run-lineage-sink.js";
import { MemoryRunLineageSink } from "../../../../store/memory/memory-run-lineage-sink.js";
import { RowVersionClock } from "../../../../store/row-version-clock.js";

export interface StoreUnderTest {
  store: Store;
  healthRows(): Promise<HealthRow[]>;
  alertEvents(): Promise<AlertEvent[]>;
  /** The rows stored for one alert event id as they are, before a query or a merge collapses them. */
  storedAlertRows(eventId: string): Promise<number>;
  quarantinedIds(): Promise<string[]>;
  /** Each quarantined Case Result id with the error its kept row names. */
  quarantinedErrors(): Promise<[string, string][]>;
  /** A run lineage sink on the same tables with a clock of its own: another process (another machine) recording runs. */
  runLineageSinkOfAnotherProcess(now: () => number): RunLineageSink;
  /** Brings what the store derives after a write up to date now: the ClickHouse adapter's rollups, which follow the writes within clickhouse.rollupRefreshMs. */
  settle(): Promise<void>;
  /**
   * Stops (`hold` true) or restarts the engine's background merges of `table`, so that rows a newer row replaces stay
   * stored until a query collapses them, as they do before merges catch up: a reader must answer the same either way.
   * Nothing to do for the in-memory store, which keeps one row per key.
   */
  holdMerges(table: string, hold: boolean): Promise<void>;
  cleanup(): Promise<void>;
}

export type StoreFactory = (options: { now: () => number }) => Promise<StoreUnderTest>;

export const clickHouseFactory: StoreFactory = async ({ now }) => {
  const temporary = await temporaryStore({ store: { now } });
  const { connection } = temporary;
  return {
    store: temporary.store,
    healthRows: async () =>
      (await queryRows<HealthRow & { ts_ms: string }>(connection, "SELECT toUnixTimestamp64Milli(ts) AS ts_ms, instance, role, metric, kind, value FROM {{database}}.collector_health FINAL")).map(({ ts_ms, ...row }) => ({ ...row, ts: new Date(Number(ts_ms)).toISOString(), value: Number(row.value) })),
    alertEvents: async () => (await queryRows<{ payload: string }>(connection, "SELECT payload FROM {{database}}.alerts FINAL")).map((row) => JSON.parse(row.payload) as AlertEvent),
    storedAlertRows: async (eventId) => Number((await queryRows<{ rows: string }>(connection, "SELECT count() AS rows FROM {{database}}.alerts WHERE event_id = {eventId:String}", { eventId }))[0]!.rows),
    quarantinedIds: async () => (await queryRows<{ case_result_id: string }>(connection, "SELECT case_result_id FROM {{database}}.quarantined_results FINAL")).map((row) => row.case_result_id),
    quarantinedErrors: async () => (await queryRows<{ case_result_id: string; error: string }>(connection, "SELECT case_result_id, error FROM {{database}}.quarantined_results FINAL ORDER BY case_result_id")).map((row) => [row.case_result_id, row.error]),
    runLineageSinkOfAnotherProcess: (now) => new ClickHouseRunLineageSink(connection, new RowVersionClock(now)),
    settle: () => temporary.store.rollups.refresh(),
    holdMerges: async (table, hold) => {
      await connection.client.command({ query: `SYSTEM ${hold ? "STOP" : "START"} MERGES ${connection.database}.${table}` });
    },
    cleanup: () => temporary.cleanup(),
  };
};

export const memoryFactory: StoreFactory = async ({ now }) => {
  const store = createMemoryStore({ now });
  return {
    store,
    healthRows: async () => store.health.rows(),
    alertEvents: async () => store.alerts.events(),
    storedAlertRows: async (eventId) => store.alerts.events().filter((event) => event.event_id === eventId).length,
    quarantinedIds: async () => store.quarantine.quarantined().map((entry) => entry.caseResultId),
    quarantinedErrors: async () => store.quarantine.quarantined().map((entry): [string, string] => [entry.caseResultId, entry.error]).sort((first, second) => (first[0] < second[0] ? -1 : first[0] > second[0] ? 1 : 0)),
    runLineageSinkOfAnotherProcess: (now) => new MemoryRunLineageSink(store.tables, new RowVersionClock(now)),
    settle: async () => {},
    holdMerges: async () => {},
    cleanup: async () => {},
  };
};

export const implementations: [string, StoreFactory][] = [
  ["ClickHouse adapter (chDB)", clickHouseFactory],
  ["in-memory store", memoryFactory],
];
