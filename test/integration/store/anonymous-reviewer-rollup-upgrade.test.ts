/**
 * Upgrading a store of the release before migration 0036, whose rollups
 * counted the anonymous reviewer of the web UI without tokens ("local") as one
 * of the two agreeing reviewers: after the upgrade, the rollups of the minutes
 * the anonymous reviewer labelled are recomputed by this release's rule — its
 * labels count toward no review (evaluators/reviewed-verdict.ts
 * ANONYMOUS_REVIEWER).
 *
 * The earlier store: the migrations up to 0035 in an embedded folder, one
 * request written by the sink, labels as the web UI saves them, and
 * root_cause_rollups as that release left them, written by hand (that
 * release's refresh is not this release's statement). Then `ragscope migrate`
 * (bin/ragscope.js as a subprocess); read back from the folder.
 *
 * The request, worked by hand:
 *   reviewed  review_required, no evaluator cause; carol (token) and local (no token) fail it, both HALLUCINATION
 * before: failing under HALLUCINATION 1 (carol and local counted as two agreeing reviewers);
 * after: nothing failing (one reviewer who counts: the review is pending, the verdict stays review_required).
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { rootCauseRollupColumns } from "../../../dashboards/source/root-causes.js";
import { newHumanLabel } from "../../../evaluators/judge/calibration/human-label.js";
import { openClickHouse, quoteIdentifier, type ClickHouseConfig, type ClickHouseConnection } from "../../../store/clickhouse/clickhouse-connection.js";
import { ClickHouseHumanLabelStore } from "../../../store/clickhouse/clickhouse-human-label-store.js";
import { ClickHouseSink } from "../../../store/clickhouse/clickhouse-sink.js";
import { runMigrations } from "../../../store/clickhouse/run-migrations.js";
import { buildCaseResult } from "../../support/case-results.js";
import { migrateEmbedded, migrationsThrough } from "../../support/previous-release.js";
import { queryRows } from "../../support/temporary-store.js";
import { rootCauseRollupCounts } from "../../support/root-cause-rollup-counts.js";

const PREVIOUS_RELEASE_LAST_MIGRATION = 35;
const MINUTE = "2026-07-08 09:30:00";
const STARTED_AT = "2026-07-08T09:30:05.000Z";
const LABELED_AT = "2026-07-08T10:00:00.000Z";

const embedded = (dataPath: string, database: string): ClickHouseConfig => ({ url: null, username: "default", password: "", database, dataPath });

const rolledUp = (connection: ClickHouseConnection) => rootCauseRollupCounts(connection, MINUTE);

describe("upgrading a store whose rollups counted the anonymous reviewer as a second reviewer", () => {
  let folder: string;
  let dataDir: string;
  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-anonymous-reviewer-upgrade-"));
    dataDir = path.join(folder, "store");
    const previous = await migrationsThrough(PREVIOUS_RELEASE_LAST_MIGRATION, path.join(folder, "previous-migrations"));
    const connection = await openClickHouse(embedded(dataDir, "ragscope"));
    try {
      await runMigrations(connection, previous);
      const written = await new ClickHouseSink(connection).write([{ caseResult: { ...buildCaseResult({ caseId: "case_0", output: "an answer" }), case_result_id: "cr_reviewed", quality_status: "review_required", started_at: STARTED_AT }, evaluationResults: [] }]);
      assert.ok(written.ok);
      // carol with a token, then the same person (or anyone) as "local" without one: a verdict label and a root-cause label each.
      // As the earlier release stored labels: its human_labels has no trace_id column (the insert's field is skipped), so
      // the labels name no request until migration 0037 binds them to the newest request started before they were made.
      await new ClickHouseHumanLabelStore(connection).save(
        ["carol", "local"].flatMap((reviewer) => [
          newHumanLabel({ case_result_id: "cr_reviewed", trace_id: "", metric: "faithfulness", labeler_id: reviewer, verdict: "fail", labeled_at: LABELED_AT }),
          newHumanLabel({ case_result_id: "cr_reviewed", trace_id: "", metric: "root_cause", labeler_id: reviewer, verdict: "fail", note: "HALLUCINATION", labeled_at: LABELED_AT }),
        ]),
      );
      // The rollup as the earlier release's refresh left it after those labels: one failing request under HALLUCINATION.
      const database = quoteIdentifier(connection.database);
      await connection.client.command({
        query: `INSERT INTO ${database}.root_cause_rollups (${rootCauseRollupColumns(false).join(", ")}) SELECT toStartOfMinute(started_at), tenant_id, service_name, dataset_id, run_id, 'HALLUCINATION', 1, 1 FROM ${database}.case_results WHERE case_result_id = 'cr_reviewed'`,
      });
      assert.deepEqual(await rolledUp(connection), { HALLUCINATION: 1 });
    } finally {
      await connection.close();
    }
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test("ragscope migrate recomputes the minutes the anonymous reviewer labelled: the request is no longer counted failing", async () => {
    const migrated = migrateEmbedded(dataDir, folder);
    assert.equal(migrated.status, 0, migrated.stdout + migrated.stderr);
    assert.match(migrated.stdout, /applied 0036_anonymous_reviewer_not_counted/);
    assert.match(migrated.stdout, /applied 0037_labels_of_the_request_reviewed/);
    assert.match(migrated.stdout, /recomputed the dashboards' rollups of 1 minute\(s\) × tenant × service \(a human label counts toward the review of the request reviewed only \(migration 0037\); the anonymous reviewer \(the UI without tokens\) counts toward no review \(migration 0036\)\)/);

    const read = await openClickHouse(embedded(dataDir, "ragscope"));
    try {
      // Each label made after its case's one request started is bound to it (migration 0037).
      const bound = await queryRows<{ trace_id: string }>(read, "SELECT DISTINCT trace_id FROM {{database}}.human_labels FINAL");
      assert.deepEqual(bound.map((row) => row.trace_id), [buildCaseResult().trace_id], "the labels name the request reviewed");
      assert.deepEqual(await rolledUp(read), {});
      const [left] = await queryRows<{ left: string }>(read, "SELECT count() AS left FROM {{database}}.rollup_repairs");
      assert.equal(Number(left!.left), 0, "the repair is done and forgotten");
    } finally {
      await read.close();
    }
  });
});
