/**
 * Upgrading a store made by the previous release (migrations 0001–0006) with
 * data in it: every migration after those runs on start (or `ragscope
 * migrate`), and nothing is lost and no number changes — every dashboard
 * panel, every gate metric over the dataset's window, and what the release
 * gate and the report read for a run (the collapsed payloads loadRunCases parses,
 * readRunSummary) are the
 * same before and after, and every row (duplicates included) is still there.
 *
 * "Before" is what the previous release showed: its dashboards
 * (test/data/previous-release/) and its run summary query over its row layout
 * (a metric_values row for every metric, NULL where it has no value). "After"
 * is what this release shows on the upgraded store, and on a new store the
 * same traffic was written to by this release's sink (no row for a metric
 * without a value, migration 0008): all three agree — percentiles, which the
 * boards now take from t-digests (the rollups' states of migration 0009 for
 * request latency, ClickHouse's quantileTDigest for stage durations), within
 * the sketch's documented error, everything else exactly.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import os from "node:os";
import path from "node:path";
import { readFile } from "node:fs/promises";
import { readDashboards, type ReportDashboard } from "../../../report/dashboard-files.js";
import { allOf, type Variables } from "../../../report/grafana-macros.js";
import { panelIntervalMs } from "../../../report/panel-interval.js";
import { executableSql, runQuery, type Frame } from "../../../report/panel-data.js";
import { migrationsFolder, runMigrations } from "../../../store/clickhouse/run-migrations.js";
import { aggregateSelect, DID_NOT_COMPLETE, FEEDBACK_KINDS_FROM_PAYLOAD, REQUEST_ROLLUP_COUNTS, REQUEST_ROLLUP_GROUP, REVIEWED_FAILED, REVIEWED_PASSED } from "../../../dashboards/source/aggregate-metrics.js";
import { qualifyTables } from "../../../report/qualify-tables.js";
import { newHumanLabel, type HumanLabel } from "../../../evaluators/judge/calibration/human-label.js";
import { HEURISTIC_METRIC_LABEL_SUFFIX, heuristicMetricNames, labelOfMetric, METRIC } from "../../../evaluators/metric-catalog.js";
import { resolveGateMetric } from "../../../dashboards/source/gate-metrics.js";
import { alertScope } from "../../../dashboards/source/sql-scope.js";
import { ClickHouseMetricRollups } from "../../../store/clickhouse/metric-rollups.js";
import { ClickHouseSink } from "../../../store/clickhouse/clickhouse-sink.js";
import type { TraceCursor, TraceFilter, TraceSummary } from "../../../store/ports/trace-reader.js";
import { queryRows, temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";
import { allDatasetVariables, BASELINE_RUN, CANDIDATE_RUN, DATASET_END, DATASET_ID, DATASET_START, insertDuplicateRows, seedDashboardDataset, SERVICES, TENANTS, type RowLayout, type SeededDataset } from "../dashboards/dashboard-dataset.js";
import { migrationsThrough } from "../../support/previous-release.js";
import { reviewsPerCase } from "../../support/reviews-per-case.js";
import { plannedCaseResult } from "../../support/stored-requests.js";
import { repairNotedRollups } from "../../../store/clickhouse/rollup-repairs.js";
import type { CaseResult } from "../../../contracts/case-result.js";

const PREVIOUS_RELEASE_LAST_MIGRATION = 6;
const GROWING_TABLES = ["case_results", "evaluation_results", "metric_values"];
const GATE_METRICS = ["p50_latency_ms", "p95_latency_ms", "p99_latency_ms", "p95_time_to_first_token_ms", "recall_at_5", "mrr", "faithfulness", "hallucination_rate", "permission_leak_rate", "no_answer_accuracy", "error_rate", "timeout_rate", "task_success_rate", "average_cost", "thumbs_down_rate"];

/**
 * Numbers this release defines differently from the previous one on purpose (issue 16, one definition
 * per metric for gate, dashboards and UI, evaluators/aggregate/dataset-shares.ts): the permission-leak
 * rate counts requests where a forbidden chunk reached the context or the answer, no longer requests that
 * retrieved one. The previous release's number is not comparable; the upgraded store must still show the
 * same as a store this release wrote (asserted apart).
 */
const REDEFINED = {
  // The session rates count sessions with an id only since migration 0025: a request without one (every fourth of the
  // dataset) was a session of its own before.
  columns: ["Permission leaks", "Sessions resolved", "First-contact resolution"],
  keys: [
    "gate permission_leak_rate",
    // The runs board's 0–1 score chart holds only metrics whose range is 0–1: the previous release's plotted cost,
    // latency and token counts as percentages beside the scores (one row fewer on this dataset).
    "panel ragscope-runs/Scores, baseline vs candidate",
  ],
};
/**
 * Display labels this release changed, the numbers beside them the same: a heuristic rule's metric is labelled so
 * (evaluators/metric-catalog.ts labelOfMetric) — the RAG quality board's "Completeness", and on the Runs board the
 * metric names of its rows. An earlier release's label, as a cell or the start of a column name, is read as this
 * release's before comparing, so the numbers under it are still compared.
 */
const RELABELLED_ON_EVERY_BOARD: ReadonlyMap<string, string> = new Map([
  ["Completeness", labelOfMetric(METRIC.completeness, "Completeness")],
  // The refusal rates count every abstention reading, a heuristic's among them: labelled so since the earlier release.
  ...["No-answer detection", "Correct refusals", "False refusals"].map((label): [string, string] => [label, `${label}${HEURISTIC_METRIC_LABEL_SUFFIX}`]),
]);
const RELABELLED_ON_THE_RUNS_BOARD: ReadonlyMap<string, string> = new Map(heuristicMetricNames().map((name) => [name, labelOfMetric(name)]));
function relabelled(key: string, frame: PanelNumbers): PanelNumbers {
  const labels = new Map([...RELABELLED_ON_EVERY_BOARD, ...(key.startsWith("panel ragscope-runs/") ? RELABELLED_ON_THE_RUNS_BOARD : [])]);
  const column = (name: string): string => {
    for (const [before, now] of labels) if (name === before || name.startsWith(`${before}:`) || name.startsWith(`${before} · `)) return `${now}${name.slice(before.length)}`;
    return name;
  };
  return { ...frame, columns: frame.columns.map(column), rows: frame.rows.map((row) => row.map((cell) => (typeof cell === "string" ? (labels.get(cell) ?? cell) : cell))) };
}
const redefined = (key: string, column?: string): boolean => REDEFINED.keys.includes(key) || (column !== undefined && REDEFINED.columns.some((name) => column.startsWith(`${name}:`)));

const PREVIOUS_RELEASE_DATA = fileURLToPath(new URL("../../data/previous-release/", import.meta.url));

let store: TemporaryStore;
/** A store this release made and wrote the same traffic to. */
let fresh: TemporaryStore;
let dataset: SeededDataset;
let dashboards: ReportDashboard[];
let previousDashboards: ReportDashboard[];
let previousRunSummarySql: string;
let previousRelease: string;

type RangeContext = { fromMs: number; toMs: number; intervalMs: number };
const context: RangeContext = { fromMs: DATASET_START, toMs: DATASET_END, intervalMs: panelIntervalMs(DATASET_START, DATASET_END, 60) };

function variables(): Variables {
  return allDatasetVariables(dataset.failingTraceId);
}

/**
 * A frame as its columns and its rows sorted: panels that order by time only
 * list the series of one bucket in the order the engine reads them, which
 * follows the sorting key; the values are what must not change.
 */
function rowsInOneOrder(frame: Frame): { refId: string; columns: string[]; rows: unknown[][] } {
  const rows = Array.from({ length: frame.rows }, (_, index) => frame.fields.map((field) => field.values[index]));
  rows.sort((left, right) => (JSON.stringify(left) < JSON.stringify(right) ? -1 : JSON.stringify(left) > JSON.stringify(right) ? 1 : 0));
  // A column that became Nullable is the same column: the health board's totals read no data, not 0, where no role
  // wrote the count (sumIfOrNull); where the count was written, its values must still be the same.
  return { refId: frame.refId, columns: frame.fields.map((field) => `${field.name}: ${field.clickhouseType.replace(/^Nullable\((.*)\)$/, "$1")}`), rows };
}

type Release = "previous" | "current";

/** A run's per-metric summary as the previous release read it: its query over its row layout. */
async function previousRunMetrics(on: TemporaryStore, runId: string): Promise<unknown[]> {
  const rows = await queryRows<{ metric: string; evaluator_id: string; mean: number | null; applicable: string; not_applicable: string }>(on.connection, previousRunSummarySql, { runId });
  return rows.map((row) => ({ metric: row.metric, evaluatorId: row.evaluator_id, mean: row.mean === null ? null : Number(row.mean), applicable: Number(row.applicable), notApplicable: Number(row.not_applicable) }));
}

/** Every number a user sees: panels, gate metrics over the window, a run as the gate and report read it. */
async function everyNumber(on: TemporaryStore, release: Release, boards = release === "previous" ? previousDashboards : dashboards, range = context): Promise<Map<string, unknown>> {
  const numbers = new Map<string, unknown>();
  for (const dashboard of boards) {
    for (const panel of dashboard.rows.flatMap((row) => row.panels)) {
      const frames: Frame[] = [];
      for (const target of panel.targets) frames.push(await runQuery(on.store.dashboards, target.refId, executableSql(target.rawSql, on.connection.database, variables(), range)));
      numbers.set(`panel ${dashboard.uid}/${panel.title}`, frames.map(rowsInOneOrder));
    }
  }
  for (const name of GATE_METRICS) {
    const resolution = resolveGateMetric(name);
    assert.equal(resolution.kind, "aggregate");
    if (resolution.kind !== "aggregate") continue;
    const current = aggregateSelect([resolution.aggregate], { scope: alertScope, withSamples: true });
    // The previous release's store has no feedback_kinds column (migration 0013): the same definition from the payload.
    const sql = release === "previous" ? current.replaceAll("feedback_kinds", FEEDBACK_KINDS_FROM_PAYLOAD) : current;
    numbers.set(`gate ${name}`, await runQuery(on.store.dashboards, name, executableSql(sql, on.connection.database, {}, range)));
  }
  for (const run of [BASELINE_RUN, CANDIDATE_RUN]) {
    // What the release gate's loadRunCases parses: the collapsed payloads of the run.
    for (const table of ["case_results", "evaluation_results"]) {
      numbers.set(`run payloads ${table} ${run}`, await queryRows(on.connection, `SELECT payload, version FROM {{database}}.${table} FINAL WHERE run_id = {run:String} ORDER BY payload`, { run }));
    }
    numbers.set(`run metrics ${run}`, release === "previous" ? await previousRunMetrics(on, run) : (await on.store.reader.readRunSummary(run)).metrics);
  }
  numbers.set("stored span", await on.store.reader.storedSpan());
  return numbers;
}

/**
 * Latency values (the one metric the boards show percentiles of) in one order,
 * per time bucket of the timeseries panels (keyed by the bucket's start in ms)
 * and over the whole range (key -1): what the exact nearest-rank percentile
 * and the rollups' t-digest are both computed from.
 */
async function latencyValues(on: TemporaryStore, range: RangeContext): Promise<Map<number, number[]>> {
  const values = new Map<number, number[]>();
  const sql = (leading: string) =>
    executableSql(`SELECT ${leading} AS bucket, arraySort(groupArray(value)) AS sorted FROM metric_values FINAL WHERE $__timeFilter(ts) AND metric = 'latency_ms' AND value IS NOT NULL GROUP BY bucket`, on.connection.database, variables(), range);
  for (const leading of ["toUnixTimestamp($__timeInterval(ts)) * 1000", "-1"]) {
    for (const row of await queryRows<{ bucket: string | number; sorted: number[] }>(on.connection, sql(leading))) values.set(Number(row.bucket), row.sorted.map(Number));
  }
  return values;
}

/**
 * Stage durations (the stage latency panels' percentiles) in one order, per
 * time bucket and stage (key `<bucket start ms>|<stage>`) and per stage over
 * the whole range (`-1|<stage>`).
 */
async function stageDurations(on: TemporaryStore, range: RangeContext): Promise<Map<string, number[]>> {
  const values = new Map<string, number[]>();
  const sql = (leading: string) =>
    executableSql(
      `SELECT ${leading} AS bucket, stage, arraySort(groupArray(duration_ms)) AS sorted FROM case_results FINAL ARRAY JOIN stage_names AS stage, stage_durations_ms AS duration_ms WHERE $__timeFilter(started_at) GROUP BY bucket, stage`,
      on.connection.database,
      variables(),
      range,
    );
  for (const leading of ["toUnixTimestamp($__timeInterval(started_at)) * 1000", "-1"]) {
    for (const row of await queryRows<{ bucket: string | number; stage: string; sorted: number[] }>(on.connection, sql(leading))) values.set(`${Number(row.bucket)}|${row.stage}`, row.sorted.map(Number));
  }
  return values;
}

/** What the percentile cells are estimated from: request latencies by bucket, stage durations by bucket and stage. */
interface SketchedValues {
  latency: Map<number, number[]>;
  stages: Map<string, number[]>;
}

async function sketchedValues(on: TemporaryStore, range = context): Promise<SketchedValues> {
  return { latency: await latencyValues(on, range), stages: await stageDurations(on, range) };
}

/**
 * A t-digest percentile cell of a panel: its percentile and the sorted values
 * it estimates; null for a cell that is not one.
 */
function sketchedCell(key: string, frame: PanelNumbers, row: unknown[], name: string, sketched: SketchedValues): { percentile: number; sorted: number[] | undefined } | null {
  const timed = frame.columns[0]?.startsWith("time:") === true;
  const latency = /^P(\d+) latency:/.exec(name);
  if (latency) return { percentile: Number(latency[1]), sorted: sketched.latency.get(timed ? Number(row[0]) : -1) };
  const stageTable = key.endsWith("/Stage latency") ? /^P(\d+):/.exec(name) : null;
  if (stageTable) return { percentile: Number(stageTable[1]), sorted: sketched.stages.get(`-1|${String(row[frame.columns.findIndex((column) => column.startsWith("Stage:"))])}`) };
  if (key.endsWith("/Stage latency P95") && name.startsWith("Value:")) return { percentile: 95, sorted: sketched.stages.get(`${Number(row[0])}|${String(row[frame.columns.findIndex((column) => column.startsWith("series:"))])}`) };
  return null;
}

/**
 * The documented error of a percentile from the rollups' t-digest states
 * (deploy/clickhouse/migrations/0009_metric_rollups.sql): within
 * max(1, 1 % of n) ranks of the exact nearest-rank value, the t-digest
 * keeping its centroids as 32-bit floats (a relative rounding of 1e-7).
 */
function assertWithinSketchError(actual: unknown, expected: unknown, percentile: number, sorted: number[] | undefined, where: string, expectedSketched = false): void {
  if (expected === null) return assert.equal(actual, null, where);
  assert.ok(sorted !== undefined && sorted.length > 0 && typeof actual === "number", `${where}: ${String(actual)} for ${String(expected)}`);
  const rank = Math.ceil((percentile * sorted.length) / 100);
  // An expected value from a sketch too (both releases read the t-digest states) is itself an estimate: each is checked against the exact value.
  if (expectedSketched) assertWithinSketchError(expected, sorted[rank - 1], percentile, sorted, `${where} (expected)`);
  else assert.equal(sorted[rank - 1], expected, `${where}: the exact value is the nearest-rank one`);
  const window = Math.max(1, Math.ceil(sorted.length / 100));
  const low = sorted[Math.max(0, rank - 1 - window)]!;
  const high = sorted[Math.min(sorted.length - 1, rank - 1 + window)]!;
  const rounding = 1e-7 * Math.max(Math.abs(low), Math.abs(high));
  assert.ok(actual >= low - rounding && actual <= high + rounding, `${where}: ${actual} is not within ${window} rank(s) of ${String(expected)} (between ${low} and ${high})`);
}

interface PanelNumbers {
  refId: string;
  columns: string[];
  rows: unknown[][];
}

function assertSameMaps(actual: Map<string, unknown>, expected: Map<string, unknown>, what: string, sketched: SketchedValues, skipRedefined = true, expectedSketched = false): void {
  // Every number the previous release showed is still shown; panels this release added (the behaviour row) have nothing to compare with.
  assert.deepEqual([...expected.keys()].filter((key) => !actual.has(key)), [], `${what}: numbers no longer shown`);
  assert.deepEqual([...actual.keys()].filter((key) => !expected.has(key) && !key.startsWith("panel ")), [], `${what}: gate metrics or run numbers without a counterpart`);
  for (const [key, value] of expected) {
    if (!key.startsWith("panel ")) {
      if (skipRedefined && redefined(key)) continue;
      assertSameNumbers(actual.get(key), value, `${key} ${what}`);
      continue;
    }
    const expectedFrames = (value as PanelNumbers[]).map((frame) => relabelled(key, frame));
    const actualFrames = actual.get(key) as PanelNumbers[];
    expectedFrames.forEach((frame, frameIndex) => {
      const where = `${key} ${what}[${frameIndex}]`;
      // Compared by column name, in whichever query of the panel has the column now: a column this release renamed or
      // added (the business row's dislike rate) has no earlier value, and a query may have been split in two (task
      // success on raw rows, the other business rates on request_rollups, migration 0014). The time column is
      // compared in the query with the most columns in common.
      const inCommon = (other: PanelNumbers) => frame.columns.filter((name) => other.columns.includes(name)).length;
      const best = actualFrames.reduce<PanelNumbers | undefined>((chosen, other) => (inCommon(other) > (chosen === undefined ? 0 : inCommon(chosen)) ? other : chosen), undefined);
      assert.ok(best !== undefined, `${where}: no column in common with any query (${frame.columns.join(", ")})`);
      frame.rows.forEach((row, rowIndex) => {
        row.forEach((cell, column) => {
          const name = frame.columns[column]!;
          const other = best.columns.includes(name) ? best : actualFrames.find((candidate) => candidate.columns.includes(name));
          if (other === undefined) return;
          // With skipRedefined false only the redefined columns are compared (upgraded vs fresh store). A query's time
          // column goes with its redefined columns: the session rates' buckets are those with a session in them.
          const redefinedColumn = redefined(key, name) || (name.startsWith("time:") && frame.columns.some((column) => redefined(key, column)));
          if (skipRedefined === redefinedColumn) return;
          assert.equal(other.rows.length, frame.rows.length, `${where}: rows beside ${name}`);
          const otherColumn = other.columns.indexOf(name);
          const sketch = sketchedCell(key, frame, row, name, sketched);
          const cellWhere = `${where}.rows[${rowIndex}][${name}]`;
          if (sketch) assertWithinSketchError(other.rows[rowIndex]![otherColumn], cell, sketch.percentile, sketch.sorted, cellWhere, expectedSketched);
          else assertSameNumbers(other.rows[rowIndex]![otherColumn], cell, cellWhere);
        });
      });
    });
  }
}

/**
 * Distinct stored rows (every version of every row) and rows as read (FINAL).
 * Exact copies (a replayed insert) may collapse when a table is copied —
 * ReplacingMergeTree would collapse them at its next merge anyway — but no
 * version of any row may be lost.
 */
async function storedRows(on: TemporaryStore = store): Promise<Record<string, { versions: number; final: number }>> {
  const identity: Record<string, string> = {
    case_results: "case_result_id, version",
    evaluation_results: "evaluation_result_id, version",
    metric_values: "metric, case_result_id, evaluator_id, version",
  };
  const counts: Record<string, { versions: number; final: number }> = {};
  for (const table of GROWING_TABLES) {
    const [versions] = await queryRows<{ rows: string }>(on.connection, `SELECT count() AS rows FROM (SELECT DISTINCT ${identity[table]} FROM {{database}}.${table})`);
    const [final] = await queryRows<{ rows: string }>(on.connection, `SELECT count() AS rows FROM {{database}}.${table} FINAL`);
    counts[table] = { versions: Number(versions!.rows), final: Number(final!.rows) };
  }
  return counts;
}

/**
 * Deep equality where two floats may differ in their last bits: a mean sums
 * its values in the order the engine reads them, and that order follows the
 * sorting key, which the upgrade changes (0.4899607762067009 becomes
 * 0.48996077620670103). Anything else — counts, strings, nulls, shapes —
 * must be identical.
 */
function assertSameNumbers(actual: unknown, expected: unknown, where: string): void {
  if (typeof expected === "number" && typeof actual === "number" && !Number.isInteger(expected)) {
    const tolerance = 1e-12 * Math.max(1, Math.abs(expected));
    assert.ok(Math.abs(actual - expected) <= tolerance, `${where}: ${actual} != ${expected}`);
    return;
  }
  if (Array.isArray(expected)) {
    assert.ok(Array.isArray(actual) && actual.length === expected.length, `${where}: length differs`);
    expected.forEach((item, index) => assertSameNumbers((actual as unknown[])[index], item, `${where}[${index}]`));
    return;
  }
  if (expected !== null && typeof expected === "object") {
    assert.ok(actual !== null && typeof actual === "object", `${where}: not an object`);
    assert.deepEqual(Object.keys(actual as object), Object.keys(expected), `${where}: keys differ`);
    for (const [key, value] of Object.entries(expected)) assertSameNumbers((actual as Record<string, unknown>)[key], value, `${where}.${key}`);
    return;
  }
  assert.deepEqual(actual, expected, where);
}

before(async () => {
  previousRelease = await mkdtemp(path.join(os.tmpdir(), "ragscope-previous-migrations-"));
  await migrationsThrough(PREVIOUS_RELEASE_LAST_MIGRATION, previousRelease);
  store = await temporaryStore({ migrate: false });
  await runMigrations(store.connection, previousRelease);
  dataset = await seedDashboardDataset(store.connection, undefined, "previous");
  // A replayed delivery: every row twice on disk, as a long-running store has them.
  await insertDuplicateRows(store.connection, dataset, "previous");
  fresh = await temporaryStore({ beside: store });
  await seedDashboardDataset(fresh.connection);
  await insertDuplicateRows(fresh.connection, dataset);
  dashboards = await readDashboards();
  previousDashboards = await readDashboards(path.join(PREVIOUS_RELEASE_DATA, "dashboards"));
  previousRunSummarySql = await readFile(path.join(PREVIOUS_RELEASE_DATA, "previous-run-summary.sql"), "utf8");
});

after(async () => {
  await fresh.cleanup();
  await store.cleanup();
  await rm(previousRelease, { recursive: true, force: true });
});

describe("upgrading a store of the previous release", () => {
  test("the previous release's store has the old layout (no partitions) and data", async () => {
    const tables = await queryRows<{ name: string; partition_key: string }>(store.connection, `SELECT name, partition_key FROM system.tables WHERE database = '{{database}}' AND name IN ('case_results', 'metric_values')`);
    assert.deepEqual(tables.map((table) => table.partition_key), ["", ""]);
    const counts = await storedRows();
    assert.ok(counts.metric_values!.final > 0 && counts.case_results!.final > 0);
  });

  test("the new migrations keep every row and change no panel, gate metric, run summary or run case", async () => {
    const numbersBefore = await everyNumber(store, "previous");
    const countsBefore = await storedRows();

    const { applied } = await runMigrations(store.connection);
    assert.ok(applied.length > 0, "the upgrade applied the new migrations");
    assert.ok(applied.every((name) => Number(name.slice(0, 4)) > PREVIOUS_RELEASE_LAST_MIGRATION), `applied only new migrations: ${applied.join(", ")}`);

    const tables = await queryRows<{ name: string; partition_key: string; sorting_key: string }>(store.connection, `SELECT name, partition_key, sorting_key FROM system.tables WHERE database = '{{database}}' AND name IN ('case_results', 'metric_values', 'evaluation_results') ORDER BY name`);
    for (const table of tables) assert.match(table.partition_key, /toYYYYMM/, `${table.name} is partitioned by month`);
    assert.match(tables.find((table) => table.name === "metric_values")!.sorting_key, /tenant_id, service_name, toDate\(ts\)/);

    assert.deepEqual(await storedRows(), countsBefore, "every version of every row was carried over");
    const numbersAfter = await everyNumber(store, "current");
    const sketched = await sketchedValues(store);
    assertSameMaps(numbersAfter, numbersBefore, "after the upgrade", sketched);
    // The same traffic written by this release's sink (no row for a metric without a value) shows the same numbers.
    const freshNumbers = await everyNumber(fresh, "current");
    assertSameMaps(freshNumbers, numbersBefore, "on a store this release wrote", sketched);
    // The redefined numbers: the upgraded store shows what a store this release wrote shows.
    assertSameMaps(new Map([...numbersAfter].filter(([key]) => redefined(key) || key.startsWith("panel "))), new Map([...freshNumbers].filter(([key]) => redefined(key) || key.startsWith("panel "))), "upgraded vs written by this release", sketched, false);
    assert.deepEqual(await fresh.store.reader.readRunSummary(BASELINE_RUN), await store.store.reader.readRunSummary(BASELINE_RUN));
    assert.deepEqual(await fresh.store.reader.readRunSummary(CANDIDATE_RUN), await store.store.reader.readRunSummary(CANDIDATE_RUN));

    // Applied once: a second start applies nothing.
    assert.deepEqual((await runMigrations(store.connection)).applied, []);
  });

  test("the old tables are kept for the operator to drop, nothing is deleted", async () => {
    const tables = await queryRows<{ name: string }>(store.connection, `SELECT name FROM system.tables WHERE database = '{{database}}' AND endsWith(name, '_before_0007') ORDER BY name`);
    assert.deepEqual(tables.map((table) => table.name), GROWING_TABLES.map((table) => `${table}_before_0007`).sort());
  });
});

/** Every page of a list, newest first, as the web UI's API pages it: each trace as `line` gives it. */
async function listedPages(on: TemporaryStore, filter: TraceFilter, line: (trace: TraceSummary) => string): Promise<string[]> {
  const lines: string[] = [];
  let after: TraceCursor | null = null;
  do {
    const page = await on.store.traces.listTraces(filter, { after, limit: 7 });
    lines.push(...page.traces.map(line));
    after = page.next;
  } while (after !== null);
  return lines;
}

describe("the trace list's copies (migration 0015) on the upgraded store", () => {
  const everyPage = (on: TemporaryStore, filter: TraceFilter) => listedPages(on, filter, (trace) => `${trace.caseResultId} ${trace.startedAt} ${trace.qualityStatus} ${trace.output ?? "null"} ${trace.query ?? "null"}`);

  test("hold every collapsed row of case_results and metric_values, and the list pages like the unbounded query", async () => {
    // What FINAL returns from the copied tables is what it returns from the tables they copy.
    const caseRows = (table: string) =>
      queryRows(store.connection, `SELECT case_result_id, started_at, version, quality_status, output, run_id, tenant_id, service_name FROM {{database}}.${table} FINAL ORDER BY case_result_id, started_at`);
    const copied = await caseRows("trace_list");
    assert.ok(copied.length > 0);
    assert.deepEqual(copied, await caseRows("case_results"));
    const metricRows = (table: string) => queryRows(store.connection, `SELECT metric, case_result_id, evaluator_id, value, ts, version FROM {{database}}.${table} FINAL ORDER BY metric, case_result_id, evaluator_id, ts`);
    assert.deepEqual(await metricRows("trace_list_metrics"), await metricRows("metric_values"));

    // The unbounded queries over the tables every other reader uses (newest first, the id breaking ties).
    const unbounded = await queryRows<{ case_result_id: string; started_at_ms: string; quality_status: string; output: string | null; query: string | null }>(
      store.connection,
      `SELECT case_result_id, toUnixTimestamp64Milli(started_at) AS started_at_ms, quality_status, if(JSONType(payload, 'output') = 'String', output, NULL) AS output,
              JSONExtract(payload, 'rag_observation', 'query', 'Nullable(String)') AS query
       FROM {{database}}.case_results FINAL ORDER BY started_at DESC, case_result_id DESC`,
    );
    assert.deepEqual(
      await everyPage(store, {}),
      unbounded.map((row) => `${row.case_result_id} ${new Date(Number(row.started_at_ms)).toISOString()} ${row.quality_status} ${row.output ?? "null"} ${row.query ?? "null"}`),
    );
    const below = await queryRows<{ case_result_id: string }>(
      store.connection,
      `SELECT case_result_id FROM {{database}}.case_results FINAL WHERE case_result_id IN (SELECT case_result_id FROM {{database}}.metric_values FINAL WHERE metric = 'recall_at_5' AND value < 0.5) ORDER BY started_at DESC, case_result_id DESC`,
    );
    assert.ok(below.length > 0, "some traces have a recall below 0.5");
    assert.deepEqual((await everyPage(store, { metric: "recall_at_5", below: 0.5 })).map((line) => line.split(" ")[0]), below.map((row) => row.case_result_id));
    // A store this release wrote lists the same traces.
    assert.deepEqual(await everyPage(fresh, {}), await everyPage(store, {}));
  });
});

describe("metrics without a value (migration 0008)", () => {
  test("get no row from this release's sink, and the dataset has such metrics", async () => {
    const [previousRows] = await queryRows<{ rows: string; empty: string }>(store.connection, "SELECT count() AS rows, countIf(value IS NULL) AS empty FROM {{database}}.metric_values FINAL");
    const [currentRows] = await queryRows<{ rows: string; empty: string }>(fresh.connection, "SELECT count() AS rows, countIf(value IS NULL) AS empty FROM {{database}}.metric_values FINAL");
    assert.ok(Number(previousRows!.empty) > 0, "the previous release stored NULL rows");
    assert.equal(Number(currentRows!.empty), 0);
    assert.equal(Number(currentRows!.rows), Number(previousRows!.rows) - Number(previousRows!.empty));
    const [listed] = await queryRows<{ names: string }>(fresh.connection, "SELECT count() AS names FROM {{database}}.evaluation_results FINAL ARRAY JOIN not_applicable_metrics AS metric");
    assert.equal(Number(listed!.names), Number(previousRows!.empty), "every metric without a value is listed on its Evaluation Result");
  });
});

/**
 * A store made by an earlier release's migrations (through `lastMigration`) with the dashboard dataset written
 * as that release's sink wrote it, then replayed; and a store this release wrote the same traffic to, then re-wrote
 * through its sink with later versions (the refresh recomputes the minutes; `rollupClock` versions its rows).
 */
async function earlierAndRewritten(lastMigration: number, layout: RowLayout, rollupClock?: () => number): Promise<{ earlier: TemporaryStore; written: TemporaryStore; cleanup(): Promise<void> }> {
  const earlierRelease = await mkdtemp(path.join(os.tmpdir(), `ragscope-release-${String(lastMigration).padStart(4, "0")}-migrations-`));
  await migrationsThrough(lastMigration, earlierRelease);
  const earlier = await temporaryStore({ migrate: false, beside: store });
  await runMigrations(earlier.connection, earlierRelease);
  const seeded = await seedDashboardDataset(earlier.connection, undefined, layout);
  await insertDuplicateRows(earlier.connection, seeded, layout);
  const written = await temporaryStore({ beside: earlier });
  await seedDashboardDataset(written.connection, seeded);
  const rollups = new ClickHouseMetricRollups(written.connection, rollupClock === undefined ? {} : { now: rollupClock });
  const sink = new ClickHouseSink(written.connection, { datasetOf: (caseId) => seeded.datasetOf.get(caseId) ?? "", now: () => DATASET_END + 3 * 3_600_000, rollups });
  const rewritten = await sink.write(seeded.evaluations);
  assert.ok(rewritten.ok);
  await rollups.refresh();
  assert.equal(rollups.counters.failures, 0, rollups.counters.lastError);
  return {
    earlier,
    written,
    async cleanup() {
      await written.cleanup();
      await earlier.cleanup();
      await rm(earlierRelease, { recursive: true, force: true });
    },
  };
}

/**
 * Migration 0014 (request rollups; the cited and last_rating columns) on a
 * store of the release before it, with data: the panels it moved off the
 * payloads and raw rows (business, satisfaction, user behaviour, online
 * experiments, verdicts, error and timeout rates) and the runs board show the same numbers as that
 * release's dashboards (test/data/release-0013/) did, and as on a store this
 * release wrote and then re-wrote through its sink (a re-evaluated request
 * counts once).
 */
describe("upgrading a store of the release before migration 0014", () => {
  const RELEASE_0013_DATA = fileURLToPath(new URL("../../data/release-0013/", import.meta.url));
  const BOARDS = ["rag-quality.json", "runs.json"];
  let earlier: TemporaryStore;
  let written: TemporaryStore;
  let cleanup: () => Promise<void>;

  before(async () => {
    ({ earlier, written, cleanup } = await earlierAndRewritten(13, "release-0013"));
  });

  after(async () => {
    await cleanup();
  });

  test("changes no panel of the boards it touched, and the moved panels read the rollups", async () => {
    const earlierBoards = await readDashboards(path.join(RELEASE_0013_DATA, "dashboards"), BOARDS);
    const currentBoards = await readDashboards(undefined, BOARDS);
    const numbersBefore = await everyNumber(earlier, "current", earlierBoards);
    const { applied } = await runMigrations(earlier.connection);
    // 0014 and every migration after it (0015 adds the web UI's list tables, read by no panel).
    const shipped = (await readdir(migrationsFolder)).filter((name) => name.endsWith(".sql")).map((name) => name.slice(0, 4)).sort();
    assert.deepEqual(applied.map((name) => name.slice(0, 4)), shipped.filter((number) => number >= "0014"));
    const numbersAfter = await everyNumber(earlier, "current", currentBoards);
    const sketched = await sketchedValues(earlier);
    assertSameMaps(numbersAfter, numbersBefore, "after migration 0014", sketched, true, true);
    // The panels only: the rewritten store's rows carry the rewrite's versions.
    const panelsOnly = (numbers: Map<string, unknown>) => new Map([...numbers].filter(([key]) => key.startsWith("panel ")));
    assertSameMaps(panelsOnly(await everyNumber(written, "current", currentBoards)), panelsOnly(numbersBefore), "on a store this release wrote twice", sketched, true, true);

    // The comparison has something to compare: the moved panels show numbers, and they read request_rollups.
    const panel = (title: string) => numbersAfter.get(`panel ragscope-rag-quality/${title}`) as PanelNumbers[];
    const experiments = panel("Online experiments by variant")[0]!;
    assert.ok(experiments.rows.length >= 2, "the dataset has experiment variants");
    for (const title of ["User satisfaction", "User behaviour over the range"]) {
      assert.ok(panel(title)[0]!.rows[0]!.every((cell) => typeof cell === "number" && Number.isFinite(cell)), `${title}: ${JSON.stringify(panel(title))}`);
    }
    const rag = currentBoards.find((board) => board.uid === "ragscope-rag-quality")!;
    for (const title of ["User satisfaction", "User behaviour over the range", "Online experiments by variant", "User behaviour over time", "Error and timeout rates", "Business: rates over the range", "Business over time", "Verdicts over the range"]) {
      const sql = rag.rows.flatMap((row) => row.panels).find((candidate) => candidate.title === title)!.targets[0]!.rawSql;
      assert.match(sql, /FROM request_rollups FINAL/, title);
      assert.doesNotMatch(sql, /payload/, title);
    }
    const [rollupRows] = await queryRows<{ rows: string }>(earlier.connection, "SELECT count() AS rows FROM {{database}}.request_rollups FINAL");
    assert.ok(Number(rollupRows!.rows) > 0, "the migration filled request_rollups from the stored requests");
  });
});

/**
 * Migration 0016 (session and root-cause rollups) on a store of the release
 * before it, with data: the session rates (business rates and over time,
 * user behaviour over the range and over time) and the Failures board show
 * the same numbers as that release's dashboards (test/data/release-0015/)
 * did, and as on a store this release wrote and then re-wrote through its
 * sink (a re-evaluated request counts once, in its session once).
 */
describe("upgrading a store of the release before migration 0016", () => {
  const RELEASE_0015_DATA = fileURLToPath(new URL("../../data/release-0015/", import.meta.url));
  const BOARDS = ["rag-quality.json", "failures.json"];
  let earlier: TemporaryStore;
  let written: TemporaryStore;
  let cleanup: () => Promise<void>;

  before(async () => {
    ({ earlier, written, cleanup } = await earlierAndRewritten(15, "release-0015", () => DATASET_END + 4 * 3_600_000));
  });

  after(async () => {
    await cleanup();
  });

  test("changes no panel of the boards it touched, and the moved panels read the rollups", async () => {
    const earlierBoards = await readDashboards(path.join(RELEASE_0015_DATA, "dashboards"), BOARDS);
    const currentBoards = await readDashboards(undefined, BOARDS);
    const numbersBefore = await everyNumber(earlier, "current", earlierBoards);
    const { applied } = await runMigrations(earlier.connection);
    const shipped = (await readdir(migrationsFolder)).filter((name) => name.endsWith(".sql")).map((name) => name.slice(0, 4)).sort();
    assert.deepEqual(applied.map((name) => name.slice(0, 4)), shipped.filter((number) => number >= "0016"));
    const numbersAfter = await everyNumber(earlier, "current", currentBoards);
    const sketched = await sketchedValues(earlier);
    assertSameMaps(numbersAfter, numbersBefore, "after migration 0016", sketched, true, true);
    const panelsOnly = (numbers: Map<string, unknown>) => new Map([...numbers].filter(([key]) => key.startsWith("panel ")));
    assertSameMaps(panelsOnly(await everyNumber(written, "current", currentBoards)), panelsOnly(numbersBefore), "on a store this release wrote twice", sketched, true, true);
    // The redefined session rates: the upgraded store shows what a store this release wrote shows.
    assertSameMaps(panelsOnly(await everyNumber(written, "current", currentBoards)), panelsOnly(numbersAfter), "redefined, on a store this release wrote twice", sketched, false);

    // The comparison has something to compare: the session rates are shares strictly between 0 and 1 and differ from
    // each other (a swapped count changes them), the root causes count several labels, the failure rate has points.
    const panel = (uid: string, title: string) => numbersAfter.get(`panel ${uid}/${title}`) as PanelNumbers[];
    const behaviour = panel("ragscope-rag-quality", "User behaviour over the range")[1]!;
    const [resolved, firstContact] = ["Sessions resolved", "First-contact resolution"].map((name) => behaviour.rows[0]![behaviour.columns.findIndex((column) => column.startsWith(`${name}:`))] as number);
    for (const share of [resolved!, firstContact!]) assert.ok(share > 0 && share < 1, `session share ${share}`);
    assert.notEqual(resolved, firstContact);
    const causes = panel("ragscope-failures", "Root causes")[0]!;
    assert.ok(causes.rows.length >= 2 && causes.rows.every((row) => Number(row[1]) > 0), JSON.stringify(causes.rows));
    assert.ok(panel("ragscope-failures", "Failure rate")[0]!.rows.some((row) => typeof row[1] === "number" && row[1] > 0 && row[1] < 1), "the failure rate has points between 0 and 1");

    const sqlOf = (uid: string, title: string, target = 0) => currentBoards.find((board) => board.uid === uid)!.rows.flatMap((row) => row.panels).find((candidate) => candidate.title === title)!.targets[target]!.rawSql;
    // The session rates read what 0016's session_rollups became in migration 0021: its rows sorted by session and the
    // sessions' summaries, both filled from it on this upgrade.
    for (const title of ["User behaviour over the range", "User behaviour over time", "Business: rates over the range", "Business over time"]) {
      assert.match(sqlOf("ragscope-rag-quality", title, 1), /FROM session_summaries FINAL/, title);
      assert.match(sqlOf("ragscope-rag-quality", title, 1), /FROM session_rollups_by_session FINAL/, title);
    }
    for (const title of ["Root causes over time", "Root causes"]) assert.match(sqlOf("ragscope-failures", title), /FROM root_cause_rollups FINAL/, title);
    assert.match(sqlOf("ragscope-failures", "Failure rate"), /FROM request_rollups FINAL/);
    for (const title of ["User behaviour over the range", "User behaviour over time", "Business: rates over the range", "Business over time", "Root causes over time", "Root causes", "Failure rate"]) {
      const board = title.startsWith("Root") || title === "Failure rate" ? "ragscope-failures" : "ragscope-rag-quality";
      for (const target of currentBoards.find((candidate) => candidate.uid === board)!.rows.flatMap((row) => row.panels).find((candidate) => candidate.title === title)!.targets) {
        assert.doesNotMatch(target.rawSql, /FROM (case_results|evaluation_results) FINAL/, `${title} reads no raw rows`);
      }
    }
    for (const table of ["session_rollups", "root_cause_rollups"]) {
      const [rows] = await queryRows<{ rows: string }>(earlier.connection, `SELECT count() AS rows FROM {{database}}.${table} FINAL`);
      assert.ok(Number(rows!.rows) > 0, `the migration filled ${table} from the stored rows`);
    }
  });
});

/**
 * Migrations 0018 (hourly metric rollups), 0019 (stage timing rollups) and
 * 0021 (session summaries: the session panels read them) on
 * a store of the release before them, with data: the RAG quality board shows the numbers that release's board
 * (test/data/release-0017/) showed, over three ranges — the dataset's two
 * hours (2-minute buckets: the range panels read the two whole hours from
 * metric_rollups_hourly, the panels over time read minutes), its last 90
 * minutes (the range panels read the second hour whole and the first one's
 * last 30 minutes: an hour counted twice, or a minute of it, would weigh it
 * differently in every mean) and 60 hours around them (1-hour buckets: the
 * panels over time read hours too) — and so
 * does a store this release wrote and then re-wrote through its sink (a
 * re-evaluated request's hour recomputed once). Means and counts exactly,
 * percentiles within the t-digest's documented error.
 */
describe("upgrading a store of the release before migrations 0018 to 0021", () => {
  const RELEASE_0017_DATA = fileURLToPath(new URL("../../data/release-0017/", import.meta.url));
  const BOARDS = ["rag-quality.json"];
  const wide: RangeContext = { fromMs: DATASET_START - 29 * 3_600_000, toMs: DATASET_END + 29 * 3_600_000, intervalMs: panelIntervalMs(DATASET_START - 29 * 3_600_000, DATASET_END + 29 * 3_600_000, 60) };
  const partial: RangeContext = { fromMs: DATASET_START + 30 * 60_000, toMs: DATASET_END, intervalMs: panelIntervalMs(DATASET_START + 30 * 60_000, DATASET_END, 60) };
  let earlier: TemporaryStore;
  let written: TemporaryStore;
  let cleanup: () => Promise<void>;

  before(async () => {
    ({ earlier, written, cleanup } = await earlierAndRewritten(17, "release-0017", () => DATASET_END + 4 * 3_600_000));
  });

  after(async () => {
    await cleanup();
  });

  test("changes no number of the RAG quality board, over the dataset's hours, part of them and 60 hours in 1-hour buckets", async () => {
    assert.equal(wide.intervalMs, 3_600_000, "the wide range's buckets are hours");
    const earlierBoards = await readDashboards(path.join(RELEASE_0017_DATA, "dashboards"), BOARDS);
    const currentBoards = await readDashboards(undefined, BOARDS);
    const before = { window: await everyNumber(earlier, "current", earlierBoards), partial: await everyNumber(earlier, "current", earlierBoards, partial), wide: await everyNumber(earlier, "current", earlierBoards, wide) };
    const { applied } = await runMigrations(earlier.connection);
    const shipped = (await readdir(migrationsFolder)).filter((name) => name.endsWith(".sql")).map((name) => name.slice(0, 4)).sort();
    assert.deepEqual(applied.map((name) => name.slice(0, 4)), shipped.filter((number) => number >= "0018"));
    const panelsOnly = (numbers: Map<string, unknown>) => new Map([...numbers].filter(([key]) => key.startsWith("panel ")));
    for (const [name, range] of [["window", context], ["partial", partial], ["wide", wide]] as const) {
      const sketched = await sketchedValues(earlier, range);
      const after = await everyNumber(earlier, "current", currentBoards, range);
      assertSameMaps(after, before[name], `after migration 0018 (${name})`, sketched, true, true);
      assertSameMaps(panelsOnly(await everyNumber(written, "current", currentBoards, range)), panelsOnly(before[name]), `on a store this release wrote twice (${name})`, sketched, true, true);
      // The redefined session rates: the upgraded store shows what a store this release wrote shows.
      assertSameMaps(panelsOnly(await everyNumber(written, "current", currentBoards, range)), panelsOnly(after), `redefined, on a store this release wrote twice (${name})`, sketched, false);
    }

    // The comparison has something to compare: the hours are there, every metric_rollups panel reads them, and the
    // retrieval means are numbers.
    const [hours] = await queryRows<{ rows: string; hours: string }>(earlier.connection, "SELECT count() AS rows, uniqExact(hour) AS hours FROM {{database}}.metric_rollups_hourly FINAL");
    assert.ok(Number(hours!.rows) > 0 && Number(hours!.hours) === 2, `the migration filled the dataset's two hours: ${JSON.stringify(hours)}`);
    const sqls = currentBoards[0]!.rows.flatMap((row) => row.panels).flatMap((panel) => panel.targets.map((target) => target.rawSql));
    const minuteReaders = sqls.filter((sql) => /FROM metric_rollups FINAL/.test(sql));
    assert.ok(minuteReaders.length >= 10, `${minuteReaders.length} queries read metric_rollups`);
    for (const sql of minuteReaders) assert.match(sql, /FROM metric_rollups_hourly FINAL/);
    const means = (before.window.get("panel ragscope-rag-quality/Retrieval: means over the range") as PanelNumbers[])[0]!;
    assert.ok(means.rows[0]!.some((cell) => typeof cell === "number" && cell > 0), JSON.stringify(means));
    // The stage latency panels read stage_rollups (migration 0019), which the upgrade filled, and show every stage.
    const stageTable = (before.window.get("panel ragscope-rag-quality/Stage latency") as PanelNumbers[])[0]!;
    assert.equal(stageTable.rows.length, 3, JSON.stringify(stageTable));
    for (const title of ["Stage latency", "Stage latency P95"]) {
      const sql = currentBoards[0]!.rows.flatMap((row) => row.panels).find((panel) => panel.title === title)!.targets[0]!.rawSql;
      assert.match(sql, /FROM stage_rollups FINAL/, title);
    }
    // The session panels read the session summaries (migration 0021), which the upgrade filled from session_rollups,
    // and their rates are numbers: the comparison above compared sessions.
    const [sessions] = await queryRows<{ summaries: string; sessions: string }>(earlier.connection, "SELECT count() AS summaries, uniqExact(session_key) AS sessions FROM {{database}}.session_summaries FINAL");
    assert.ok(Number(sessions!.sessions) > 0, `the migration summarised the dataset's sessions: ${JSON.stringify(sessions)}`);
    for (const title of ["Business: rates over the range", "Business over time", "User behaviour over the range", "User behaviour over time"]) {
      const panel = currentBoards[0]!.rows.flatMap((row) => row.panels).find((candidate) => candidate.title === title)!;
      assert.ok(panel.targets.some((target) => /FROM session_summaries FINAL/.test(target.rawSql)), title);
    }
    const business = (before.window.get("panel ragscope-rag-quality/Business: rates over the range") as PanelNumbers[])[1]!;
    assert.ok(business.rows[0]!.some((cell) => typeof cell === "number"), JSON.stringify(business));
  });
});

/**
 * Migration 0029 (trace_list carries error_type, issue 13) on a store of the release before it, with data: the
 * dashboard dataset's requests that threw and timed out, replayed, and reviews — two reviewers passing a request
 * that timed out and one that threw (set aside: they stay failed, migration 0026), passing one that completed and
 * failing another, one reviewer alone, two who disagree. After the upgrade the web UI's list shows every request's
 * error type, and each final-verdict filter selects the traces, that release's list did: its two queries, kept
 * here as it ran them — the error types from case_results, and the verdict with whether a request completed read
 * from case_results. So does a store this release wrote and re-wrote through its sink.
 */
describe("upgrading a store of the release before migration 0029", () => {
  /** The release before 0029's final verdict over trace_list (its LISTED_FINAL_VERDICT), its reviews read per case. */
  const PREVIOUS_LISTED_VERDICT = reviewsPerCase(`multiIf((${REVIEWED_PASSED}) AND NOT (case_result_id IN (SELECT case_result_id FROM case_results WHERE ${DID_NOT_COMPLETE} AND ${REVIEWED_PASSED})), 'passed', (${REVIEWED_PASSED}) OR (${REVIEWED_FAILED}), 'failed', quality_status)`);
  const VERDICTS = ["passed", "failed", "review_required", "unjudged", "not_evaluated"];
  let earlier: TemporaryStore;
  let written: TemporaryStore;
  let cleanup: () => Promise<void>;
  /** The reviewed requests by how they were reviewed. */
  const reviewed: Record<"timedOut" | "threw" | "passed" | "failed" | "alone" | "disagree", string> = { timedOut: "", threw: "", passed: "", failed: "", alone: "", disagree: "" };

  before(async () => {
    ({ earlier, written, cleanup } = await earlierAndRewritten(28, "release-0032"));
    const results = dataset.evaluations.map((evaluation) => evaluation.caseResult);
    const completed = results.filter((result) => result.execution_error.type === "none" && result.quality_status !== "failed");
    reviewed.timedOut = results.find((result) => result.execution_error.type === "timeout")!.case_result_id;
    reviewed.threw = results.find((result) => result.execution_error.type === "system_error")!.case_result_id;
    [reviewed.passed, reviewed.failed, reviewed.alone, reviewed.disagree] = completed.slice(0, 4).map((result) => result.case_result_id) as [string, string, string, string];
    // Each label of the request reviewed (a Case Result id of the dataset is one request's). The earlier store's
    // human_labels has no trace_id column (the insert's field is skipped): migration 0037 binds its labels.
    const traceIdOf = new Map(results.map((result) => [result.case_result_id, result.trace_id]));
    const label = (caseResultId: string, labelerId: string, verdict: "pass" | "fail"): HumanLabel =>
      newHumanLabel({ case_result_id: caseResultId, trace_id: traceIdOf.get(caseResultId)!, metric: "faithfulness", labeler_id: labelerId, verdict, labeled_at: new Date(DATASET_END).toISOString() });
    const labels = [
      ...[reviewed.timedOut, reviewed.threw, reviewed.passed].flatMap((id) => [label(id, "alice", "pass"), label(id, "bob", "pass")]),
      label(reviewed.failed, "alice", "fail"),
      label(reviewed.failed, "bob", "fail"),
      label(reviewed.alone, "alice", "pass"),
      label(reviewed.disagree, "alice", "pass"),
      label(reviewed.disagree, "bob", "fail"),
    ];
    for (const on of [earlier, written]) await on.store.humanLabels.save(labels);
  });

  after(async () => {
    await cleanup();
  });

  /** Every trace of the list with its error type, and each verdict's traces, as this release's list gives them. */
  async function listed(on: TemporaryStore): Promise<{ errorTypes: string[]; verdicts: Record<string, string[]> }> {
    const verdicts: Record<string, string[]> = {};
    for (const verdict of VERDICTS) verdicts[verdict] = await listedPages(on, { verdict }, (trace) => trace.caseResultId);
    return { errorTypes: await listedPages(on, {}, (trace) => `${trace.caseResultId} ${trace.errorType}`), verdicts };
  }

  test("changes no error type and no verdict of the web UI's trace list", async () => {
    // What the release before showed: its page query's error type (each Case Result's newest version), its verdict filter.
    const order = "ORDER BY started_at DESC, case_result_id DESC";
    const errorTypes = new Map(
      (await queryRows<{ case_result_id: string; error_type: string }>(earlier.connection, "SELECT case_result_id, argMax(error_type, version) AS error_type FROM {{database}}.case_results GROUP BY toDate(started_at), tenant_id, service_name, case_result_id")).map(
        (row) => [row.case_result_id, row.error_type],
      ),
    );
    const listedBefore = await queryRows<{ case_result_id: string }>(earlier.connection, `SELECT case_result_id FROM {{database}}.trace_list FINAL ${order}`);
    const before = { errorTypes: listedBefore.map((row) => `${row.case_result_id} ${errorTypes.get(row.case_result_id) ?? "none"}`), verdicts: {} as Record<string, string[]> };
    for (const verdict of VERDICTS) {
      const rows = await queryRows<{ case_result_id: string }>(
        earlier.connection,
        `SELECT case_result_id FROM {{database}}.trace_list FINAL WHERE ${qualifyTables(PREVIOUS_LISTED_VERDICT, earlier.connection.database)} = {verdict:String} ${order}`,
        { verdict },
      );
      before.verdicts[verdict] = rows.map((row) => row.case_result_id);
    }
    // The comparison has something to compare: requests that timed out and threw, and every kind of review.
    assert.ok(before.errorTypes.includes(`${reviewed.timedOut} timeout`) && before.errorTypes.includes(`${reviewed.threw} system_error`), "the dataset has requests that did not complete");
    assert.ok(before.verdicts.failed!.includes(reviewed.timedOut) && before.verdicts.failed!.includes(reviewed.threw), "a review never passes a request that did not complete");
    assert.ok(before.verdicts.passed!.includes(reviewed.passed) && before.verdicts.failed!.includes(reviewed.failed), "two reviewers who agree decide a request that completed");
    assert.ok(VERDICTS.filter((verdict) => before.verdicts[verdict]!.length > 0).length >= 3, JSON.stringify(before.verdicts));

    const { applied } = await runMigrations(earlier.connection);
    const shipped = (await readdir(migrationsFolder)).filter((name) => name.endsWith(".sql")).map((name) => name.slice(0, 4)).sort();
    assert.deepEqual(applied.map((name) => name.slice(0, 4)), shipped.filter((number) => number >= "0029"));
    assert.deepEqual(await listed(earlier), before, "after migration 0029");
    assert.deepEqual(await listed(written), before, "on a store this release wrote twice");
    // The list's copy holds each stored row's error type, every version of it (the replayed rows too).
    const rowTypes = (table: string) => queryRows(earlier.connection, `SELECT case_result_id, version, error_type FROM {{database}}.${table} ORDER BY case_result_id, version, error_type`);
    assert.deepEqual(await rowTypes("trace_list"), await rowTypes("case_results"));
  });
});

/**
 * Migration 0033 (request_rollups.task_not_judged, "Task success · not judged") on a store of the release before it,
 * with data: the dashboard dataset (every request has a verdict) and, in two minutes of its range, requests that
 * make the count matter — complete requests nothing judged, a partial trace a rule failed (its root span never
 * arrived) and a result rebuilt from a late thumbs alone — written by that release's sink and refresh. After the
 * migrations and the repair they note (what a writing start or `ragscope migrate` runs): every other count of
 * every rollup row is unchanged, and task_not_judged is, minute by minute, what the rows say and what a store this
 * release wrote holds.
 */
describe("upgrading a store of the release before migration 0033", () => {
  const EXTRA_AT = [DATASET_START + 5 * 60_000 + 1_000, DATASET_START + 6 * 60_000 + 1_000];
  const traceOf = (id: string): string => Buffer.from(id).toString("hex").padEnd(32, "0").slice(0, 32);
  const extra = (id: string, at: number, quality_status: CaseResult["quality_status"], partial = false, feedback: { kind: string; recorded_at: string }[] = []): CaseResult => {
    const result = { ...plannedCaseResult({ caseResultId: id, traceId: traceOf(id), startedAtMs: at, service: SERVICES[0], tenant: TENANTS[0], feedback }), quality_status };
    return partial ? { ...result, rag_observation: { ...result.rag_observation, partial_trace: true } } : result;
  };
  // Minute 5: two complete requests nothing judged (copied exactly: complete - judged). Minute 6: a partial trace a
  // rule failed, a complete request nothing judged and a late thumbs of a request never seen (recomputed).
  const EXTRA: CaseResult[] = [
    extra("cr_0033_unjudged_a", EXTRA_AT[0]!, "unjudged"),
    extra("cr_0033_untouched_b", EXTRA_AT[0]!, "not_evaluated"),
    extra("cr_0033_root_lost", EXTRA_AT[1]!, "failed", true),
    extra("cr_0033_unjudged_c", EXTRA_AT[1]!, "unjudged"),
    extra("cr_0033_late_thumb", EXTRA_AT[1]!, "not_evaluated", true, [{ kind: "thumbs_down", recorded_at: new Date(EXTRA_AT[1]! + 60_000).toISOString() }]),
  ];
  const KEY = ["toString(minute) AS minute", ...REQUEST_ROLLUP_GROUP].join(", ");
  const KEPT = Object.keys(REQUEST_ROLLUP_COUNTS).filter((column) => column !== "task_not_judged");
  /** Every rollup row's counts but task_not_judged, keyed, in order. */
  const keptCounts = (on: TemporaryStore) => queryRows(on.connection, `SELECT ${KEY}, ${KEPT.join(", ")}, rating_sum, finalizeAggregation(user_states) AS users FROM {{database}}.request_rollups FINAL ORDER BY ${KEY.replace("toString(minute) AS minute", "minute")}`);
  const perMinute = (on: TemporaryStore, sql: string) => queryRows<{ minute: string; count: string }>(on.connection, sql).then((rows) => rows.map((row) => `${row.minute} ${row.count}`));
  const rolledUp = (on: TemporaryStore) => perMinute(on, "SELECT toString(minute) AS minute, sum(task_not_judged) AS count FROM {{database}}.request_rollups FINAL GROUP BY minute HAVING count > 0 ORDER BY minute");
  const raw = (on: TemporaryStore) =>
    perMinute(on, qualifyTables(`SELECT toString(toStartOfMinute(started_at)) AS minute, countIf(${REQUEST_ROLLUP_COUNTS.task_not_judged}) AS count FROM case_results FINAL GROUP BY minute HAVING count > 0 ORDER BY minute`, on.connection.database));
  let earlier: TemporaryStore;
  let written: TemporaryStore;
  let cleanup: () => Promise<void>;

  /** Writes the extra requests through the sink and refreshes the rollups, as the collector does after its writes. */
  async function writeExtra(on: TemporaryStore, options: { notJudgedCount: boolean; failingRows: boolean }): Promise<void> {
    const rollups = new ClickHouseMetricRollups(on.connection, { ...options, now: () => DATASET_END + 5 * 3_600_000 });
    const sink = new ClickHouseSink(on.connection, { datasetOf: () => "", now: () => DATASET_END + 5 * 3_600_000, rollups });
    const extraWritten = await sink.write(EXTRA.map((caseResult) => ({ caseResult, evaluationResults: [] })));
    assert.ok(extraWritten.ok, extraWritten.ok ? "" : extraWritten.error.message);
    await rollups.refresh();
    assert.equal(rollups.counters.failures, 0, rollups.counters.lastError);
  }

  before(async () => {
    ({ earlier, written, cleanup } = await earlierAndRewritten(32, "release-0032"));
    await writeExtra(earlier, { notJudgedCount: false, failingRows: false });
    await writeExtra(written, { notJudgedCount: true, failingRows: true });
  });
  after(async () => {
    await cleanup();
  });

  test("keeps every count and fills task_not_judged with what the rows say, as a store this release wrote", async () => {
    const before = await keptCounts(earlier);
    assert.ok(before.length > 0);
    const { applied } = await runMigrations(earlier.connection);
    const shipped = (await readdir(migrationsFolder)).filter((name) => name.endsWith(".sql")).map((name) => name.slice(0, 4)).sort();
    assert.deepEqual(applied.map((name) => name.slice(0, 4)), shipped.filter((number) => number >= "0033"));
    // The migration's copies replaced each row: one row a key again once collapsed, nothing lost.
    assert.deepEqual(await keptCounts(earlier), before, "after migration 0033");
    const repaired = await repairNotedRollups(earlier.connection, new ClickHouseMetricRollups(earlier.connection, { now: () => DATASET_END + 6 * 3_600_000 }));
    assert.ok(repaired.ok, repaired.ok ? "" : repaired.error);
    assert.deepEqual(repaired.value.reasons, ["task success counts complete requests without a verdict as not judged (migration 0033)"]);
    assert.deepEqual(await keptCounts(earlier), before, "after the repair");

    const minute = (at: number) => new Date(Math.floor(at / 60_000) * 60_000).toISOString().replace("T", " ").slice(0, 19);
    // Worked by hand: minute 5 two (the dataset's requests there all have a verdict), minute 6 one.
    assert.deepEqual(await raw(earlier), [`${minute(EXTRA_AT[0]!)} 2`, `${minute(EXTRA_AT[1]!)} 1`]);
    assert.deepEqual(await rolledUp(earlier), await raw(earlier));
    assert.deepEqual(await rolledUp(written), await raw(earlier), "a store this release wrote");
  });
});
