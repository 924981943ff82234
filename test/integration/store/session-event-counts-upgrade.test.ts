/**
 * Upgrading a store of the release before migration 0025, whose session rollups and summaries held no event
 * counts: after the upgrade every session row is still there with its counts, each now carries its requests with
 * a user event (backfilled from the raw rows), and the RAG quality board's session rates read "no data" over a
 * range whose sessions carry no user event and count only sessions with an id — the numbers a store this release
 * wrote shows; every other panel shows what it showed before the upgrade.
 *
 * The earlier store: migrations 0001–0024 in an embedded folder, the requests below written through the real sink,
 * and the rollups refreshed as that release refreshed them (its session SELECTs, without the event columns, which
 * its store has not). A store this release made gets the same requests.
 *
 * The requests (one service, online, whole minutes from T0; test/support/session-traffic.ts):
 *   quiet range [T0, T0 + 10 min): session q1 two requests (minutes 0, 1), q2 one (2), none with an event; a
 *     request without a session id (3) resolved;
 *   event range [T0 + 60, T0 + 70 min): s1 two requests (60, 61), the second resolved; s2 one (62), resolved;
 *     s3 one (63), no event; without a session id one resolved (64), one without events (65).
 * Worked by hand:
 *   event_requests per session row: q1 0 (both minutes), q2 0, s1 0 at minute 60 and 1 at 61 (summary 1), s2 1,
 *   s3 0; the rows of requests without a session id (key '') 0, their per-minute counts kept (1 request each,
 *   resolved at minutes 3 and 64).
 *   quiet range: no session with a user event → both session rates no data.
 *   event range: sessions s1, s2, s3 → resolved 2/3, first contact (s2) 1/3.
 *   After the upgrade, s3 gets a resolved event (a re-evaluated request through the sink): resolved 3/3, first
 *   contact s2 and s3 = 2/3 — the view filling session_rollups_by_session copies the new column.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { collectDashboard, type DashboardResult } from "../../../report/collect-report.js";
import { readDashboards, type ReportDashboard } from "../../../report/dashboard-files.js";
import { ClickHouseMetricRollups, type MetricRollupOptions } from "../../../store/clickhouse/metric-rollups.js";
import { ClickHouseSink } from "../../../store/clickhouse/clickhouse-sink.js";
import { runMigrations } from "../../../store/clickhouse/run-migrations.js";
import { MINUTE, SESSION_TRAFFIC as PLANNED, sessionTrafficRequest, T0, type PlannedSessionRequest as Planned } from "../../support/session-traffic.js";
import { plannedCaseResult } from "../../support/stored-requests.js";
import { queryRows, temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";
import { migrationsThrough } from "../../support/previous-release.js";

const PREVIOUS_RELEASE_LAST_MIGRATION = 24;
const WRITTEN_AT = T0 + 3 * 3_600_000;

function evaluationOf(planned: Planned, index: number) {
  return { caseResult: plannedCaseResult(sessionTrafficRequest(planned, index, "d")), evaluationResults: [] };
}

/** Writes through the real sink, then refreshes the rollups as the collector does after its writes. */
async function write(on: TemporaryStore, planned: readonly Planned[], versionAt: number, rollupOptions: MetricRollupOptions = {}): Promise<void> {
  const rollups = new ClickHouseMetricRollups(on.connection, { ...rollupOptions, now: () => versionAt });
  const sink = new ClickHouseSink(on.connection, { datasetOf: () => "", now: () => versionAt, rollups });
  const written = await sink.write(planned.map((item) => evaluationOf(item, PLANNED.indexOf(item))));
  assert.ok(written.ok, written.ok ? "" : written.error.message);
  await rollups.refresh();
  assert.equal(rollups.counters.failures, 0, rollups.counters.lastError);
}

let folder: string;
let earlier: TemporaryStore;
let fresh: TemporaryStore;
let board: ReportDashboard;

const range = (fromMinute: number, toMinute: number) => ({ fromMs: T0 + fromMinute * MINUTE, toMs: T0 + toMinute * MINUTE, values: {} });
const readsSessions = (sql: string) => /session_summaries|session_rollups/.test(sql);

/** Every panel of the board over a range: panel title → its frames as rows of values, or its error. */
async function panels(on: TemporaryStore, fromMinute: number, toMinute: number): Promise<DashboardResult> {
  return collectDashboard(on.store.dashboards, board, range(fromMinute, toMinute));
}

/** The session rates of a board over a range, as the panel "User behaviour over the range" shows them. */
function sessionRates(result: DashboardResult): { resolved: unknown; firstContact: unknown } {
  const panel = [...result.panels.values()].find((candidate) => candidate.panel.title === "User behaviour over the range")!;
  assert.equal(panel.error, null);
  const value = (name: string) => {
    const field = panel.frames.flatMap((frame) => frame.fields).find((candidate) => candidate.name === name);
    assert.ok(field, `no column ${name}`);
    return field.values[0];
  };
  return { resolved: value("Sessions resolved"), firstContact: value("First-contact resolution") };
}

/** The panels that read no session table: their frames, keyed by title. */
function otherPanels(result: DashboardResult): Map<string, unknown> {
  const others = new Map<string, unknown>();
  for (const { panel, frames, error } of result.panels.values()) {
    if (panel.targets.some((target) => readsSessions(target.rawSql))) continue;
    others.set(panel.title, error ?? frames.map((frame) => frame.fields.map((field) => [field.name, field.values])));
  }
  return others;
}

const SESSION_ROWS = "SELECT session_key, toUnixTimestamp(minute) - {t0:UInt32} AS at, requests, resolved, handed_off, followed_up, sessionless_requests, sessionless_resolved, sessionless_first_contact FROM {{database}}.session_rollups FINAL ORDER BY session_key, at";
const SUMMARY_ROWS = "SELECT session_key, toUnixTimestamp(first_minute) - {t0:UInt32} AS first, toUnixTimestamp(last_minute) - {t0:UInt32} AS last, requests, resolved, handed_off, followed_up, scopes FROM {{database}}.session_summaries FINAL ORDER BY session_key";
const rowsOf = (on: TemporaryStore, sql: string) => queryRows<Record<string, unknown>>(on.connection, sql, { t0: T0 / 1000 });

before(async () => {
  folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-release-0024-migrations-"));
  await migrationsThrough(PREVIOUS_RELEASE_LAST_MIGRATION, folder);
  earlier = await temporaryStore({ migrate: false });
  await runMigrations(earlier.connection, folder);
  await write(earlier, PLANNED, WRITTEN_AT, { sessionEventCounts: false, notJudgedCount: false, failingRows: false });
  fresh = await temporaryStore({ beside: earlier });
  await write(fresh, PLANNED, WRITTEN_AT);
  board = (await readDashboards(undefined, ["rag-quality.json"]))[0]!;
});

after(async () => {
  await fresh?.cleanup();
  await earlier?.cleanup();
  await rm(folder, { recursive: true, force: true });
});

describe("upgrading a store of the release before migration 0025", () => {
  test("keeps every session row, backfills the event counts, and the session rates read no data or count sessions with an id", async () => {
    const rowsBefore = await rowsOf(earlier, SESSION_ROWS);
    const summariesBefore = await rowsOf(earlier, SUMMARY_ROWS);
    assert.equal(rowsBefore.length, 10, JSON.stringify(rowsBefore));
    const othersBefore = { quiet: otherPanels(await panels(earlier, 0, 10)), events: otherPanels(await panels(earlier, 60, 70)) };
    assert.ok(othersBefore.quiet.size > 10, "the board has panels besides the session rates");

    const { applied } = await runMigrations(earlier.connection);
    assert.equal(applied[0], "0025_session_event_counts", applied.join(", "));

    // Nothing lost: every row with its counts, the rows of requests without a session id included.
    assert.deepEqual(await rowsOf(earlier, SESSION_ROWS), rowsBefore);
    assert.deepEqual(await rowsOf(earlier, SUMMARY_ROWS), summariesBefore);
    const events = await rowsOf(earlier, "SELECT session_key, toUnixTimestamp(minute) - {t0:UInt32} AS at, event_requests FROM {{database}}.session_rollups FINAL ORDER BY session_key, at");
    const m = (minute: number) => minute * 60;
    assert.deepEqual(
      events.map((row) => [row.session_key, Number(row.at), Number(row.event_requests)]),
      [["", m(3), 0], ["", m(64), 0], ["", m(65), 0], ["q1", m(0), 0], ["q1", m(1), 0], ["q2", m(2), 0], ["s1", m(60), 0], ["s1", m(61), 1], ["s2", m(62), 1], ["s3", m(63), 0]].sort((a, b) => String(a[0]).localeCompare(String(b[0])) || Number(a[1]) - Number(b[1])),
    );
    const summaries = await rowsOf(earlier, "SELECT session_key, event_requests FROM {{database}}.session_summaries FINAL ORDER BY session_key");
    assert.deepEqual(summaries.map((row) => [row.session_key, Number(row.event_requests)]), [["q1", 0], ["q2", 0], ["s1", 1], ["s2", 1], ["s3", 0]]);

    // The panels: no data where no session carries an event; 2/3 and 1/3 where sessions do — as on a fresh store.
    const quiet = await panels(earlier, 0, 10);
    const eventful = await panels(earlier, 60, 70);
    assert.deepEqual(sessionRates(quiet), { resolved: null, firstContact: null });
    assert.deepEqual(sessionRates(eventful), { resolved: 2 / 3, firstContact: 1 / 3 });
    assert.deepEqual(sessionRates(await panels(fresh, 0, 10)), sessionRates(quiet));
    assert.deepEqual(sessionRates(await panels(fresh, 60, 70)), sessionRates(eventful));
    for (const result of [quiet, eventful]) {
      for (const { panel, error } of result.panels.values()) assert.equal(error, null, `${panel.title}: ${String(error)}`);
    }
    // Every other panel shows what it showed before.
    assert.deepEqual(otherPanels(quiet), othersBefore.quiet);
    assert.deepEqual(otherPanels(eventful), othersBefore.events);
  });

  test("after the upgrade, a late event is counted through the refresh and the view that copies the new column", async () => {
    const s3 = PLANNED.find((item) => item.id === "s3a")!;
    // A collector started on the upgraded store: its clock (row versions) runs after the upgrade's.
    await write(earlier, [{ ...s3, resolved: true }], Date.now() + 3_600_000);
    const [copied] = await rowsOf(earlier, "SELECT event_requests FROM {{database}}.session_rollups_by_session FINAL WHERE session_key = 's3'");
    assert.equal(Number(copied!.event_requests), 1);
    assert.deepEqual(sessionRates(await panels(earlier, 60, 70)), { resolved: 1, firstContact: 2 / 3 });
  });
});
