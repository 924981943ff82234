/**
 * The session rates read from session summaries (migration 0021,
 * dashboards/source/session-summaries.ts) give the numbers of the raw rows
 * (every request of the range grouped by session, SOURCES.sessions) for
 * ranges that hold a session whole, cut it at their start or end, or fall
 * inside it; for sessions of one scope and of two services; for requests
 * without a session id; after a late request moves a session's first minute
 * into the month before (its summary changes partition); after a request
 * leaves its session; and after a rebuild. Requests are written through the
 * sink and the rollups refreshed as the collector does; the clocks of both are
 * injected and advance with every call.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { aggregateSelect } from "../../../dashboards/source/aggregate-metrics.js";
import { namedAggregate } from "../../../dashboards/source/quality-board.js";
import { dashboardHours, dashboardHoursOverTime, dashboardScope } from "../../../dashboards/source/sql-scope.js";
import { createDefaultRegistry } from "../../../evaluators/default-registry.js";
import { evaluateCaseResult, type CaseEvaluation } from "../../../evaluators/evaluate-case-result.js";
import { allOf, type Variables } from "../../../report/grafana-macros.js";
import { executableSql, runQuery } from "../../../report/panel-data.js";
import { ClickHouseMetricRollups, SESSIONS_PER_STATEMENT } from "../../../store/clickhouse/metric-rollups.js";
import { ClickHouseSink } from "../../../store/clickhouse/clickhouse-sink.js";
import { seedExample } from "../../support/case-results.js";
import { queryRows, temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";

const SERVICES = ["svc-1", "svc-2"];
const SESSION_RATES = ["session_resolution_rate", "first_contact_resolution"].map(namedAggregate);
const at = (text: string): number => Date.parse(`2026-07-${text}:00.000Z`);

let store: TemporaryStore;
let rollups: ClickHouseMetricRollups;
let sink: ClickHouseSink;
let rollupClock = Date.parse("2026-07-10T00:00:00.000Z");
let sinkClock = Date.parse("2026-07-09T00:00:00.000Z");

interface Request {
  id: string;
  /** `DDTHH:MM` in July 2026, or a full ISO time. */
  startedAt: string;
  session: string | null;
  service?: string;
  feedback?: string[];
}

function evaluation({ id, startedAt, session, service = "svc-1", feedback = [] }: Request): CaseEvaluation {
  const { caseResult, evalCase } = seedExample();
  // At the start of its minute: a range ending on that minute holds the request in both forms (a rollup row is in a
  // range when its minute starts in it; a raw row when its start is, migration 0009).
  const started = startedAt.includes("Z") ? startedAt : new Date(at(startedAt)).toISOString();
  const result = evaluateCaseResult(createDefaultRegistry(), { ...caseResult, case_result_id: id, trace_id: `trace_${id}`, started_at: started }, evalCase, started);
  const observation = result.caseResult.rag_observation as unknown as Record<string, unknown>;
  observation.session_id = session;
  observation.service_name = service;
  observation.feedback = feedback.map((kind) => ({ kind, value: null, comment: null, recorded_at: started, span_id: null, chunk_id: null }));
  return result;
}

async function write(requests: Request[]): Promise<void> {
  const written = await sink.write(requests.map(evaluation));
  assert.ok(written.ok, written.ok ? "" : written.error.message);
  await rollups.refresh();
  assert.equal(rollups.counters.failures, 0, rollups.counters.lastError);
}

function variables(services: string[]): Variables {
  return { service: services.length === SERVICES.length ? allOf(SERVICES) : { value: services }, tenant: allOf([""]), dataset: allOf([""]), run: allOf([""]) };
}

async function numbers(sql: string, fromMs: number, toMs: number, services: string[]): Promise<unknown[][]> {
  const frame = await runQuery(store.store.dashboards, "A", executableSql(sql, store.connection.database, variables(services), { fromMs, toMs, intervalMs: 300_000 }));
  return Array.from({ length: frame.rows }, (_, index) => frame.fields.map((field) => field.values[index]));
}

/** Ranges of whole minutes (the boards' rollup panels count whole minutes): inside, cutting and around sessions. */
const RANGES: [string, number, number][] = [
  ["the whole data", at("01T00:00") - 86_400_000 * 3, at("02T00:00")],
  ["10:00–11:00", at("01T10:00"), at("01T11:00")],
  ["10:03–10:25 (cuts the long session at both ends)", at("01T10:03"), at("01T10:25")],
  ["10:05–10:05 (one minute)", at("01T10:05"), at("01T10:05")],
  ["10:20–12:00 (cuts its start)", at("01T10:20"), at("01T12:00")],
  ["09:00–10:10 (cuts its end)", at("01T09:00"), at("01T10:10")],
  ["across the month's end", Date.parse("2026-06-30T23:00:00.000Z"), at("01T00:30")],
  ["the last day of June", Date.parse("2026-06-30T00:00:00.000Z"), Date.parse("2026-06-30T23:59:00.000Z")],
];

/** Every range and service filter: the session rates over the range and per 5-minute bucket, from summaries and raw. */
async function compared(): Promise<{ what: string; summaries: unknown[][]; raw: unknown[][] }[]> {
  const overRange = (preferRollups: boolean) => aggregateSelect(SESSION_RATES, { scope: dashboardScope, hours: dashboardHours, preferRollups });
  const overTime = (preferRollups: boolean) => aggregateSelect(SESSION_RATES, { leading: ["$__timeInterval({time}) AS time"], scope: dashboardScope, hours: dashboardHoursOverTime, groupBy: "time", orderBy: "time", preferRollups });
  assert.match(overRange(true), /FROM session_summaries FINAL/);
  assert.match(overTime(true), /FROM session_summaries FINAL/);
  assert.doesNotMatch(overRange(false), /session_summaries|session_rollups/);
  const results = [];
  for (const [name, fromMs, toMs] of RANGES) {
    for (const services of [SERVICES, ["svc-1"], ["svc-2"]]) {
      for (const [form, select] of [["over the range", overRange], ["over time", overTime]] as const) {
        results.push({ what: `${name}, ${services.join(" + ")}, ${form}`, summaries: await numbers(select(true), fromMs, toMs, services), raw: await numbers(select(false), fromMs, toMs, services) });
      }
    }
  }
  return results;
}

async function assertSameNumbers(): Promise<void> {
  const differing = (await compared()).filter(({ summaries, raw }) => JSON.stringify(summaries) !== JSON.stringify(raw)).map(({ what, summaries, raw }) => `${what}: ${JSON.stringify(summaries)} for ${JSON.stringify(raw)}`);
  assert.deepEqual(differing, []);
}

/** session_summaries as FINAL reads it: session key → its scope rows (service: first minute … last minute, requests). */
async function summaries(): Promise<Record<string, string[]>> {
  const rows = await queryRows<{ session_key: string; service_name: string; first: string; last: string; requests: string; scopes: string }>(
    store.connection,
    "SELECT session_key, service_name, formatDateTime(first_minute, '%d %H:%i') AS first, formatDateTime(last_minute, '%d %H:%i') AS last, requests, scopes FROM {{database}}.session_summaries FINAL ORDER BY session_key, service_name SETTINGS do_not_merge_across_partitions_select_final = 1",
  );
  const bySession: Record<string, string[]> = {};
  for (const row of rows) (bySession[row.session_key] ??= []).push(`${row.service_name}: ${row.first} … ${row.last}, ${row.requests} requests of ${row.scopes} scopes`);
  return bySession;
}

before(async () => {
  store = await temporaryStore();
  rollups = new ClickHouseMetricRollups(store.connection, { now: () => (rollupClock += 1_000) });
  sink = new ClickHouseSink(store.connection, { datasetOf: () => "", now: () => (sinkClock += 1_000), rollups });
});

after(async () => {
  await store.cleanup();
});

describe("session rates from session summaries", () => {
  test("equal the raw rows for ranges that hold, cut or fall inside sessions, per service", async () => {
    await write([
      // A long session of one service: 10:00 to 10:40, resolved on its last request.
      { id: "long_1", startedAt: "01T10:00", session: "long" },
      { id: "long_2", startedAt: "01T10:05", session: "long" },
      { id: "long_3", startedAt: "01T10:40", session: "long", feedback: ["resolved"] },
      // One request, resolved: first contact.
      { id: "single_1", startedAt: "01T10:10", session: "single", feedback: ["resolved"] },
      // One request, resolved but handed off: not first contact.
      { id: "handed_1", startedAt: "01T10:12", session: "handed", feedback: ["resolved", "handoff"] },
      // A session of two services: svc-1 at 10:02, svc-2 at 10:30 (resolved there).
      { id: "both_1", startedAt: "01T10:02", session: "both" },
      { id: "both_2", startedAt: "01T10:30", session: "both", service: "svc-2", feedback: ["resolved"] },
      // Two services in one minute, inside every range that holds the minute.
      { id: "pair_1", startedAt: "01T10:15", session: "pair", feedback: ["resolved"] },
      { id: "pair_2", startedAt: "01T10:15", session: "pair", service: "svc-2" },
      // Across the month's end: June 30 23:50 and July 1 00:10.
      { id: "month_1", startedAt: "2026-06-30T23:50:00.000Z", session: "month" },
      { id: "month_2", startedAt: "01T00:10", session: "month", feedback: ["resolved"] },
      // Requests without a session id: each a session of its own.
      { id: "alone_1", startedAt: "01T10:05", session: null, feedback: ["resolved"] },
      { id: "alone_2", startedAt: "01T10:21", session: null },
    ]);
    assert.deepEqual(await summaries(), {
      both: ["svc-1: 01 10:02 … 01 10:02, 1 requests of 2 scopes", "svc-2: 01 10:30 … 01 10:30, 1 requests of 2 scopes"],
      handed: ["svc-1: 01 10:12 … 01 10:12, 1 requests of 1 scopes"],
      long: ["svc-1: 01 10:00 … 01 10:40, 3 requests of 1 scopes"],
      month: ["svc-1: 30 23:50 … 01 00:10, 2 requests of 1 scopes"],
      pair: ["svc-1: 01 10:15 … 01 10:15, 1 requests of 2 scopes", "svc-2: 01 10:15 … 01 10:15, 1 requests of 2 scopes"],
      single: ["svc-1: 01 10:10 … 01 10:10, 1 requests of 1 scopes"],
    });
    await assertSameNumbers();
  });

  test("a late request that moves a session's first minute into the month before leaves no summary behind", async () => {
    // "july" starts on July 1 00:20; a request of June 30 23:40 arrives later: its summary moves to June's partition.
    await write([{ id: "july_1", startedAt: "01T00:20", session: "july", feedback: ["resolved"] }]);
    assert.deepEqual((await summaries()).july, ["svc-1: 01 00:20 … 01 00:20, 1 requests of 1 scopes"]);
    await write([{ id: "july_0", startedAt: "2026-06-30T23:40:00.000Z", session: "july" }]);
    assert.deepEqual((await summaries()).july, ["svc-1: 30 23:40 … 01 00:20, 2 requests of 1 scopes"]);
    await assertSameNumbers();
  });

  test("a request that leaves its session changes the session's summary, and a session left empty has none", async () => {
    const deletesBefore = rollups.counters.staleDeletes;
    // long_2 (10:05) moves to session "single"; pair_2 leaves "pair", which keeps one scope; alone_2, the only request
    // without a session id in its minute, gets one: that minute's count of such requests is gone.
    await write([
      { id: "long_2", startedAt: "01T10:05", session: "single" },
      { id: "pair_2", startedAt: "01T10:15", session: "moved", service: "svc-2" },
      { id: "alone_2", startedAt: "01T10:21", session: "found" },
    ]);
    const after = await summaries();
    assert.deepEqual(after.long, ["svc-1: 01 10:00 … 01 10:40, 2 requests of 1 scopes"]);
    assert.deepEqual(after.single, ["svc-1: 01 10:05 … 01 10:10, 2 requests of 1 scopes"]);
    assert.deepEqual(after.pair, ["svc-1: 01 10:15 … 01 10:15, 1 requests of 1 scopes"]);
    assert.deepEqual(after.moved, ["svc-2: 01 10:15 … 01 10:15, 1 requests of 1 scopes"]);
    assert.deepEqual(after.found, ["svc-1: 01 10:21 … 01 10:21, 1 requests of 1 scopes"]);
    const [sessionless] = await queryRows<{ rows: string }>(store.connection, "SELECT count() AS rows FROM {{database}}.session_rollups_by_session FINAL WHERE session_key = '' AND minute = toDateTime('2026-07-01 10:21:00', 'UTC')");
    assert.equal(Number(sessionless!.rows), 0, "the minute's count of requests without a session id left with its only request");
    assert.ok(rollups.counters.staleDeletes > deletesBefore, "the summaries and minute rows the recompute no longer produced were deleted");
    await assertSameNumbers();
  });

  test(`a refresh with more sessions than one statement takes (${SESSIONS_PER_STATEMENT}) summarises each of them`, async () => {
    const many = Array.from({ length: SESSIONS_PER_STATEMENT + 5 }, (_, index) => ({ id: `many_${index}`, startedAt: "01T11:30", session: `many-${String(index).padStart(4, "0")}`, feedback: index % 3 === 0 ? ["resolved"] : [] }));
    await write(many);
    const summarised = Object.keys(await summaries()).filter((session) => session.startsWith("many-"));
    assert.equal(summarised.length, many.length);
    await assertSameNumbers();
  });

  test("a rebuild gives the same summaries and numbers", async () => {
    const before = await summaries();
    await rollups.rebuild();
    assert.deepEqual(await summaries(), before);
    await assertSameNumbers();
  });
});
