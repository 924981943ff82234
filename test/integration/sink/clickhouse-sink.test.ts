import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile, copyFile, readdir } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { ClickHouseSink } from "../../../store/clickhouse/clickhouse-sink.js";
import { migrationsFolder, readMigrations, runMigrations } from "../../../store/clickhouse/run-migrations.js";
import { createDefaultRegistry } from "../../../evaluators/default-registry.js";
import { evaluateCaseResult, type CaseEvaluation } from "../../../evaluators/evaluate-case-result.js";
import { seedExample } from "../../support/case-results.js";
import { queryRows, temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";
import { observedConnection, type RecordedInsert } from "../../support/sink-insert-bodies.js";
import type { ClickHouseConnection } from "../../../store/clickhouse/clickhouse-connection.js";

describe("ClickHouse sink on the ClickHouse engine", () => {
  let store: TemporaryStore;
  before(async () => {
    store = await temporaryStore();
  });
  after(async () => {
    await store.cleanup();
  });

  test("migrations are recorded and running them again applies nothing", async () => {
    const again = await runMigrations(store.connection);
    assert.deepEqual(again.applied, []);
    const tables = await queryRows<{ name: string }>(store.connection, "SELECT name FROM system.tables WHERE database = {database:String} ORDER BY name", { database: store.connection.database });
    // Every table the migration files create, and the bookkeeping table.
    const declared = new Set(["schema_migrations"]);
    for (const migration of await readMigrations()) {
      for (const statement of migration.statements) {
        // Tables, and materialized views writing into them (migration 0015's copies for the trace list).
        const created = /^CREATE (?:TABLE|MATERIALIZED VIEW) IF NOT EXISTS \{\{database\}\}\.(\w+)/.exec(statement);
        if (created) declared.add(created[1]!);
        if (!/^RENAME TABLE/.test(statement.trim())) continue;
        // A table rebuilt with a new key: the old one is renamed away (and dropped on a new, empty store), the new one takes its name.
        for (const [, from, to] of statement.matchAll(/\{\{database\}\}\.(\w+) TO \{\{database\}\}\.(\w+)/g)) {
          declared.delete(from!);
          if (!/_before_\d{4}$/.test(to!)) declared.add(to!);
        }
      }
    }
    for (const core of ["case_results", "evaluation_results", "metric_values", "eval_cases", "runs"]) assert.ok(declared.has(core), core);
    assert.deepEqual(tables.map((row) => row.name).filter((name) => !name.startsWith(".inner")), [...declared].sort());
  });

  test("an edited migration that was already applied is refused", async () => {
    const folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-migrations-"));
    try {
      for (const file of await readdir(migrationsFolder)) await copyFile(path.join(migrationsFolder, file), path.join(folder, file));
      const [first] = (await readdir(folder)).sort();
      await writeFile(path.join(folder, first!), "-- edited\nSELECT 1;\n");
      await assert.rejects(runMigrations(store.connection, folder), /was changed after it was applied/);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  test("writing the same evaluation twice leaves one row per id in what the queries return", async () => {
    const { caseResult, evalCase } = seedExample();
    const evaluation = evaluateCaseResult(createDefaultRegistry(), caseResult, evalCase, "2026-07-08T09:32:01.000Z");
    let clock = 1_000;
    const sink = new ClickHouseSink(store.connection, { now: () => clock++ });
    assert.deepEqual(await sink.write([evaluation]), { ok: true, value: undefined });
    assert.deepEqual(await sink.write([evaluation]), { ok: true, value: undefined });

    const [cases] = await queryRows<{ total: string }>(store.connection, "SELECT count() AS total FROM {{database}}.case_results FINAL");
    assert.equal(Number(cases!.total), 1);
    const metrics = await queryRows<{ metric: string; value: number | null; outcome: string }>(
      store.connection,
      "SELECT metric, value, outcome FROM {{database}}.metric_values FINAL WHERE metric IN ('recall_at_k', 'mrr', 'context_recall', 'citation_accuracy') ORDER BY metric",
    );
    assert.deepEqual(metrics, [
      { metric: "citation_accuracy", value: 0, outcome: "failed" },
      { metric: "context_recall", value: 0, outcome: "failed" },
      { metric: "mrr", value: 0.5, outcome: "passed" },
      { metric: "recall_at_k", value: 1, outcome: "passed" },
    ]);
    const [stored] = await queryRows<{ payload: string; quality_status: string }>(store.connection, "SELECT payload, quality_status FROM {{database}}.case_results FINAL");
    assert.equal(stored!.quality_status, "failed");
    assert.deepEqual(JSON.parse(stored!.payload).rag_observation.citations, ["refund_general_01"]);
  });

  test("a partial rebuild written later never replaces the complete result; a later complete one does", async () => {
    const { caseResult, evalCase } = seedExample();
    const complete = evaluateCaseResult(createDefaultRegistry(), { ...caseResult, case_result_id: "cr_partial_order" }, evalCase, "2026-07-08T09:32:01.000Z");
    const tailOnly = evaluateCaseResult(
      createDefaultRegistry(),
      { ...caseResult, case_result_id: "cr_partial_order", output: null, execution_status: "partial", rag_observation: { ...caseResult.rag_observation, partial_trace: true, citations: null } },
      evalCase,
      "2026-07-08T10:00:00.000Z",
    );
    let clock = 5_000;
    const sink = new ClickHouseSink(store.connection, { now: () => clock });
    assert.ok((await sink.write([complete])).ok);
    clock = 9_000;
    assert.ok((await sink.write([tailOnly])).ok);
    const stored = async () => (await queryRows<{ execution_status: string }>(store.connection, "SELECT execution_status FROM {{database}}.case_results FINAL WHERE case_result_id = 'cr_partial_order'"))[0]!.execution_status;
    assert.equal(await stored(), "completed");
    clock = 12_000;
    const reevaluated = { ...complete, caseResult: { ...complete.caseResult, output: "re-evaluated" } };
    assert.ok((await sink.write([reevaluated])).ok);
    const [row] = await queryRows<{ output: string }>(store.connection, "SELECT output FROM {{database}}.case_results FINAL WHERE case_result_id = 'cr_partial_order'");
    assert.equal(row!.output, "re-evaluated");
  });

  test("a metric without a value gets no row; its Evaluation Result lists it as not applicable", async () => {
    const { caseResult, evalCase } = seedExample();
    const evaluation = evaluateCaseResult(createDefaultRegistry(), { ...caseResult, case_result_id: "cr_coverage", run_id: "run_coverage" }, evalCase, "2026-07-08T09:32:01.000Z");
    assert.ok((await new ClickHouseSink(store.connection, { now: () => 1_000 }).write([evaluation])).ok);
    const withValue = evaluation.evaluationResults.flatMap((result) => Object.entries(result.metric_values).filter(([, value]) => value !== null).map(([metric]) => `${result.evaluator_id}/${metric}`));
    const without = evaluation.evaluationResults.flatMap((result) => Object.entries(result.metric_values).filter(([, value]) => value === null).map(([metric]) => `${result.evaluator_id}/${metric}`));
    assert.ok(without.length > 0, "the example has metrics that do not apply");
    const rows = await queryRows<{ name: string }>(store.connection, "SELECT concat(evaluator_id, '/', metric) AS name FROM {{database}}.metric_values FINAL WHERE case_result_id = 'cr_coverage' ORDER BY name");
    assert.deepEqual(rows.map((row) => row.name), [...withValue].sort());
    const listed = await queryRows<{ name: string }>(store.connection, "SELECT concat(evaluator_id, '/', metric) AS name FROM {{database}}.evaluation_results FINAL ARRAY JOIN not_applicable_metrics AS metric WHERE case_result_id = 'cr_coverage' ORDER BY name");
    assert.deepEqual(listed.map((row) => row.name), [...without].sort());
  });

  test("a re-evaluation that turns a value into not applicable hides the earlier value", async () => {
    const { caseResult, evalCase } = seedExample();
    const first = evaluateCaseResult(createDefaultRegistry(), { ...caseResult, case_result_id: "cr_flip", run_id: "run_flip" }, evalCase, "2026-07-08T09:32:01.000Z");
    const flipped = first.evaluationResults.find((result) => result.metric_values.recall_at_k !== null && result.metric_values.recall_at_k !== undefined);
    assert.ok(flipped, "the example has a recall value");
    assert.ok((await new ClickHouseSink(store.connection, { now: () => 1_000 }).write([first])).ok);
    const visibleRecall = async () =>
      queryRows<{ value: number }>(store.connection, "SELECT value FROM {{database}}.metric_values FINAL WHERE case_result_id = 'cr_flip' AND metric = 'recall_at_k' AND value IS NOT NULL");
    assert.equal((await visibleRecall()).length, 1);

    // Late spans re-opened the trace, and the ranking no longer applies (say the gold evidence moved out of reach).
    const again: CaseEvaluation = {
      ...first,
      replacesEarlier: true,
      evaluationResults: first.evaluationResults.map((result) =>
        result === flipped ? { ...result, outcome: "not_applicable", metric_values: Object.fromEntries(Object.keys(result.metric_values).map((metric) => [metric, null])), evaluated_at: "2026-07-08T09:40:00.000Z" } : result,
      ),
    };
    assert.ok((await new ClickHouseSink(store.connection, { now: () => 2_000 }).write([again])).ok);
    assert.deepEqual(await visibleRecall(), [], "the earlier value is hidden by the newer NULL row");
    const summary = await store.store.reader.readRunSummary("run_flip");
    const recall = summary.metrics.find((metric) => metric.metric === "recall_at_k");
    assert.deepEqual({ applicable: recall?.applicable, notApplicable: recall?.notApplicable, mean: recall?.mean }, { applicable: 0, notApplicable: 1, mean: null });
  });

  /** The store's connection recording every insert into `inserts`, its first case_results insert failing as a lost connection would. */
  function caseResultsInsertFailingOnce(connection: ClickHouseConnection, inserts: RecordedInsert[]): ClickHouseConnection {
    let failNext = true;
    const observed = observedConnection(connection, inserts);
    return {
      ...observed,
      insertTabSeparated: async (insert) => {
        if (insert.table === "case_results" && failNext) {
          failNext = false;
          throw new Error("connection reset by the test");
        }
        await observed.insertTabSeparated(insert);
      },
    };
  }

  // The evaluation worker retries a failed write with the same evaluations (collector/07-evaluate/evaluation-worker.ts).
  // The retry must send what the failed write sent: the same deduplication tokens (an insert that reached the engine
  // before the failure is dropped, not stored twice) and the same row versions (store/row-version-clock.ts), so that
  // the rows the failed write stored and those the retry stores are one write, and the retry does not take a version
  // newer than a write that came after it. The engine is real; only the case_results insert fails, once.
  test("a write retried after a failure sends the same tokens and row versions, whatever the clock did meanwhile", async () => {
    const { caseResult, evalCase } = seedExample();
    const evaluation = evaluateCaseResult(createDefaultRegistry(), { ...caseResult, case_result_id: "cr_retried", run_id: "run_retried" }, evalCase, "2026-07-08T09:32:01.000Z");
    const inserts: RecordedInsert[] = [];
    const failingOnce = caseResultsInsertFailingOnce(store.connection, inserts);
    let clock = 1_000;
    const sink = new ClickHouseSink(failingOnce, { now: () => clock });
    const failed = await sink.write([evaluation]);
    assert.ok(!failed.ok && failed.error.retriable, "the failed write is retriable");
    const sentBeforeFailure = inserts.splice(0);
    assert.deepEqual(sentBeforeFailure.map((insert) => /INTO \S+\.`?(\w+)`? /.exec(insert.query)?.[1]), ["metric_values", "evaluation_results"]);
    clock = 5_000;
    assert.deepEqual(await sink.write([evaluation]), { ok: true, value: undefined });
    assert.deepEqual(inserts.slice(0, sentBeforeFailure.length), sentBeforeFailure, "the retry's statements (with their tokens) and bodies (with their versions) are the failed write's");
    const versions = await queryRows<{ version: string }>(
      store.connection,
      "SELECT DISTINCT version FROM (SELECT version FROM {{database}}.case_results WHERE case_result_id = 'cr_retried' UNION ALL SELECT version FROM {{database}}.evaluation_results WHERE case_result_id = 'cr_retried' UNION ALL SELECT version FROM {{database}}.metric_values WHERE case_result_id = 'cr_retried')",
    );
    assert.equal(versions.length, 1, `every stored row of the retried write has one version: ${JSON.stringify(versions)}`);
  });

  // Two requests of one case in one write take versions of their own, the later the higher (row-version-clock.ts):
  // a retry of that write must send those same versions, or the rows stored before the failure and the retry's
  // would disagree on which request is the newest.
  test("a retried write of two requests of one case sends each request's own version again", async () => {
    const { caseResult, evalCase } = seedExample();
    const requestOf = (traceId: string, startedAt: string) =>
      evaluateCaseResult(createDefaultRegistry(), { ...caseResult, case_result_id: "cr_retried_twice", run_id: "run_retried_twice", trace_id: traceId, started_at: startedAt, completed_at: startedAt }, evalCase, "2026-07-08T09:32:01.000Z");
    const earlier = requestOf("e1".repeat(16), "2026-07-09T00:01:00.000Z");
    const later = requestOf("e2".repeat(16), "2026-07-08T23:59:00.000Z");
    const inserts: RecordedInsert[] = [];
    const failingOnce = caseResultsInsertFailingOnce(store.connection, inserts);
    let clock = 1_000;
    const sink = new ClickHouseSink(failingOnce, { now: () => clock });
    const failed = await sink.write([earlier, later]);
    assert.ok(!failed.ok && failed.error.retriable, "the failed write is retriable");
    const sentBeforeFailure = inserts.splice(0);
    clock = 5_000;
    assert.deepEqual(await sink.write([earlier, later]), { ok: true, value: undefined });
    assert.deepEqual(inserts.slice(0, sentBeforeFailure.length), sentBeforeFailure, "the retry's statements (with their tokens) and bodies (with their versions) are the failed write's");
    const versions = await queryRows<{ trace_id: string; versions: string[] }>(
      store.connection,
      "SELECT trace_id, arraySort(groupUniqArray(toString(version))) AS versions FROM (SELECT trace_id, version FROM {{database}}.case_results WHERE case_result_id = 'cr_retried_twice' UNION ALL SELECT trace_id, version FROM {{database}}.evaluation_results WHERE case_result_id = 'cr_retried_twice' UNION ALL SELECT trace_id, version FROM {{database}}.metric_values WHERE case_result_id = 'cr_retried_twice') GROUP BY trace_id ORDER BY trace_id",
    );
    assert.deepEqual(
      versions.map((row) => [row.trace_id, row.versions.map((version) => Number(version) - 2 ** 42)]),
      [
        ["e1".repeat(16), [1_000]],
        ["e2".repeat(16), [1_001]],
      ],
      "each request's rows have one version, the later request's the next, as the failed write gave them",
    );
  });

  test("a failed insert is a value with a retriable flag, not an exception", async () => {
    const { caseResult, evalCase } = seedExample();
    const evaluation = evaluateCaseResult(createDefaultRegistry(), caseResult, evalCase, "2026-07-08T09:32:01.000Z");
    const broken = new ClickHouseSink({ ...store.connection, database: "missing_database_for_test" });
    const result = await broken.write([evaluation]);
    assert.equal(result.ok, false);
    assert.ok(!result.ok && /ClickHouse insert failed/.test(result.error.message));
  });
});
