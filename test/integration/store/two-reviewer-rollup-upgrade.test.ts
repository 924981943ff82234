/**
 * Upgrading a store of the release before migration 0024, whose request
 * rollups counted one reviewer's labels as the case's verdict: after the
 * upgrade, the rollups' verdict counts are the raw rows' under the new rule
 * (a review decides only with two agreeing reviewers, evaluators/reviewed-verdict.ts).
 *
 * The earlier store: migrations 0001–0023 in an embedded folder, four
 * requests in one minute written by the sink, one reviewer's labels (and one
 * case two reviewers agree on), and request_rollups as that release computed
 * them — with the rule it had, which migration 0014's backfill spells out (its
 * INSERT is run on these rows, as the release's refresh would have computed
 * them). Upgraded twice, as an operator and as a start do it: database
 * `ragscope` by `ragscope migrate` (bin/ragscope.js as a subprocess), database
 * `upgraded_on_start` by opening the store to write (openClickHouseStore, as
 * serve and eval start); both read back from the folder.
 *
 * The four requests, automatic verdict → labels → final verdict before and
 * after (worked by hand from the rule):
 *   one_pass_of_failed    failed          alice pass        passed (before) → failed
 *   one_fail_of_review    review_required alice fail        failed (before) → review_required
 *   two_agree_pass        failed          alice, bob pass   passed          → passed
 *   unlabelled            passed          —                 passed          → passed
 * so passed 3 → 2, failed 1 → 1, review_required 0 → 1; no error or timeout,
 * so task_passed = passed and task_judged = 4.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { newHumanLabel } from "../../../evaluators/judge/calibration/human-label.js";
import { openClickHouse, type ClickHouseConfig, type ClickHouseConnection } from "../../../store/clickhouse/clickhouse-connection.js";
import { ClickHouseHumanLabelStore } from "../../../store/clickhouse/clickhouse-human-label-store.js";
import { ClickHouseSink } from "../../../store/clickhouse/clickhouse-sink.js";
import { openClickHouseStore } from "../../../store/clickhouse/clickhouse-store.js";
import { readMigrations, runMigrations } from "../../../store/clickhouse/run-migrations.js";
import { buildCaseResult } from "../../support/case-results.js";
import { migrateEmbedded, migrationsThrough } from "../../support/previous-release.js";
import { reviewsPerCase } from "../../support/reviews-per-case.js";
import { queryRows } from "../../support/temporary-store.js";
import { minuteCounts } from "../../support/request-rollup-counts.js";

const PREVIOUS_RELEASE_LAST_MIGRATION = 23;
const MINUTE = "2026-07-08 09:30:00";
const STARTED_AT = "2026-07-08T09:30:05.000Z";
const LABELED_AT = "2026-07-08T10:00:00.000Z";
const COUNTED = ["all_requests", "passed_verdicts", "failed_verdicts", "review_required_verdicts", "task_passed", "task_judged"] as const;

const SEEDS = [
  { id: "cr_one_pass_of_failed", automatic: "failed" as const, labels: [["alice", "pass"]] },
  { id: "cr_one_fail_of_review", automatic: "review_required" as const, labels: [["alice", "fail"]] },
  { id: "cr_two_agree_pass", automatic: "failed" as const, labels: [["alice", "pass"], ["bob", "pass"]] },
  { id: "cr_unlabelled", automatic: "passed" as const, labels: [] },
];

const embedded = (dataPath: string, database: string): ClickHouseConfig => ({ url: null, username: "default", password: "", database, dataPath });

/** The minute's counts in request_rollups (the dashboards' reading) and over case_results FINAL with this release's rule. */
const counts = (connection: ClickHouseConnection) => minuteCounts(connection, MINUTE, COUNTED);
/** The same, on the earlier store: its reviews read per case, as its release read them (it had no request of a label). */
const earlierCounts = (connection: ClickHouseConnection) => minuteCounts(connection, MINUTE, COUNTED, reviewsPerCase);

async function repairsLeft(connection: ClickHouseConnection): Promise<number> {
  const [row] = await queryRows<{ left: string }>(connection, "SELECT count() AS left FROM {{database}}.rollup_repairs");
  return Number(row!.left);
}

/** The earlier release's store in `database`: its schema, the requests and labels, and its request rollups. */
async function earlierStore(dataPath: string, previousMigrations: string, database: string): Promise<ClickHouseConnection> {
  const connection = await openClickHouse(embedded(dataPath, database));
  await runMigrations(connection, previousMigrations);
  const written = await new ClickHouseSink(connection).write(
    SEEDS.map((seed, index) => ({ caseResult: { ...buildCaseResult({ caseId: `case_${index}`, output: "an answer" }), case_result_id: seed.id, quality_status: seed.automatic, started_at: STARTED_AT }, evaluationResults: [] })),
  );
  assert.ok(written.ok);
  // As the earlier release stored labels: its human_labels has no trace_id column (the insert's field is skipped), so
  // the labels name no request until migration 0037 binds them to the newest request started before they were made.
  await new ClickHouseHumanLabelStore(connection).save(
    SEEDS.flatMap((seed) => seed.labels.map(([reviewer, verdict]) => newHumanLabel({ case_result_id: seed.id, trace_id: "", metric: "faithfulness", labeler_id: reviewer!, verdict: verdict as "pass" | "fail", labeled_at: LABELED_AT }))),
  );
  // The earlier release's rollup of these requests: migration 0014's backfill, the rule of one reviewer deciding.
  const requestRollups = (await readMigrations(previousMigrations)).find((migration) => migration.version === 14)!;
  const backfill = requestRollups.statements.find((statement) => statement.startsWith("INSERT INTO {{database}}.request_rollups"))!;
  await connection.client.command({ query: backfill.replaceAll("{{database}}", database) });
  return connection;
}

describe("upgrading a store whose request rollups counted one reviewer's verdict", () => {
  let folder: string;
  let dataDir: string;
  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-two-reviewer-upgrade-"));
    dataDir = path.join(folder, "store");
    const previous = await migrationsThrough(PREVIOUS_RELEASE_LAST_MIGRATION, path.join(folder, "previous-migrations"));
    const connections = [await earlierStore(dataDir, previous, "ragscope"), await earlierStore(dataDir, previous, "upgraded_on_start")];
    for (const connection of connections) {
      // The earlier release's counts: one reviewer's pass and fail counted as the cases' verdicts.
      const { rolledUp } = await earlierCounts(connection);
      assert.deepEqual(rolledUp, { all_requests: 4, passed_verdicts: 3, failed_verdicts: 1, review_required_verdicts: 0, task_passed: 3, task_judged: 4 });
      await connection.close();
    }
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test("ragscope migrate and a writing start recompute the labelled minutes: the rollups count this release's verdicts", async () => {
    const migrated = migrateEmbedded(dataDir, folder);
    assert.equal(migrated.status, 0, migrated.stdout + migrated.stderr);
    assert.match(migrated.stdout, /applied 0024_two_reviewer_verdicts/);
    assert.match(migrated.stdout, /applied 0037_labels_of_the_request_reviewed/);
    assert.match(migrated.stdout, /recomputed the dashboards' rollups of 1 minute\(s\) × tenant × service \(a human label counts toward the review of the request reviewed only \(migration 0037\); a review needs two agreeing reviewers \(migration 0024\); root causes reviewers agree on are counted in the root-cause rollups \(migration 0031\)\)/);

    // The other database as serve and eval open it: migrations, then the repair, before anything is written.
    const started = await openClickHouseStore(embedded(dataDir, "upgraded_on_start"));
    const read = await openClickHouse(embedded(dataDir, "ragscope"));
    try {
      // Each label made after its case's one request started is bound to it (migration 0037).
      const bound = await queryRows<{ trace_id: string }>(read, "SELECT DISTINCT trace_id FROM {{database}}.human_labels FINAL");
      assert.deepEqual(bound.map((row) => row.trace_id), [buildCaseResult().trace_id], "the labels name the request reviewed");
      for (const connection of [read, started.connection]) {
        const { rolledUp, raw } = await counts(connection);
        assert.deepEqual(raw, { all_requests: 4, passed_verdicts: 2, failed_verdicts: 1, review_required_verdicts: 1, task_passed: 2, task_judged: 4 }, connection.database);
        assert.deepEqual(rolledUp, raw, `${connection.database}: the rollups count what the rows say`);
        assert.equal(await repairsLeft(connection), 0, `${connection.database}: the repair is done and forgotten`);
      }
    } finally {
      await read.close();
      await started.close();
    }
  });
});
