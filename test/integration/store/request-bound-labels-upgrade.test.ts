/**
 * Upgrading a store of the release before migration 0037, whose human labels named a case but not the request
 * reviewed: each stored label is bound to the newest request of its case started at or before it was made, and the
 * rollups of labelled cases' minutes are recomputed, so a case sent again after its review is no longer counted as
 * decided by the earlier answer's reviewers.
 *
 * The earlier store: the migrations up to 0036 in an embedded folder, requests written by the sink, labels inserted
 * with that release's columns (it had no trace_id). Then `ragscope migrate` (bin/ragscope.js as a subprocess), and
 * `ragscope gate` over the folder (which refuses a store with a migration not applied).
 *
 * The cases of run "upgrade-run", worked by hand (UTC):
 *   resent    request A 07-08 09:30 (trace …a1); alice and bob fail it at 07-08 10:00; the case is sent again on
 *             07-09 at 11:00 (request B, trace …b1; another day, so both requests stay stored, whatever the engine
 *             merges): B is the case's newest request
 *             → both labels bound to A; B has no review: its automatic verdict, passed
 *   reviewed  one request 09:30 (trace …c1); alice and bob fail it at 10:00 → bound to it: failed by review
 *   early     one request 07-08 12:00 (trace …d1); alice and bob failed it at 10:00, before it started → bound to
 *             none: kept, no review of the request: its automatic verdict, passed
 *   split     request A 07-08 09:00 (trace …e1), failed automatically; on 07-08 at 10:00 alice fails faithfulness
 *             and passes answer_relevance; request B 07-09 09:00 (trace …f1); on 07-09 at 12:00 alice turns
 *             faithfulness to pass, and bob passes both on B
 *             → alice's labels bind to two requests, one by one (answer_relevance to A, faithfulness to B): bound so,
 *             her faithfulness pass would count as her pass of B, agreeing with bob, though she never read B's
 *             answer whole. Her review is of no one request: both her labels are bound to none; bob's to B, where
 *             he alone reviewed: B keeps its automatic verdict, failed
 * so the gate counts 2 passed, 2 failed, 1 decided by human review (the earlier release: 0 passed, 4 failed, 3
 * decided by review — B and the early request "failed by alice and bob", who never saw either answer).
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { newHumanLabel } from "../../../evaluators/judge/calibration/human-label.js";
import { openClickHouse, quoteIdentifier, type ClickHouseConfig } from "../../../store/clickhouse/clickhouse-connection.js";
import { ClickHouseHumanLabelStore } from "../../../store/clickhouse/clickhouse-human-label-store.js";
import { ClickHouseSink } from "../../../store/clickhouse/clickhouse-sink.js";
import { runMigrations } from "../../../store/clickhouse/run-migrations.js";
import { buildCaseResult, judgeVerdict } from "../../support/case-results.js";
import { migrateEmbedded, migrationsThrough } from "../../support/previous-release.js";
import { runRagscope } from "../../e2e/experiments/support/run-ragscope.js";

const PREVIOUS_RELEASE_LAST_MIGRATION = 36;
const RUN = "upgrade-run";
const LABELED_AT = "2026-07-08T10:00:00.000Z";
const TRACE = { a: "a1000000000000000000000000000001", b: "b1000000000000000000000000000001", c: "c1000000000000000000000000000001", d: "d1000000000000000000000000000001", e: "e1000000000000000000000000000001", f: "f1000000000000000000000000000001" };

const embedded = (dataPath: string, database: string): ClickHouseConfig => ({ url: null, username: "default", password: "", database, dataPath });

/** A request of run RUN that the judge passed on faithfulness and answer relevance (its automatic verdict: passed), or failed. */
function request(caseResultId: string, caseId: string, traceId: string, startedAt: string, passed = true) {
  const caseResult = { ...buildCaseResult({ caseId, output: `answer of ${traceId}` }), case_result_id: caseResultId, run_id: RUN, trace_id: traceId, quality_status: passed ? ("passed" as const) : ("failed" as const), started_at: startedAt, completed_at: startedAt };
  return { caseResult, evaluationResults: ["faithfulness", "answer_relevance"].map((metric) => ({ ...judgeVerdict(caseResultId, metric, passed), evaluated_at: startedAt })) };
}

const label = (caseResultId: string, reviewer: string, metric: string, verdict: "pass" | "fail", labeledAt: string) => newHumanLabel({ case_result_id: caseResultId, trace_id: "", metric, labeler_id: reviewer, verdict, labeled_at: labeledAt });

/** The gate's verdict counts: passed, failed, decided by human review. */
async function gateCounts(dataDir: string): Promise<number[]> {
  const gate = await runRagscope(["gate", "--run", RUN, "--data-dir", dataDir], { RAGSCOPE_CLICKHOUSE_URL: "" });
  const verdicts = /Case verdicts: (\d+) passed \(judged\), (\d+) failed, .*; (\d+) decided by human review/.exec(gate.stdout);
  assert.ok(verdicts, gate.stdout + gate.stderr);
  return verdicts.slice(1).map(Number);
}

describe("upgrading a store whose human labels named a case, not the request reviewed", () => {
  let folder: string;
  let dataDir: string;
  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-request-bound-labels-upgrade-"));
    dataDir = path.join(folder, "store");
    const previous = await migrationsThrough(PREVIOUS_RELEASE_LAST_MIGRATION, path.join(folder, "previous-migrations"));
    const connection = await openClickHouse(embedded(dataDir, "ragscope"));
    try {
      await runMigrations(connection, previous);
      const sink = new ClickHouseSink(connection);
      for (const written of [
        request("cr_resent", "resent", TRACE.a, "2026-07-08T09:30:00.000Z"),
        request("cr_reviewed", "reviewed", TRACE.c, "2026-07-08T09:30:00.000Z"),
        request("cr_early", "early", TRACE.d, "2026-07-08T12:00:00.000Z"),
        request("cr_split", "split", TRACE.e, "2026-07-08T09:00:00.000Z", false),
        request("cr_split", "split", TRACE.f, "2026-07-09T09:00:00.000Z", false),
      ]) assert.ok((await sink.write([written])).ok);
      // The labels as that release stored them: its columns, no trace id.
      const labels = [
        ...["alice", "bob"].flatMap((reviewer) => ["cr_resent", "cr_reviewed", "cr_early"].map((id) => label(id, reviewer, "faithfulness", "fail", LABELED_AT))),
        label("cr_split", "alice", "answer_relevance", "pass", LABELED_AT),
        // Her faithfulness label as the earlier release kept it: the later of her two saves.
        label("cr_split", "alice", "faithfulness", "pass", "2026-07-09T12:00:00.000Z"),
        label("cr_split", "bob", "faithfulness", "pass", "2026-07-09T12:00:00.000Z"),
        label("cr_split", "bob", "answer_relevance", "pass", "2026-07-09T12:00:00.000Z"),
      ];
      await connection.client.insert({
        table: `${quoteIdentifier(connection.database)}.human_labels`,
        values: labels.map(({ trace_id: _unstored, ...label }) => ({ ...label, version: Date.parse(label.labeled_at) })),
        format: "JSONEachRow",
        clickhouse_settings: { date_time_input_format: "best_effort" },
      });
      // The case sent again after its review, the next day.
      assert.ok((await sink.write([request("cr_resent", "resent", TRACE.b, "2026-07-09T11:00:00.000Z")])).ok);
    } finally {
      await connection.close();
    }
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test("ragscope migrate binds each label to the request it reviewed and recomputes the labelled cases' rollups", async () => {
    const migrated = migrateEmbedded(dataDir, folder);
    assert.equal(migrated.status, 0, migrated.stdout + migrated.stderr);
    assert.match(migrated.stdout, /applied 0037_labels_of_the_request_reviewed/);
    assert.match(migrated.stdout, /recomputed the dashboards' rollups of \d+ minute\(s\) × tenant × service \(a human label counts toward the review of the request reviewed only \(migration 0037\)\)/);

    const connection = await openClickHouse(embedded(dataDir, "ragscope"));
    try {
      const labels = await new ClickHouseHumanLabelStore(connection).list();
      assert.deepEqual(
        labels.map((label) => [label.case_result_id, label.labeler_id, label.trace_id, label.verdict, label.labeled_at]).sort((first, second) => (first.join(" ") < second.join(" ") ? -1 : 1)),
        [
          ["cr_early", "alice", "", "fail", LABELED_AT],
          ["cr_early", "bob", "", "fail", LABELED_AT],
          ["cr_resent", "alice", TRACE.a, "fail", LABELED_AT],
          ["cr_resent", "bob", TRACE.a, "fail", LABELED_AT],
          ["cr_reviewed", "alice", TRACE.c, "fail", LABELED_AT],
          ["cr_reviewed", "bob", TRACE.c, "fail", LABELED_AT],
          ["cr_split", "alice", "", "pass", LABELED_AT],
          ["cr_split", "alice", "", "pass", "2026-07-09T12:00:00.000Z"],
          ["cr_split", "bob", TRACE.f, "pass", "2026-07-09T12:00:00.000Z"],
          ["cr_split", "bob", TRACE.f, "pass", "2026-07-09T12:00:00.000Z"],
        ],
      );
    } finally {
      await connection.close();
    }
    assert.deepEqual(await gateCounts(dataDir), [2, 2, 1]);
  });
});
