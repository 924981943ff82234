/**
 * Upgrading a store of the release before migration 0033, whose request rollups had no count of the complete
 * requests task success leaves out ("Task success · not judged" was complete_requests - task_judged, one short for
 * each partial trace with a verdict): after the upgrade, request_rollups.task_not_judged is what the rows say.
 *
 * The earlier store: the migrations through 0032 in an embedded folder, requests in two minutes written by the sink,
 * and request_rollups refreshed as that release refreshed them (its statement: this release's without the new count).
 * Upgraded by `ragscope migrate` (bin/ragscope.js as a subprocess), read back from the folder.
 *
 * Worked by hand:
 *   minute 09:30  cr_plain_unjudged  complete, unjudged     not judged
 *                 cr_plain_passed    complete, passed       judged
 *                 cr_plain_untouched complete, not evaluated not judged
 *     → task_not_judged 2 (= complete 3 - judged 1: the migration's copy of the row is exact)
 *   minute 09:31  cr_root_lost_failed partial trace, failed  judged (its root span never arrived)
 *                 cr_late_unjudged    complete, unjudged     not judged
 *                 cr_late_thumbs      partial, thumbs only   neither
 *     → task_not_judged 1, where complete 1 - judged 1 = 0: the minute has partial results, so the migration notes
 *       it and `ragscope migrate` recomputes it through the rollup refresh (1 minute × tenant × service).
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { CaseResult } from "../../../contracts/case-result.js";
import { openClickHouse, type ClickHouseConfig } from "../../../store/clickhouse/clickhouse-connection.js";
import { ClickHouseMetricRollups } from "../../../store/clickhouse/metric-rollups.js";
import { ClickHouseSink } from "../../../store/clickhouse/clickhouse-sink.js";
import { runMigrations } from "../../../store/clickhouse/run-migrations.js";
import { migrateEmbedded, migrationsThrough } from "../../support/previous-release.js";
import { connectionReadingReviewsPerCase } from "../../support/reviews-per-case.js";
import { minuteCounts } from "../../support/request-rollup-counts.js";
import { plannedCaseResult } from "../../support/stored-requests.js";
import { queryRows } from "../../support/temporary-store.js";

const PREVIOUS_RELEASE_LAST_MIGRATION = 32;
const PLAIN_MINUTE = "2026-07-08 09:30:00";
const PARTIAL_MINUTE = "2026-07-08 09:31:00";
const PLAIN_AT = Date.UTC(2026, 6, 8, 9, 30, 5);
const PARTIAL_AT = Date.UTC(2026, 6, 8, 9, 31, 5);
const WRITTEN_AT = Date.UTC(2026, 6, 8, 10, 0);

const embedded = (dataPath: string): ClickHouseConfig => ({ url: null, username: "default", password: "", database: "ragscope", dataPath });
const partial = (result: CaseResult): CaseResult => ({ ...result, rag_observation: { ...result.rag_observation, partial_trace: true } });
/** A trace id of its own for each result: its id's first 16 bytes, in hex. */
const traceOf = (id: string): string => Buffer.from(id).toString("hex").padEnd(32, "0").slice(0, 32);
const request = (id: string, startedAtMs: number, quality_status: CaseResult["quality_status"], feedback: { kind: string; recorded_at: string }[] = []): CaseResult => ({
  ...plannedCaseResult({ caseResultId: id, traceId: traceOf(id), startedAtMs, feedback }),
  quality_status,
});

const RESULTS: CaseResult[] = [
  request("cr_plain_unjudged", PLAIN_AT, "unjudged"),
  request("cr_plain_passed", PLAIN_AT, "passed"),
  request("cr_plain_untouched", PLAIN_AT, "not_evaluated"),
  partial(request("cr_root_lost_failed", PARTIAL_AT, "failed")),
  request("cr_late_unjudged", PARTIAL_AT, "unjudged"),
  partial({ ...request("cr_late_thumbs", PARTIAL_AT, "not_evaluated", [{ kind: "thumbs_down", recorded_at: new Date(PARTIAL_AT + 60_000).toISOString() }]), output: null }),
];

const COUNTED = ["complete_requests", "task_judged", "task_not_judged"] as const;

describe("upgrading a store whose request rollups had no count of the requests task success leaves out", () => {
  let folder: string;
  let dataDir: string;
  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-not-judged-upgrade-"));
    dataDir = path.join(folder, "store");
    const previous = await migrationsThrough(PREVIOUS_RELEASE_LAST_MIGRATION, path.join(folder, "previous-migrations"));
    const connection = await openClickHouse(embedded(dataDir));
    try {
      await runMigrations(connection, previous);
      // The earlier release's sink and refresh: its request rollups had no task_not_judged column to write, and its
      // statements read the reviews per case (its labels named no request).
      const rollups = new ClickHouseMetricRollups(connectionReadingReviewsPerCase(connection), { now: () => WRITTEN_AT, notJudgedCount: false, failingRows: false });
      const written = await new ClickHouseSink(connection, { datasetOf: () => "", now: () => WRITTEN_AT, rollups }).write(RESULTS.map((caseResult) => ({ caseResult, evaluationResults: [] })));
      assert.ok(written.ok, written.ok ? "" : written.error.message);
      await rollups.refresh();
      assert.equal(rollups.counters.failures, 0, rollups.counters.lastError);
      const [columns] = await queryRows<{ present: string }>(connection, "SELECT count() AS present FROM system.columns WHERE database = '{{database}}' AND table = 'request_rollups' AND name = 'task_not_judged'");
      assert.equal(Number(columns!.present), 0, "the earlier release's request_rollups have no such column");
    } finally {
      await connection.close();
    }
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test("ragscope migrate adds the count: copied where the difference is exact, recomputed in a minute with partial results", async () => {
    const migrated = migrateEmbedded(dataDir, folder);
    assert.equal(migrated.status, 0, migrated.stdout + migrated.stderr);
    assert.match(migrated.stdout, /applied 0033_task_not_judged_count/);
    assert.match(migrated.stdout, /recomputed the dashboards' rollups of 1 minute\(s\) × tenant × service \(task success counts complete requests without a verdict as not judged \(migration 0033\)\)/);

    const read = await openClickHouse(embedded(dataDir));
    try {
      const plain = await minuteCounts(read, PLAIN_MINUTE, COUNTED);
      assert.deepEqual(plain.raw, { complete_requests: 3, task_judged: 1, task_not_judged: 2 });
      assert.deepEqual(plain.rolledUp, plain.raw, "the copied row counts what the rows say");
      const withPartials = await minuteCounts(read, PARTIAL_MINUTE, COUNTED);
      assert.deepEqual(withPartials.raw, { complete_requests: 1, task_judged: 1, task_not_judged: 1 });
      assert.deepEqual(withPartials.rolledUp, withPartials.raw, "the recomputed row counts what the rows say");
      const [left] = await queryRows<{ left: string }>(read, "SELECT count() AS left FROM {{database}}.rollup_repairs");
      assert.equal(Number(left!.left), 0, "the repair is done and forgotten");
    } finally {
      await read.close();
    }
  });
});
