/**
 * Upgrading a store of the release before migration 0027, whose runs table had no tenant: every recorded lineage
 * is kept, as a run without a tenant (''), which readers of every tenant read and a tenant's reader does not —
 * even when that tenant's own requests carry the run id (SECURITY.md, Tenants: nothing says whose run an old
 * record was, and any tenant can name any run id on its spans). After the upgrade a tenant's record of the same
 * run id is kept beside it, not in its place.
 *
 * The earlier store: migrations 0001–0026 in an embedded folder, lineage written as that release's sink wrote it
 * (the columns its runs table had), and one request of tenant acme naming the run, through the real sink.
 *
 * Expected, by hand: after 0027 the runs table holds one row, tenant '', the payload as written; the reader of
 * every tenant reads that lineage and lists the run with it and its 1 case; acme's reader lists the run with its 1
 * case and no lineage (null), and reads none; once acme records the run id (a later clock), the table holds 2 rows
 * (tenants '' and acme), acme reads its own, and the reader of every tenant still the old one: a record without a
 * tenant is read first by those readers (store/ports/run-reader.ts), so no tenant's record takes its place.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { ClickHouseMetricRollups } from "../../../store/clickhouse/metric-rollups.js";
import { ClickHouseSink } from "../../../store/clickhouse/clickhouse-sink.js";
import { runMigrations } from "../../../store/clickhouse/run-migrations.js";
import { plannedCaseResult } from "../../support/stored-requests.js";
import { queryRows, temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";
import { migrationsThrough } from "../../support/previous-release.js";

const PREVIOUS_RELEASE_LAST_MIGRATION = 26;
const RUN = "legacy-release-42";
const STARTED_AT_MS = Date.parse("2026-06-01T10:00:00.000Z");
const LEGACY_LINEAGE = {
  run_id: RUN,
  dataset_id: "refunds",
  dataset_version: "3",
  corpus_version: null,
  index_version: null,
  embedding_model: null,
  retriever_version: null,
  reranker_version: null,
  prompt_version: "legacy-prompt-7",
  generator_model: "legacy-model",
  application_version: null,
  started_at: new Date(STARTED_AT_MS).toISOString(),
  notes: "recorded before runs had a tenant",
  completion: { status: "complete", planned_cases: 2, stored_cases: 2 },
};

let folder: string;
let earlier: TemporaryStore;
let clock = Date.parse("2026-06-02T00:00:00.000Z");

before(async () => {
  folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-release-0026-migrations-"));
  await migrationsThrough(PREVIOUS_RELEASE_LAST_MIGRATION, folder);
  earlier = await temporaryStore({ migrate: false, store: { now: () => clock } });
  await runMigrations(earlier.connection, folder);
  // The earlier release's lineage sink: these columns, no tenant.
  await earlier.connection.client.insert({
    table: `${earlier.connection.database}.runs`,
    values: [{ run_id: RUN, dataset_id: "refunds", dataset_version: "3", started_at: LEGACY_LINEAGE.started_at, payload: JSON.stringify(LEGACY_LINEAGE), version: clock }],
    format: "JSONEachRow",
    clickhouse_settings: { date_time_input_format: "best_effort" },
  });
  // One request of tenant acme that names the run, through the real sink and the rollup refresh the runs list reads.
  const rollups = new ClickHouseMetricRollups(earlier.connection, { now: () => clock, notJudgedCount: false, failingRows: false });
  const sink = new ClickHouseSink(earlier.connection, { datasetOf: () => "", now: () => clock, rollups });
  const written = await sink.write([{ caseResult: plannedCaseResult({ caseResultId: "cr_acme_1", traceId: "e".padStart(32, "0"), runId: RUN, tenant: "acme", startedAtMs: STARTED_AT_MS + 60_000 }), evaluationResults: [] }]);
  assert.ok(written.ok, written.ok ? "" : written.error.message);
  await rollups.refresh();
});

after(async () => {
  await earlier?.cleanup();
  await rm(folder, { recursive: true, force: true });
});

describe("upgrading a store of the release before migration 0027 (runs without a tenant)", () => {
  test("keeps the lineage as a run without a tenant: readers of every tenant read it, the tenant whose requests name the run does not", async () => {
    const { applied } = await runMigrations(earlier.connection);
    // 0027 first; the migrations of later releases follow it.
    assert.equal(applied[0], "0027_runs_tenant");

    const rows = await queryRows<{ run_id: string; tenant_id: string; payload: string }>(earlier.connection, "SELECT run_id, tenant_id, payload FROM {{database}}.runs FINAL");
    assert.deepEqual(rows, [{ run_id: RUN, tenant_id: "", payload: JSON.stringify(LEGACY_LINEAGE) }]);
    const [table] = await queryRows<{ sorting_key: string }>(earlier.connection, "SELECT sorting_key FROM system.tables WHERE database = {database:String} AND name = 'runs'", { database: earlier.connection.database });
    assert.equal(table?.sorting_key, "run_id, tenant_id");

    const everyTenant = earlier.store.scoped("all");
    assert.deepEqual(await everyTenant.reader.readRun(RUN), LEGACY_LINEAGE);
    assert.deepEqual(await everyTenant.traces.listRuns(10), [{ runId: RUN, startedAt: LEGACY_LINEAGE.started_at, cases: 1, lineage: LEGACY_LINEAGE }]);

    const acme = earlier.store.scoped(["acme"]);
    assert.equal(await acme.reader.readRun(RUN), null);
    // Listed from acme's own request: its start (STARTED_AT_MS + 1 min) and 1 case, no lineage.
    assert.deepEqual(await acme.traces.listRuns(10), [{ runId: RUN, startedAt: new Date(STARTED_AT_MS + 60_000).toISOString(), cases: 1, lineage: null }]);
    // A scope that lists '' does not read it either: nothing says whose run it was.
    assert.equal(await earlier.store.scoped([""]).reader.readRun(RUN), null);
  });

  test("after the upgrade a tenant's record of the same run id is kept beside the old one", async () => {
    clock += 60_000;
    const own = await earlier.store.runs.record({ run_id: RUN, started_at: new Date(STARTED_AT_MS + 30_000).toISOString(), generator_model: "acme-model" }, "acme");
    assert.deepEqual(await earlier.store.scoped(["acme"]).reader.readRun(RUN), own);
    assert.equal(await earlier.store.scoped(["globex"]).reader.readRun(RUN), null);
    // The reader of every tenant reads the record without a tenant, though acme's was written a minute later.
    assert.deepEqual(await earlier.store.scoped("all").reader.readRun(RUN), LEGACY_LINEAGE);
    assert.deepEqual((await earlier.store.scoped("all").traces.listRuns(10)).map((run) => run.lineage), [LEGACY_LINEAGE]);
    const rows = await queryRows<{ tenant_id: string; payload: string }>(earlier.connection, "SELECT tenant_id, payload FROM {{database}}.runs FINAL ORDER BY tenant_id");
    assert.deepEqual(rows, [
      { tenant_id: "", payload: JSON.stringify(LEGACY_LINEAGE) },
      { tenant_id: "acme", payload: JSON.stringify(own) },
    ]);
  });
});
