/**
 * Migration 0017 (abstention rollups, case_results.behaviour_fields) and the
 * Quality page's new reads change no number of the page: on a store of the
 * release before it, with data (abstention pairs, user events, sessions,
 * experiments, two runs, two tenants, replayed rows), the page's JSON
 * (`GET /api/quality` of the web UI server) after the upgrade is what that
 * release's own statements (recorded in test/data/release-0015/) compute on
 * the store before it — the board's every value, sample count, bucket and
 * service, and the behaviour board — for the default range, a service, a run
 * (raw rows, no rollups) and a narrower range, and for one tenant's reader.
 * A store this release wrote the same traffic to (twice, the second time a
 * re-evaluation with a later version) shows the same page.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import os from "node:os";
import path from "node:path";
import { caseResult as caseResultSchema, type CaseResult } from "../../../contracts/case-result.js";
import { HEURISTIC_METRIC_LABEL_SUFFIX, labelOfMetric } from "../../../evaluators/metric-catalog.js";

/** The refusal rates, labelled heuristic since the earlier release (dashboards/source/aggregate-metrics.ts abstentionRate). */
const RELABELLED_AS_HEURISTIC: ReadonlySet<string> = new Set(["no_answer_accuracy", "correct_refusal_rate", "false_refusal_rate"]);
import { behaviourBoard, MAXIMUM_BEHAVIOUR_REQUESTS, readBehaviourBoard, type BehaviourBoard } from "../../../evaluators/behaviour/behaviour-board.js";
import { ClickHouseMetricRollups } from "../../../store/clickhouse/metric-rollups.js";
import { ClickHouseSink } from "../../../store/clickhouse/clickhouse-sink.js";
import { migrationsFolder, runMigrations } from "../../../store/clickhouse/run-migrations.js";
import type { QualityAggregate, QualityBoard, QualityScope } from "../../../store/ports/quality-reader.js";
import { parseBoardQuery } from "../../../ui/pages/board-query.js";
import { startUiServer, type UiServer } from "../../../ui/ui-server.js";
import { queryRows, temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";
import { BASELINE_RUN, DATASET_END, DATASET_START, insertDuplicateRows, seedDashboardDataset, SERVICES, TENANTS } from "../dashboards/dashboard-dataset.js";
import { migrationsThrough } from "../../support/previous-release.js";

interface RecordedSource {
  aggregates: { name: string; label: string; unit: string }[];
  range: string;
  overTime: string;
  byService: string;
}
interface RecordedStatements {
  services: string;
  behaviour: string;
  layers: { title: string; order: string[]; sources: RecordedSource[] }[];
}
interface Recording {
  database: string;
  tenantParameter: string;
  everyTenant: RecordedStatements;
  everyTenantOneRun: RecordedStatements;
  oneTenant: RecordedStatements;
}

const RELEASE_0015_DATA = fileURLToPath(new URL("../../data/release-0015/", import.meta.url));
/** The behaviour board's clock: a week after the traffic, so every session window has passed. */
const NOW = DATASET_END + 7 * 86_400_000;
const TOKEN = "quality-page-upgrade-token-0123456789";

const number = (value: unknown): number | null => {
  if (value === null || value === undefined) return null;
  const parsed = Number(value);
  return Number.isFinite(parsed) ? parsed : null;
};

/**
 * The page as the release before migration 0017 computed it: its statements, its assembly (one range row,
 * per-bucket and per-service rows per layer and source; the layer's own order) and its behaviour board over
 * the parsed payloads.
 */
async function pageBefore(store: TemporaryStore, recording: Recording, scope: QualityScope, tenants?: string[]): Promise<{ board: QualityBoard; behaviour: BehaviourBoard }> {
  if (tenants !== undefined && scope.runId !== undefined) throw new Error("no recording of one tenant's reader over one run");
  const statements = tenants !== undefined ? recording.oneTenant : scope.runId !== undefined ? recording.everyTenantOneRun : recording.everyTenant;
  const parameters = { fromMs: scope.fromMs, toMs: scope.toMs, bucketSeconds: scope.bucketSeconds, service: scope.service ?? "", runId: scope.runId ?? "", ...(tenants === undefined ? {} : { [recording.tenantParameter]: tenants }) };
  const run = (sql: string, extra: Record<string, unknown> = {}) =>
    queryRows<Record<string, unknown>>(store.connection, sql.replaceAll(`${recording.database}.`, `${store.connection.database}.`), { ...parameters, ...extra });
  const width = scope.bucketSeconds * 1000;
  const times: number[] = [];
  for (let time = Math.floor(scope.fromMs / width) * width; time < scope.toMs; time += width) times.push(time);
  const services = scope.service === undefined ? (await run(statements.services, { service: "" })).map((row) => String(row.service)) : [scope.service];
  const layers = [];
  for (const layer of statements.layers) {
    const aggregates: QualityAggregate[] = [];
    for (const source of layer.sources) {
      const [[range], overTime, byService] = await Promise.all([run(source.range), run(source.overTime), run(source.byService)]);
      for (const aggregate of source.aggregates) {
        const series: (number | null)[] = times.map(() => null);
        for (const row of overTime) {
          const index = times.indexOf(Number(row.bucket));
          if (index !== -1) series[index] = number(row[aggregate.label]);
        }
        aggregates.push({
          ...aggregate,
          value: number(range?.[aggregate.label]),
          samples: number(range?.[`${aggregate.label} · samples`]) ?? 0,
          overTime: series,
          byService: Object.fromEntries(byService.map((row) => [String(row.service), number(row[aggregate.label])])),
        });
      }
    }
    aggregates.sort((first, second) => layer.order.indexOf(first.name) - layer.order.indexOf(second.name));
    layers.push({ title: layer.title, aggregates });
  }
  const payloads = await run(statements.behaviour, { limit: MAXIMUM_BEHAVIOUR_REQUESTS + 1 });
  const caseResults: CaseResult[] = [];
  for (const row of payloads.slice(0, MAXIMUM_BEHAVIOUR_REQUESTS)) {
    const parsed = caseResultSchema.safeParse(JSON.parse(String(row.payload)));
    if (parsed.success) caseResults.push(parsed.data);
  }
  return { board: { times, services, layers }, behaviour: behaviourBoard(caseResults, NOW, payloads.length > MAXIMUM_BEHAVIOUR_REQUESTS) };
}

/** The page's JSON from the web UI server on the store. */
async function pageAfter(server: UiServer, query: string): Promise<{ scope: QualityScope; board: QualityBoard; behaviour: BehaviourBoard }> {
  const answer = await fetch(`${server.url}/api/quality${query}`, { headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(answer.status, 200, await answer.clone().text());
  return (await answer.json()) as { scope: QualityScope; board: QualityBoard; behaviour: BehaviourBoard };
}

/**
 * An aggregate's values to 12 significant digits: a mean or a share of a sum of floats may differ in its last
 * bit when the engine adds the same values in another order (one statement per source now, three before; and
 * its threads' order is not fixed either). Counts — the samples — are compared as they are.
 */
function rounded(aggregate: QualityAggregate): QualityAggregate {
  const round = (value: number | null) => (value === null ? null : Number(value.toPrecision(12)));
  return { ...aggregate, value: round(aggregate.value), overTime: aggregate.overTime.map(round), byService: Object.fromEntries(Object.entries(aggregate.byService).map(([service, value]) => [service, round(value)])) };
}

/**
 * Rows the page has gained since the earlier release, which has no numbers of them to compare: retrieval's permission
 * violations beside the leaks (the Boundaries layer). Every row the earlier release had is compared.
 */
const ADDED_SINCE_THE_EARLIER_RELEASE: ReadonlySet<string> = new Set(["permission_violation_rate"]);

/** Equal boards, aggregate by aggregate (a failure names the aggregate); the rows added since, apart. */
function assertSameBoard(upgraded: QualityBoard, expected: QualityBoard, where: string): void {
  const added = upgraded.layers.flatMap((layer) => layer.aggregates.filter((aggregate) => ADDED_SINCE_THE_EARLIER_RELEASE.has(aggregate.name)).map((aggregate) => aggregate.name));
  assert.deepEqual(added, [...ADDED_SINCE_THE_EARLIER_RELEASE], `${where}: the rows added since the earlier release`);
  const actual = { ...upgraded, layers: upgraded.layers.map((layer) => ({ ...layer, aggregates: layer.aggregates.filter((aggregate) => !ADDED_SINCE_THE_EARLIER_RELEASE.has(aggregate.name)) })) };
  assert.deepEqual(actual.times, expected.times, `${where}: the buckets`);
  assert.deepEqual(actual.services, expected.services, `${where}: the services`);
  assert.deepEqual(actual.layers.map((layer) => [layer.title, layer.aggregates.map((aggregate) => aggregate.name)]), expected.layers.map((layer) => [layer.title, layer.aggregates.map((aggregate) => aggregate.name)]), `${where}: the layers`);
  // A heuristic rule's metric is labelled so since the earlier release (labelOfMetric), and so are the refusal rates,
  // which count every abstention reading: display only, their numbers compared as before.
  const labelNow = (aggregate: QualityAggregate) => (RELABELLED_AS_HEURISTIC.has(aggregate.name) ? `${aggregate.label}${HEURISTIC_METRIC_LABEL_SUFFIX}` : labelOfMetric(aggregate.name, aggregate.label));
  expected.layers.forEach((layer, index) => layer.aggregates.forEach((aggregate, position) => assert.deepEqual(rounded(actual.layers[index]!.aggregates[position]!), rounded({ ...aggregate, label: labelNow(aggregate) }), `${where}: ${aggregate.name}`)));
}

const aggregateOf = (board: QualityBoard, name: string): QualityAggregate => board.layers.flatMap((layer) => layer.aggregates).find((aggregate) => aggregate.name === name)!;

/** The page's queries: the default range, a service, a run (the raw rows), a narrower range (a different bucket width). */
const QUERIES = [
  "",
  `?service=${SERVICES[1]}`,
  `?run=${BASELINE_RUN}`,
  `?from=${new Date(DATASET_START + 30 * 60_000).toISOString()}&to=${new Date(DATASET_START + 90 * 60_000).toISOString()}`,
  // 120 hours in 1-hour buckets: the metric aggregates read the dataset's two whole hours from metric_rollups_hourly (migration 0018).
  `?from=${new Date(DATASET_START - 59 * 3_600_000).toISOString()}&to=${new Date(DATASET_END + 59 * 3_600_000).toISOString()}`,
];

describe("the Quality page on a store of the release before migration 0017", () => {
  let recording: Recording;
  let earlier: TemporaryStore;
  let written: TemporaryStore;
  let earlierRelease: string;
  /** query → the page as the earlier release computed it, and the scope it was for. */
  const earlierPages = new Map<string, { scope: QualityScope; board: QualityBoard; behaviour: BehaviourBoard }>();
  let tenantScope: QualityScope;
  let tenantBefore: { board: QualityBoard; behaviour: BehaviourBoard };

  before(async () => {
    recording = JSON.parse(await readFile(path.join(RELEASE_0015_DATA, "quality-page-queries.json"), "utf8")) as Recording;
    earlierRelease = await mkdtemp(path.join(os.tmpdir(), "ragscope-release-0015-migrations-"));
    await migrationsThrough(15, earlierRelease);
    earlier = await temporaryStore({ migrate: false });
    await runMigrations(earlier.connection, earlierRelease);
    const seeded = await seedDashboardDataset(earlier.connection, undefined, "release-0015");
    await insertDuplicateRows(earlier.connection, seeded, "release-0015");

    // The scopes the page chooses for these queries (its default range is the stored span).
    for (const query of QUERIES) {
      const span = await earlier.store.reader.storedSpan();
      const scope = parseBoardQuery(new URLSearchParams(query), span, NOW);
      assert.ok(scope.ok);
      earlierPages.set(query, { scope: scope.value, ...(await pageBefore(earlier, recording, scope.value)) });
    }
    assert.equal(earlierPages.get(QUERIES[4]!)!.scope.bucketSeconds, 3_600, "the 120-hour range's buckets are hours");
    tenantScope = earlierPages.get("")!.scope;
    tenantBefore = await pageBefore(earlier, recording, tenantScope, [TENANTS[1]!]);

    written = await temporaryStore({ beside: earlier });
    await seedDashboardDataset(written.connection, seeded);
    // Every request evaluated again and written through the sink with a later version: the refresh recomputes its minutes.
    const rollups = new ClickHouseMetricRollups(written.connection);
    const sink = new ClickHouseSink(written.connection, { datasetOf: (caseId) => seeded.datasetOf.get(caseId) ?? "", now: () => DATASET_END + 3 * 3_600_000, rollups });
    assert.ok((await sink.write(seeded.evaluations)).ok);
    await rollups.refresh();
    assert.equal(rollups.counters.failures, 0, rollups.counters.lastError);
  });

  after(async () => {
    await written?.cleanup();
    await earlier?.cleanup();
    await rm(earlierRelease, { recursive: true, force: true });
  });

  test("the recorded statements see the data the comparison rests on", () => {
    const { board, behaviour } = earlierPages.get("")!;
    const rates = ["no_answer_accuracy", "correct_refusal_rate", "false_refusal_rate"].map((name) => aggregateOf(board, name));
    for (const rate of rates) {
      assert.ok(rate.value !== null && rate.value > 0 && rate.value < 1, `${rate.name}: ${rate.value}`);
      assert.ok(rate.samples > 0 && rate.overTime.some((value) => value !== null) && Object.keys(rate.byService).length === SERVICES.length, JSON.stringify(rate));
    }
    // Three different values on different sample counts: a swapped count or denominator shows.
    assert.equal(new Set(rates.map((rate) => rate.value)).size, 3, JSON.stringify(rates.map((rate) => rate.value)));
    assert.equal(new Set(rates.map((rate) => rate.samples)).size, 3, JSON.stringify(rates.map((rate) => rate.samples)));
    assert.ok(aggregateOf(board, "task_success_rate").value !== null);
    const counted = behaviour.rows.filter((row) => row.value !== null);
    assert.ok(counted.length >= 8, `behaviour metrics with a value: ${counted.map((row) => row.metric).join(", ")}`);
    assert.ok(behaviour.rows.some((row) => row.sessionWindow && row.value !== null && row.value > 0), "a session-window metric counts something");
    assert.notDeepEqual(tenantBefore.board, board, "one tenant's page differs from every tenant's");
  });

  test("after migration 0017 the page's JSON is the earlier release's, for every scope and for one tenant's reader", async () => {
    const { applied } = await runMigrations(earlier.connection);
    assert.deepEqual(applied.map((name) => name.slice(0, 4)), (await readdir(migrationsFolder)).filter((name) => name.endsWith(".sql") && name.slice(0, 4) > "0015").map((name) => name.slice(0, 4)).sort());
    const [stored] = await queryRows<{ pairs: string; fields: string }>(
      earlier.connection,
      "SELECT (SELECT sum(unanswerable + answerable) FROM {{database}}.abstention_rollups FINAL) AS pairs, (SELECT countIf(behaviour_fields LIKE '{\"session_id\":%') FROM {{database}}.case_results) AS fields",
    );
    assert.ok(Number(stored!.pairs) > 0, "the migration rolled up the stored pairs");
    assert.ok(Number(stored!.fields) > 0, "the stored rows have behaviour_fields (materialized by the migration, or computed from their payload until it has)");
    for (const [name, target] of [
      ["upgraded", earlier],
      ["written by this release", written],
    ] as const) {
      const server = await startUiServer({ host: "127.0.0.1", port: 0, store: target.store, access: { tokens: new Map([[TOKEN, "reviewer"]]) }, now: () => NOW });
      try {
        for (const query of QUERIES) {
          const page = await pageAfter(server, query);
          const expected = earlierPages.get(query)!;
          assert.deepEqual(page.scope, expected.scope, `${name} ${query}: the scope`);
          assertSameBoard(page.board, expected.board, `${name} ${query}`);
          assert.deepEqual(page.behaviour, expected.behaviour, `${name} ${query}: the behaviour board`);
        }
      } finally {
        await server.close();
      }
      const reader = target.store.scoped([TENANTS[1]!]).quality;
      assertSameBoard(await reader.qualityBoard(tenantScope), tenantBefore.board, `${name}: one tenant's board`);
      assert.deepEqual(await readBehaviourBoard(reader, tenantScope, NOW), tenantBefore.behaviour, `${name}: one tenant's behaviour board`);
    }
  });
});
