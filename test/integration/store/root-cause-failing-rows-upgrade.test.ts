/**
 * Upgrading a store of the release before migration 0038, whose root-cause rollups counted a request stored twice
 * twice: after `ragscope migrate` (the built CLI, embedded chDB), root_cause_rollups count it once, under its complete
 * row's tenant, with its failing rows (failing_rows), and every other count is unchanged.
 *
 * The store holds the migrations through 0037 and, at 09:30, written by the sink and rolled up by that release's
 * refresh (no failing_rows): request "twice", failing, the root-cause evaluator's RETRIEVAL_MISS, first as its partial
 * trace's result (tenant '') — refreshed — then complete (tenant t1) — refreshed; request "once", failing,
 * HALLUCINATION, stored once under t1. That release's first refresh counted "twice" under tenant '' and its second did
 * not recompute tenant '': that row is written by hand, as the 0032 upgrade test writes its earlier release's row. Worked by hand: before, RETRIEVAL_MISS 1 under '' and 1 under t1, HALLUCINATION 1
 * under t1; after, RETRIEVAL_MISS 1 under t1 with 2 failing rows (its partial and complete rows both failed, each
 * counted under its own tenant), HALLUCINATION 1 under t1 with 1 failing row (the column's default for a row stored
 * before).
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { CaseEvaluation } from "../../../evaluators/evaluate-case-result.js";
import { openClickHouse, quoteIdentifier, type ClickHouseConfig, type ClickHouseConnection } from "../../../store/clickhouse/clickhouse-connection.js";
import { ClickHouseMetricRollups } from "../../../store/clickhouse/metric-rollups.js";
import { ClickHouseSink } from "../../../store/clickhouse/clickhouse-sink.js";
import { runMigrations } from "../../../store/clickhouse/run-migrations.js";
import { evaluatedRequest } from "../../support/evaluated-request.js";
import { migrateEmbedded, migrationsThrough } from "../../support/previous-release.js";
import { rootCauseResult } from "../../support/root-cause-result.js";
import { queryRows } from "../../support/temporary-store.js";

const PREVIOUS_RELEASE_LAST_MIGRATION = 37;
const STARTED_AT = "2026-07-08T09:30:05.000Z";
const WRITTEN_AT = Date.parse("2026-07-08T10:00:00.000Z");

const embedded = (dataPath: string, database: string): ClickHouseConfig => ({ url: null, username: "default", password: "", database, dataPath });

function failing(caseResultId: string, tenant: string | null, cause: string): CaseEvaluation {
  const evaluation = evaluatedRequest({ runId: "run_upgrade", caseResultId, caseId: `case_${caseResultId}`, traceId: caseResultId.padStart(32, "a"), startedAt: STARTED_AT, service: "support-bot", tenant, partial: tenant === null, output: "an answer" });
  return {
    ...evaluation,
    caseResult: { ...evaluation.caseResult, quality_status: "failed" },
    evaluationResults: [...evaluation.evaluationResults.filter((result) => result.evaluator_id !== "root_cause"), rootCauseResult(caseResultId, cause, STARTED_AT)],
  };
}

/** The rollup rows with a count: tenant, root cause, failing requests. */
async function rolledUp(connection: ClickHouseConnection): Promise<[string, string, number][]> {
  const rows = await queryRows<{ tenant_id: string; root_cause: string; failing: string }>(
    connection,
    "SELECT tenant_id, root_cause, sum(failing_requests) AS failing FROM {{database}}.root_cause_rollups FINAL GROUP BY tenant_id, root_cause HAVING failing > 0 ORDER BY root_cause, tenant_id",
  );
  return rows.map((row) => [row.tenant_id, row.root_cause, Number(row.failing)]);
}

describe("upgrading a store whose root-cause rollups counted a request stored twice twice", () => {
  let folder: string;
  let dataDir: string;
  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-root-cause-failing-rows-upgrade-"));
    dataDir = path.join(folder, "store");
    const previous = await migrationsThrough(PREVIOUS_RELEASE_LAST_MIGRATION, path.join(folder, "previous-migrations"));
    const connection = await openClickHouse(embedded(dataDir, "ragscope"));
    try {
      await runMigrations(connection, previous);
      let clock = WRITTEN_AT;
      // The earlier release's refresh writes no failing_rows; this release's recomputes the partial row's group with
      // the complete one's, so the count that release's refresh of the partial row's group left is written by hand below.
      const rollups = new ClickHouseMetricRollups(connection, { now: () => clock, refreshIntervalMs: 24 * 60 * 60_000, failingRows: false });
      const sink = new ClickHouseSink(connection, { now: () => clock, rollups });
      for (const batch of [[failing("twice", null, "RETRIEVAL_MISS"), failing("once", "t1", "HALLUCINATION")], [failing("twice", "t1", "RETRIEVAL_MISS")]]) {
        const written = await sink.write(batch);
        assert.ok(written.ok, written.ok ? "" : JSON.stringify(written.error));
        await rollups.refresh();
        clock += 1_000;
      }
      await rollups.close();
      assert.equal(rollups.counters.failures, 0, rollups.counters.lastError);
      await connection.client.command({
        query: `INSERT INTO ${quoteIdentifier(connection.database)}.root_cause_rollups (minute, tenant_id, service_name, dataset_id, run_id, root_cause, failing_requests, version)
                SELECT toStartOfMinute(started_at), '', 'support-bot', dataset_id, run_id, 'RETRIEVAL_MISS', 1, {version:UInt64} FROM ${quoteIdentifier(connection.database)}.case_results WHERE case_result_id = 'twice' AND tenant_id = ''`,
        query_params: { version: WRITTEN_AT },
      });
      assert.deepEqual(await rolledUp(connection), [
        ["t1", "HALLUCINATION", 1],
        ["", "RETRIEVAL_MISS", 1],
        ["t1", "RETRIEVAL_MISS", 1],
      ]);
    } finally {
      await connection.close();
    }
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test("ragscope migrate recomputes the request's minute: counted once, under its complete row, every other count as it was", async () => {
    const migrated = migrateEmbedded(dataDir, folder);
    assert.equal(migrated.status, 0, migrated.stdout + migrated.stderr);
    assert.match(migrated.stdout, /applied 0038_root_cause_failing_rows/);
    assert.match(migrated.stdout, /recomputed the dashboards' rollups of 2 minute\(s\) × tenant × service \(a request stored under two tenants or services is counted once in the root-cause rollups \(migration 0038\)\)/);

    const read = await openClickHouse(embedded(dataDir, "ragscope"));
    try {
      assert.deepEqual(await rolledUp(read), [
        ["t1", "HALLUCINATION", 1],
        ["t1", "RETRIEVAL_MISS", 1],
      ]);
      const rows = await queryRows<{ root_cause: string; failing_rows: string }>(read, "SELECT root_cause, sum(failing_rows) AS failing_rows FROM {{database}}.root_cause_rollups FINAL GROUP BY root_cause ORDER BY root_cause");
      assert.deepEqual(
        rows.map((row) => [row.root_cause, Number(row.failing_rows)]),
        [
          ["HALLUCINATION", 1],
          ["RETRIEVAL_MISS", 2],
        ],
      );
      const [left] = await queryRows<{ left: string }>(read, "SELECT count() AS left FROM {{database}}.rollup_repairs");
      assert.equal(Number(left!.left), 0, "the repair is done and forgotten");
    } finally {
      await read.close();
    }
  });
});
