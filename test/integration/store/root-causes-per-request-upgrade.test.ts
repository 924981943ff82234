/**
 * Upgrading a store of the release before migration 0032, whose root-cause rollups counted a case sent again once
 * when one refresh recomputed both of its requests' minutes: after `ragscope migrate` (the built CLI, embedded chDB),
 * root_cause_rollups count each failing request under its own minute and service
 * (dashboards/source/root-causes.ts rootCauseRollupSelect).
 *
 * The store holds the migrations through 0031 and, written by the sink, case "again" of a run sent twice: at
 * 23:59:30 from support-bot and, the next morning at 09:30:05, from support-bot-v2 (another day, trace and service,
 * one case_result_id), both failed, the root-cause evaluator's CITATION_ERROR written with each. The earlier release
 * grouped the refreshed rows by case_result_id: one row at the first start's minute (23:59) under the newest row's
 * service (support-bot-v2), which is the row written here as that release left it. Worked by hand after the
 * upgrade: 23:59 support-bot CITATION_ERROR 1 and 09:30 support-bot-v2 CITATION_ERROR 1; the row at 23:59 under
 * support-bot-v2, which sent nothing then, is gone (the two minutes are hours apart, so the refresh recomputes them in
 * statements of their own: the migration notes each minute with every service of the case).
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { CaseResult } from "../../../contracts/case-result.js";
import type { EvaluationResult } from "../../../contracts/evaluation-result.js";
import { openClickHouse, quoteIdentifier, type ClickHouseConfig, type ClickHouseConnection } from "../../../store/clickhouse/clickhouse-connection.js";
import { ClickHouseSink } from "../../../store/clickhouse/clickhouse-sink.js";
import { runMigrations } from "../../../store/clickhouse/run-migrations.js";
import { buildCaseResult } from "../../support/case-results.js";
import { rootCauseResult } from "../../support/root-cause-result.js";
import { migrateEmbedded, migrationsThrough } from "../../support/previous-release.js";
import { queryRows } from "../../support/temporary-store.js";

const PREVIOUS_RELEASE_LAST_MIGRATION = 31;
const FIRST = "2026-07-07T23:59:30.000Z";
const AGAIN = "2026-07-08T09:30:05.000Z";

const embedded = (dataPath: string, database: string): ClickHouseConfig => ({ url: null, username: "default", password: "", database, dataPath });

function failedRequest(traceId: string, service: string, startedAt: string): CaseResult {
  const base = buildCaseResult({ caseId: "case_again", output: "an answer" });
  return { ...base, case_result_id: "again", trace_id: traceId, quality_status: "failed", started_at: startedAt, rag_observation: { ...base.rag_observation, service_name: service, tenant_id: null } };
}

const evaluatorCause = (startedAt: string): EvaluationResult => rootCauseResult("again", "CITATION_ERROR", startedAt);

/** The rollup rows with a count: minute, service, root cause, failing requests. */
async function rolledUp(connection: ClickHouseConnection): Promise<[string, string, string, number][]> {
  const rows = await queryRows<{ minute: string; service_name: string; root_cause: string; failing: string }>(
    connection,
    "SELECT toString(minute) AS minute, service_name, root_cause, sum(failing_requests) AS failing FROM {{database}}.root_cause_rollups FINAL GROUP BY minute, service_name, root_cause HAVING failing > 0 ORDER BY minute, service_name, root_cause",
  );
  return rows.map((row) => [row.minute, row.service_name, row.root_cause, Number(row.failing)]);
}

describe("upgrading a store whose root-cause rollups counted a case sent again once", () => {
  let folder: string;
  let dataDir: string;
  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-root-causes-per-request-upgrade-"));
    dataDir = path.join(folder, "store");
    const previous = await migrationsThrough(PREVIOUS_RELEASE_LAST_MIGRATION, path.join(folder, "previous-migrations"));
    const connection = await openClickHouse(embedded(dataDir, "ragscope"));
    try {
      await runMigrations(connection, previous);
      const written = await new ClickHouseSink(connection).write([
        { caseResult: failedRequest("a".repeat(32), "support-bot", FIRST), evaluationResults: [evaluatorCause(FIRST)] },
        { caseResult: failedRequest("b".repeat(32), "support-bot-v2", AGAIN), evaluationResults: [evaluatorCause(AGAIN)] },
      ]);
      assert.ok(written.ok);
      // The rollup as the earlier release's refresh of both minutes left it (see above).
      const database = quoteIdentifier(connection.database);
      await connection.client.command({
        query: `INSERT INTO ${database}.root_cause_rollups (minute, tenant_id, service_name, dataset_id, run_id, root_cause, failing_requests, version)
                SELECT toDateTime('2026-07-07 23:59:00', 'UTC'), '', 'support-bot-v2', argMax(dataset_id, version), argMax(run_id, version), 'CITATION_ERROR', 1, 1 FROM ${database}.case_results WHERE case_result_id = 'again'`,
      });
      assert.deepEqual(await rolledUp(connection), [["2026-07-07 23:59:00", "support-bot-v2", "CITATION_ERROR", 1]]);
    } finally {
      await connection.close();
    }
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test("ragscope migrate recomputes the case's minutes: each request under its own minute and service", async () => {
    const migrated = migrateEmbedded(dataDir, folder);
    assert.equal(migrated.status, 0, migrated.stdout + migrated.stderr);
    assert.match(migrated.stdout, /applied 0032_root_causes_per_request/);
    assert.match(migrated.stdout, /recomputed the dashboards' rollups of 4 minute\(s\) × tenant × service \(each request of a case sent again is counted in the root-cause rollups \(migration 0032\)\)/);

    const read = await openClickHouse(embedded(dataDir, "ragscope"));
    try {
      assert.deepEqual(await rolledUp(read), [
        ["2026-07-07 23:59:00", "support-bot", "CITATION_ERROR", 1],
        ["2026-07-08 09:30:00", "support-bot-v2", "CITATION_ERROR", 1],
      ]);
      const [left] = await queryRows<{ left: string }>(read, "SELECT count() AS left FROM {{database}}.rollup_repairs");
      assert.equal(Number(left!.left), 0, "the repair is done and forgotten");
    } finally {
      await read.close();
    }
  });
});
