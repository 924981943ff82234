/**
 * A rollup group that vanishes from a recomputed minute leaves the rollups
 * (store/clickhouse/metric-rollups.ts): a request re-evaluated so that its
 * dataset, its session and its root-cause label change no longer counts
 * under the old ones. Before, the refresh only inserted the groups its
 * recompute produced, so the old group's row stayed and every rollup-read
 * panel (metric_rollups, request_rollups, session_rollups,
 * root_cause_rollups, stage_rollups) counted the request twice, or under a
 * dataset it has left. Each panel is compared with the same numbers over the
 * raw rows: the aggregate's raw form, or the raw-row panel of the release
 * before the rollup (test/data/release-0013/, release-0015/, release-0017/).
 *
 * The refresh's clock (MetricRollupOptions.now, the rollup rows' version)
 * and the sink's (the raw rows' version) are injected and advance with
 * every call.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import path from "node:path";
import { isDeepStrictEqual } from "node:util";
import { aggregateSelect } from "../../../dashboards/source/aggregate-metrics.js";
import { means, namedAggregate, RETRIEVAL } from "../../../dashboards/source/quality-board.js";
import { dashboardHours, dashboardScope } from "../../../dashboards/source/sql-scope.js";
import { createDefaultRegistry } from "../../../evaluators/default-registry.js";
import { evaluateCaseResult, type CaseEvaluation } from "../../../evaluators/evaluate-case-result.js";
import { readDashboards, type ReportDashboard } from "../../../report/dashboard-files.js";
import { allOf, type Variables } from "../../../report/grafana-macros.js";
import { panelIntervalMs } from "../../../report/panel-interval.js";
import { executableSql, runQuery } from "../../../report/panel-data.js";
import { ClickHouseMetricRollups } from "../../../store/clickhouse/metric-rollups.js";
import { ClickHouseSink } from "../../../store/clickhouse/clickhouse-sink.js";
import { seedExample } from "../../support/case-results.js";
import { queryRows, temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";

const STARTED = "2026-07-08T09:30:05.000Z";
const MINUTE_MS = Date.parse("2026-07-08T09:30:00.000Z");
const context = { fromMs: MINUTE_MS - 3_600_000, toMs: MINUTE_MS + 3_600_000, intervalMs: panelIntervalMs(MINUTE_MS - 3_600_000, MINUTE_MS + 3_600_000, 60) };
const DATASETS = ["ds-a", "ds-b", "ds-c"];

let store: TemporaryStore;
let rollups: ClickHouseMetricRollups;
let sink: ClickHouseSink;
/** The dataset the sink writes the next requests under. */
let dataset = "ds-a";
let rollupClock = Date.parse("2026-07-09T00:00:00.000Z");
let sinkClock = Date.parse("2026-07-08T12:00:00.000Z");
const CAUSE_PANELS = ["Root causes", "Root causes over time"];
let currentFailures: ReportDashboard;
let rawFailures: ReportDashboard;
let currentQuality: ReportDashboard;
let rawQuality: ReportDashboard;
let rawStages: ReportDashboard;

/** A request of its own trace in minute 09:30, with a session and user events, and its root-cause label. */
function request(id: string, sessionId: string | null, feedbackKinds: string[], rootCause = "CONTEXT_TRUNCATED"): CaseEvaluation {
  const { caseResult, evalCase } = seedExample();
  const evaluation = evaluateCaseResult(createDefaultRegistry(), { ...caseResult, case_result_id: id, trace_id: `trace_${id}`, started_at: STARTED }, evalCase, "2026-07-08T09:32:01.000Z");
  const observation = evaluation.caseResult.rag_observation as unknown as Record<string, unknown>;
  observation.session_id = sessionId;
  // Stage timings of their own per request (the stage latency panels).
  const offset = id.length + id.charCodeAt(id.length - 1);
  observation.stage_timings = [
    { stage: "retrieve", span_name: "rag.retrieve", duration_ms: 40 + offset, status: "ok" },
    { stage: "generate", span_name: "rag.generate", duration_ms: 900 + offset, status: "ok" },
  ];
  observation.feedback = feedbackKinds.map((kind, index) => ({ kind, value: null, comment: null, recorded_at: `2026-07-08T09:3${index + 1}:00.000Z`, span_id: null, chunk_id: null }));
  for (const result of evaluation.evaluationResults) {
    if (result.evaluator_id === "root_cause") result.reason = result.reason.replace(/^[A-Z_]+:/, `${rootCause}:`);
  }
  return evaluation;
}

async function write(evaluations: CaseEvaluation[]): Promise<void> {
  const written = await sink.write(evaluations);
  assert.ok(written.ok, written.ok ? "" : written.error.message);
  await rollups.refresh();
  assert.equal(rollups.counters.failures, 0, rollups.counters.lastError);
}

/** The dashboards' variables with the dataset filter on `datasets` (every dataset = "All"). */
function variables(datasets: string[]): Variables {
  return { service: allOf([""]), tenant: allOf([""]), dataset: datasets.length === DATASETS.length ? allOf(DATASETS) : { value: datasets }, run: allOf(["run_test"]) };
}

async function numbers(sql: string, datasets: string[]): Promise<unknown[][]> {
  const frame = await runQuery(store.store.dashboards, "A", executableSql(sql, store.connection.database, variables(datasets), context));
  const rows = Array.from({ length: frame.rows }, (_, index) => frame.fields.map((field) => field.values[index]));
  return rows.sort((left, right) => JSON.stringify(left).localeCompare(JSON.stringify(right)));
}

const panelSql = (board: ReportDashboard, title: string): string => board.rows.flatMap((row) => row.panels).find((panel) => panel.title === title)!.targets[0]!.rawSql;

/** Each rollup-read number next to the same number over the raw rows, for every dataset filter. */
async function rolledUpAndRaw(): Promise<{ what: string; rolledUp: unknown[][]; raw: unknown[][] }[]> {
  const aggregates = {
    sessions: ["session_resolution_rate", "first_contact_resolution"].map(namedAggregate),
    requests: ["error_rate", "task_success_rate", "review_required_rate", "unjudged_rate"].map(namedAggregate),
    metrics: means(RETRIEVAL),
  };
  const compared: { what: string; rolledUp: unknown[][]; raw: unknown[][] }[] = [];
  for (const datasets of [DATASETS, ...DATASETS.map((one) => [one])]) {
    for (const [name, list] of Object.entries(aggregates)) {
      // As the boards' range panels read them: the metrics' whole hour 09:00 of the range from metric_rollups_hourly.
      const select = (preferRollups: boolean) => aggregateSelect(list, { scope: dashboardScope, hours: dashboardHours, preferRollups });
      assert.notEqual(select(true), select(false), `${name} has a rollup form`);
      if (name === "metrics") assert.match(select(true), /FROM metric_rollups_hourly FINAL/);
      compared.push({ what: `${name} (${datasets.join(", ")})`, rolledUp: await numbers(select(true), datasets), raw: await numbers(select(false), datasets) });
    }
    for (const title of CAUSE_PANELS) compared.push({ what: `${title} (${datasets.join(", ")})`, rolledUp: await numbers(panelSql(currentFailures, title), datasets), raw: await numbers(panelSql(rawFailures, title), datasets) });
    compared.push({ what: `Verdicts over the range (${datasets.join(", ")})`, rolledUp: await numbers(panelSql(currentQuality, "Verdicts over the range"), datasets), raw: await numbers(panelSql(rawQuality, "Verdicts over the range"), datasets) });
    compared.push({ what: `Stage latency (${datasets.join(", ")})`, rolledUp: await numbers(panelSql(currentQuality, "Stage latency"), datasets), raw: await numbers(panelSql(rawStages, "Stage latency"), datasets) });
  }
  return compared;
}

before(async () => {
  store = await temporaryStore();
  rollups = new ClickHouseMetricRollups(store.connection, { now: () => (rollupClock += 1_000) });
  sink = new ClickHouseSink(store.connection, { datasetOf: () => dataset, now: () => (sinkClock += 1_000), rollups });
  const data = fileURLToPath(new URL("../../data/", import.meta.url));
  const board = async (folder: string | undefined, file: string) => (await readDashboards(folder, [file]))[0]!;
  currentFailures = await board(undefined, "failures.json");
  rawFailures = await board(path.join(data, "release-0015", "dashboards"), "failures.json");
  currentQuality = await board(undefined, "rag-quality.json");
  // The verdict counts over raw rows: the release before request_rollups (migration 0014).
  rawQuality = await board(path.join(data, "release-0013", "dashboards"), "rag-quality.json");
  assert.doesNotMatch(panelSql(rawQuality, "Verdicts over the range"), /rollups/);
  // The stage timings over raw rows: the release before stage_rollups (migration 0019).
  rawStages = await board(path.join(data, "release-0017", "dashboards"), "rag-quality.json");
  assert.doesNotMatch(panelSql(rawStages, "Stage latency"), /rollups/);
  assert.match(panelSql(currentQuality, "Stage latency"), /stage_rollups/);
  for (const title of CAUSE_PANELS) assert.doesNotMatch(panelSql(rawFailures, title), /rollups/);
});

after(async () => {
  await store.cleanup();
});

describe("a rollup group a recompute no longer produces", () => {
  test("the rollups equal the raw rows before any re-evaluation", async () => {
    // Request a alone in dataset ds-a: its groups vanish from the minute when it moves.
    await write([request("cr_stale_a", "session-a", ["resolved"], "HALLUCINATION")]);
    dataset = "ds-b";
    await write([request("cr_stale_b", "session-b", []), request("cr_stale_c", null, ["resolved", "follow_up"])]);
    for (const { what, rolledUp, raw } of await rolledUpAndRaw()) assert.deepEqual(rolledUp, raw, what);
    assert.equal(rollups.counters.staleDeletes, 0, "nothing vanished: the refresh deleted nothing");
  });

  test("a replay that changes no group deletes nothing", async () => {
    await write([request("cr_stale_b", "session-b", [])]);
    assert.equal(rollups.counters.staleDeletes, 0);
  });

  test("a request re-evaluated under another dataset, session and root-cause label counts under the new ones only", async () => {
    dataset = "ds-c";
    await write([request("cr_stale_a", "session-a2", ["resolved"], "RETRIEVAL_MISS")]);
    const compared = await rolledUpAndRaw();
    // Every number that differs, listed together (each rollup table has its own).
    const differing = compared.filter(({ rolledUp, raw }) => !isDeepStrictEqual(rolledUp, raw)).map(({ what, rolledUp, raw }) => `${what}: ${JSON.stringify(rolledUp)} for ${JSON.stringify(raw)}`);
    assert.deepEqual(differing, []);
    // What the comparison covers: ds-a is empty now, ds-c holds the request, its session is counted once (under its
    // new key) and its root cause under the new label only.
    const raw = (what: string) => compared.find((entry) => entry.what === what)!.raw;
    assert.deepEqual(raw("Root causes (ds-a, ds-b, ds-c)"), [["CONTEXT_TRUNCATED", 2], ["RETRIEVAL_MISS", 1]]);
    assert.deepEqual(raw("Root causes (ds-a)"), []);
    // Sessions a2 (resolved at first contact) and b (neither); request c has no session id, so it is no session.
    assert.deepEqual(raw("sessions (ds-a, ds-b, ds-c)")[0], [1 / 2, 1 / 2]);
    assert.deepEqual(raw("sessions (ds-c)")[0], [1, 1]);
    assert.deepEqual(raw("sessions (ds-a)")[0], [null, null]);
    assert.deepEqual(raw("Stage latency (ds-a)"), [], "the moved request's stage timings left ds-a");
    assert.deepEqual(raw("Stage latency (ds-c)").map((row) => row.slice(0, 2)), [["generate", 1], ["retrieve", 1]], "the moved request's stage timings count in ds-c");
    assert.ok(rollups.counters.staleDeletes >= 5, `the refresh deleted the vanished keys of every rollup table (${rollups.counters.staleDeletes})`);
  });

  test("a rebuild deletes every key it no longer produces", async () => {
    // A row of a group no stored request has (as a store repaired by hand, or rolled up before a bulk delete holds).
    await store.connection.client.command({
      query: `INSERT INTO ${store.connection.database}.session_rollups (minute, tenant_id, service_name, dataset_id, run_id, session_key, requests, resolved, handed_off, followed_up, version) VALUES (toDateTime('2026-07-08 09:30:00', 'UTC'), '', '', 'ds-a', 'run_test', 'session-ghost', 1, 1, 0, 0, 1)`,
    });
    const ghosts = async () => Number((await queryRows<{ rows: string }>(store.connection, "SELECT count() AS rows FROM {{database}}.session_rollups FINAL WHERE session_key = 'session-ghost'"))[0]!.rows);
    assert.equal(await ghosts(), 1);
    await rollups.rebuild();
    assert.equal(await ghosts(), 0);
    const differing = (await rolledUpAndRaw()).filter(({ rolledUp, raw }) => !isDeepStrictEqual(rolledUp, raw)).map(({ what }) => what);
    assert.deepEqual(differing, []);
  });
});
