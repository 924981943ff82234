/**
 * Upgrading a store of the release before migration 0031, whose root-cause
 * rollups counted the root-cause evaluator's labels whatever the reviewers
 * decided: after the upgrade, the rollups count each failing request under
 * the cause two agreeing reviewers chose (dashboards/source/root-causes.ts).
 *
 * The earlier store: the migrations up to 0030 in an embedded folder, two
 * requests in one minute written by the sink, and root_cause_rollups as that
 * release left them. Its rollup of a minute was computed when the requests
 * were written, before anyone reviewed them, and a review did not change
 * it: so the earlier rows are this release's statement run before the
 * labels exist (nobody had reviewed; then both definitions agree). Then two
 * reviewers' labels, saved as the web UI saves them, and `ragscope migrate`
 * (bin/ragscope.js as a subprocess); read back from the folder.
 *
 * The two requests, worked by hand:
 *   left_to_review  review_required, no evaluator cause; alice and bob fail it, both HALLUCINATION
 *   retrieval_miss  failed, evaluator RETRIEVAL_MISS;     alice and bob fail it, both HALLUCINATION
 * before: RETRIEVAL_MISS 1 (the first counted nowhere); after: HALLUCINATION 2, no RETRIEVAL_MISS.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { EvaluationResult } from "../../../contracts/evaluation-result.js";
import { rootCauseRollupColumns, rootCauseRollupSelect } from "../../../dashboards/source/root-causes.js";
import { newHumanLabel } from "../../../evaluators/judge/calibration/human-label.js";
import { openClickHouse, quoteIdentifier, type ClickHouseConfig, type ClickHouseConnection } from "../../../store/clickhouse/clickhouse-connection.js";
import { ClickHouseHumanLabelStore } from "../../../store/clickhouse/clickhouse-human-label-store.js";
import { ClickHouseSink } from "../../../store/clickhouse/clickhouse-sink.js";
import { runMigrations } from "../../../store/clickhouse/run-migrations.js";
import { buildCaseResult } from "../../support/case-results.js";
import { migrateEmbedded, migrationsThrough } from "../../support/previous-release.js";
import { reviewsPerCase } from "../../support/reviews-per-case.js";
import { queryRows } from "../../support/temporary-store.js";
import { rootCauseRollupCounts } from "../../support/root-cause-rollup-counts.js";
import { rootCauseResult } from "../../support/root-cause-result.js";

const PREVIOUS_RELEASE_LAST_MIGRATION = 30;
const MINUTE = "2026-07-08 09:30:00";
const STARTED_AT = "2026-07-08T09:30:05.000Z";
const LABELED_AT = "2026-07-08T10:00:00.000Z";
const IN_MINUTE = `toStartOfMinute(started_at) = toDateTime('${MINUTE}', 'UTC')`;

const embedded = (dataPath: string, database: string): ClickHouseConfig => ({ url: null, username: "default", password: "", database, dataPath });

const evaluatorCause = (caseResultId: string, label: string): EvaluationResult => rootCauseResult(caseResultId, label, STARTED_AT);

const rolledUp = (connection: ClickHouseConnection) => rootCauseRollupCounts(connection, MINUTE);

describe("upgrading a store whose root-cause rollups ignored the causes reviewers agreed on", () => {
  let folder: string;
  let dataDir: string;
  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-reviewed-root-cause-upgrade-"));
    dataDir = path.join(folder, "store");
    const previous = await migrationsThrough(PREVIOUS_RELEASE_LAST_MIGRATION, path.join(folder, "previous-migrations"));
    const connection = await openClickHouse(embedded(dataDir, "ragscope"));
    try {
      await runMigrations(connection, previous);
      const request = (id: string, index: number, quality: "review_required" | "failed") => ({ ...buildCaseResult({ caseId: `case_${index}`, output: "an answer" }), case_result_id: id, quality_status: quality, started_at: STARTED_AT });
      const written = await new ClickHouseSink(connection).write([
        { caseResult: request("cr_left_to_review", 0, "review_required"), evaluationResults: [] },
        { caseResult: request("cr_retrieval_miss", 1, "failed"), evaluationResults: [evaluatorCause("cr_retrieval_miss", "RETRIEVAL_MISS")] },
      ]);
      assert.ok(written.ok);
      // The rollup as it stood: computed before anyone reviewed, by that release's statement (reviews read per case).
      const database = quoteIdentifier(connection.database);
      await connection.client.command({ query: `INSERT INTO ${database}.root_cause_rollups (${rootCauseRollupColumns(false).join(", ")}) ${reviewsPerCase(rootCauseRollupSelect(database, IN_MINUTE, IN_MINUTE, false))}`, query_params: { version: 1 } });
      assert.deepEqual(await rolledUp(connection), { RETRIEVAL_MISS: 1 });
      // Two reviewers fail both and agree on the cause, as the review form saves them: a verdict label and a root-cause label each.
      // As the earlier release stored labels: its human_labels has no trace_id column (the insert's field is skipped), so
      // the labels name no request until migration 0037 binds them to the newest request started before they were made.
      await new ClickHouseHumanLabelStore(connection).save(
        ["cr_left_to_review", "cr_retrieval_miss"].flatMap((id) =>
          ["alice", "bob"].flatMap((reviewer) => [
            newHumanLabel({ case_result_id: id, trace_id: "", metric: "faithfulness", labeler_id: reviewer, verdict: "fail", labeled_at: LABELED_AT }),
            newHumanLabel({ case_result_id: id, trace_id: "", metric: "root_cause", labeler_id: reviewer, verdict: "fail", note: "HALLUCINATION", labeled_at: LABELED_AT }),
          ]),
        ),
      );
      assert.deepEqual(await rolledUp(connection), { RETRIEVAL_MISS: 1 }, "the earlier release's rollups after the reviews");
    } finally {
      await connection.close();
    }
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test("ragscope migrate recomputes the minutes of reviewed requests: the rollups count them under the reviewers' cause", async () => {
    const migrated = migrateEmbedded(dataDir, folder);
    assert.equal(migrated.status, 0, migrated.stdout + migrated.stderr);
    assert.match(migrated.stdout, /applied 0031_reviewed_root_causes/);
    assert.match(migrated.stdout, /applied 0037_labels_of_the_request_reviewed/);
    assert.match(migrated.stdout, /recomputed the dashboards' rollups of 1 minute\(s\) × tenant × service \(a human label counts toward the review of the request reviewed only \(migration 0037\); root causes reviewers agree on are counted in the root-cause rollups \(migration 0031\)\)/);

    const read = await openClickHouse(embedded(dataDir, "ragscope"));
    try {
      // Each label made after its case's one request started is bound to it (migration 0037).
      const bound = await queryRows<{ trace_id: string }>(read, "SELECT DISTINCT trace_id FROM {{database}}.human_labels FINAL");
      assert.deepEqual(bound.map((row) => row.trace_id), [buildCaseResult().trace_id], "the labels name the request reviewed");
      assert.deepEqual(await rolledUp(read), { HALLUCINATION: 2 });
      const [left] = await queryRows<{ left: string }>(read, "SELECT count() AS left FROM {{database}}.rollup_repairs");
      assert.equal(Number(left!.left), 0, "the repair is done and forgotten");
    } finally {
      await read.close();
    }
  });
});
