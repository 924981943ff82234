/**
 * Upgrading a store of the release before migration 0026, whose request
 * rollups counted two reviewers' agreed pass of a request that did not
 * complete as a pass: after the upgrade, the rollups' verdict counts are the
 * raw rows' under the new rule (a review never passes a request that did not
 * complete, evaluators/reviewed-verdict.ts).
 *
 * The earlier store: the migrations before 0026 in an embedded folder, four
 * requests in one minute written by the sink, two reviewers' labels on each,
 * and request_rollups as that release computed them — its rule was this
 * release's without the exception for a request that did not complete, so its
 * rollup statement is this release's with that condition taken out. Upgraded
 * by `ragscope migrate` (bin/ragscope.js as a subprocess), read back from the
 * folder.
 *
 * The four requests, execution → automatic verdict → labels → final verdict
 * before and after (worked by hand from the rule):
 *   threw_agreed_pass     failed, system_error  failed  alice, bob pass  passed (before) → failed
 *   timed_out_agreed_pass failed, timeout       failed  alice, bob pass  passed (before) → failed
 *   threw_agreed_fail     failed, system_error  failed  alice, bob fail  failed          → failed
 *   completed_agreed_pass completed             failed  alice, bob pass  passed          → passed
 * so passed 3 → 1, failed 1 → 3. task_passed counts only a request that
 * completed (completed_agreed_pass: 1, before and after); errors 2 (the two
 * that threw), timeouts 1, task_judged 4.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { CaseResult } from "../../../contracts/case-result.js";
import { DID_NOT_COMPLETE, REQUEST_ROLLUP_GROUP, requestRollupCounts, requestRollupSelect } from "../../../dashboards/source/aggregate-metrics.js";
import { newHumanLabel } from "../../../evaluators/judge/calibration/human-label.js";
import { openClickHouse, quoteIdentifier, type ClickHouseConfig, type ClickHouseConnection } from "../../../store/clickhouse/clickhouse-connection.js";
import { ClickHouseHumanLabelStore } from "../../../store/clickhouse/clickhouse-human-label-store.js";
import { ClickHouseSink } from "../../../store/clickhouse/clickhouse-sink.js";
import { runMigrations } from "../../../store/clickhouse/run-migrations.js";
import { buildCaseResult } from "../../support/case-results.js";
import { migrateEmbedded, migrationsThrough } from "../../support/previous-release.js";
import { reviewsPerCase } from "../../support/reviews-per-case.js";
import { queryRows } from "../../support/temporary-store.js";
import { minuteCounts } from "../../support/request-rollup-counts.js";

const PREVIOUS_RELEASE_LAST_MIGRATION = 25;
const MINUTE = "2026-07-08 09:30:00";
const STARTED_AT = "2026-07-08T09:30:05.000Z";
const LABELED_AT = "2026-07-08T10:00:00.000Z";
const COUNTED = ["all_requests", "passed_verdicts", "failed_verdicts", "task_passed", "task_judged", "errors", "timeouts"] as const;

type Execution = Pick<CaseResult, "execution_status" | "execution_error">;
const threw: Execution = { execution_status: "failed", execution_error: { type: "system_error", message: "rerank service unavailable" } };
const timedOut: Execution = { execution_status: "failed", execution_error: { type: "timeout", message: "deadline passed" } };
const completed: Execution = { execution_status: "completed", execution_error: { type: "none", message: null } };

const SEEDS = [
  { id: "cr_threw_agreed_pass", execution: threw, verdict: "pass" as const },
  { id: "cr_timed_out_agreed_pass", execution: timedOut, verdict: "pass" as const },
  { id: "cr_threw_agreed_fail", execution: threw, verdict: "fail" as const },
  { id: "cr_completed_agreed_pass", execution: completed, verdict: "pass" as const },
];

const embedded = (dataPath: string, database: string): ClickHouseConfig => ({ url: null, username: "default", password: "", database, dataPath });

/** The minute's counts in request_rollups (the dashboards' reading) and over case_results FINAL with this release's rule. */
const counts = (connection: ClickHouseConnection) => minuteCounts(connection, MINUTE, COUNTED);
/** The same, on the earlier store: its reviews read per case, as its release read them (it had no request of a label). */
const earlierCounts = (connection: ClickHouseConnection) => minuteCounts(connection, MINUTE, COUNTED, reviewsPerCase);

describe("upgrading a store whose request rollups counted an agreed pass of a request that did not complete", () => {
  let folder: string;
  let dataDir: string;
  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-incomplete-review-upgrade-"));
    dataDir = path.join(folder, "store");
    const previous = await migrationsThrough(PREVIOUS_RELEASE_LAST_MIGRATION, path.join(folder, "previous-migrations"));
    const connection = await openClickHouse(embedded(dataDir, "ragscope"));
    try {
      await runMigrations(connection, previous);
      const written = await new ClickHouseSink(connection).write(
        SEEDS.map((seed, index) => ({ caseResult: { ...buildCaseResult({ caseId: `case_${index}`, output: "an answer" }), ...seed.execution, case_result_id: seed.id, quality_status: "failed" as const, started_at: STARTED_AT }, evaluationResults: [] })),
      );
      assert.ok(written.ok);
      // As the earlier release stored labels: its human_labels has no trace_id column (the insert's field is skipped), so
      // the labels name no request until migration 0037 binds them to the newest request started before they were made.
      await new ClickHouseHumanLabelStore(connection).save(
        SEEDS.flatMap((seed) => ["alice", "bob"].map((reviewer) => newHumanLabel({ case_result_id: seed.id, trace_id: "", metric: "faithfulness", labeler_id: reviewer, verdict: seed.verdict, labeled_at: LABELED_AT }))),
      );
      // The earlier release's rollup of these requests: this release's statement without the exception for a request
      // that did not complete (its rule: two reviewers who agree decide, whatever the request's execution).
      const database = quoteIdentifier(connection.database);
      const statement = requestRollupSelect(database, `toStartOfMinute(started_at) = toDateTime('${MINUTE}', 'UTC')`, false);
      // Its reviews read per case too (reviews-per-case.ts): its labels named no request.
      const earlierRule = reviewsPerCase(statement).replaceAll(` AND NOT ${DID_NOT_COMPLETE}`, "");
      assert.notEqual(earlierRule, statement, "the statement holds the exception this release added");
      const columns = ["minute", ...REQUEST_ROLLUP_GROUP, ...requestRollupCounts(false).map(([column]) => column), "rating_sum", "user_states", "version"].join(", ");
      await connection.client.command({ query: `INSERT INTO ${database}.request_rollups (${columns}) ${earlierRule}`, query_params: { version: 1 } });
      // The earlier release's counts: the two agreed passes of requests that did not complete counted as passes.
      const { rolledUp } = await earlierCounts(connection);
      assert.deepEqual(rolledUp, { all_requests: 4, passed_verdicts: 3, failed_verdicts: 1, task_passed: 1, task_judged: 4, errors: 2, timeouts: 1 });
    } finally {
      await connection.close();
    }
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test("ragscope migrate recomputes the minutes of labelled requests that did not complete: the rollups count them failed", async () => {
    const migrated = migrateEmbedded(dataDir, folder);
    assert.equal(migrated.status, 0, migrated.stdout + migrated.stderr);
    assert.match(migrated.stdout, /applied 0026_review_never_passes_incomplete/);
    assert.match(migrated.stdout, /applied 0037_labels_of_the_request_reviewed/);
    assert.match(migrated.stdout, /recomputed the dashboards' rollups of 1 minute\(s\) × tenant × service \(a human label counts toward the review of the request reviewed only \(migration 0037\); a review never passes a request that did not complete \(migration 0026\); root causes reviewers agree on are counted in the root-cause rollups \(migration 0031\)\)/);

    const read = await openClickHouse(embedded(dataDir, "ragscope"));
    try {
      // Each label made after its case's one request started is bound to it (migration 0037).
      const bound = await queryRows<{ trace_id: string }>(read, "SELECT DISTINCT trace_id FROM {{database}}.human_labels FINAL");
      assert.deepEqual(bound.map((row) => row.trace_id), [buildCaseResult().trace_id], "the labels name the request reviewed");
      const { rolledUp, raw } = await counts(read);
      assert.deepEqual(raw, { all_requests: 4, passed_verdicts: 1, failed_verdicts: 3, task_passed: 1, task_judged: 4, errors: 2, timeouts: 1 });
      assert.deepEqual(rolledUp, raw, "the rollups count what the rows say");
      const [left] = await queryRows<{ left: string }>(read, "SELECT count() AS left FROM {{database}}.rollup_repairs");
      assert.equal(Number(left!.left), 0, "the repair is done and forgotten");
    } finally {
      await read.close();
    }
  });
});
