/**
 * The Grafana Failures board's root-cause panels (dashboards/failures.json, what Grafana and `ragscope report` run)
 * count a request stored twice — a partial trace's Case Result beside the complete one: one Case Result id, trace and
 * start, the partial one without the tenant its root span carried, so under another sorting key — as the web UI's
 * Failures page counts it: once under its label, and not again "without a root-cause label".
 *
 * Stored (the real sink and rollup refresh, embedded chDB), each run at a minute of its own: a failing request the
 * root-cause evaluator labelled RETRIEVAL_MISS, written first as its partial trace's result (tenant '') and then
 * complete (tenant t1), and a failing request with no root-cause result, stored once.
 * - run "refreshed between": the rollups refreshed after each write, as the collector's refresh runs between a
 *   partial trace's release and its root's arrival.
 * - run "refreshed once": one refresh after both writes.
 * Worked by hand, in both runs: the Failures page counts 3 failing rows, RETRIEVAL_MISS 1 (one request), 1 without a
 * label (the request with no cause: the labelled request's partial row is that request, under its label). Before,
 * the refresh between the writes left RETRIEVAL_MISS 1 under tenant '' beside 1 under t1 (bars 2), and after one
 * refresh the stat read 3 failing rows less 1 labelled request: 2.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { CaseEvaluation } from "../../../evaluators/evaluate-case-result.js";
import { readDashboards } from "../../../report/dashboard-files.js";
import { allOf, type Variables } from "../../../report/grafana-macros.js";
import { executableSql, runQuery, type Frame } from "../../../report/panel-data.js";
import { panelIntervalMs } from "../../../report/panel-interval.js";
import { ClickHouseMetricRollups } from "../../../store/clickhouse/metric-rollups.js";
import { ClickHouseQualityReader } from "../../../store/clickhouse/clickhouse-quality-reader.js";
import { ClickHouseSink } from "../../../store/clickhouse/clickhouse-sink.js";
import { evaluatedRequest } from "../../support/evaluated-request.js";
import { rootCauseResult } from "../../support/root-cause-result.js";
import { temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";

const FROM_MS = Date.parse("2026-07-08T09:00:00.000Z");
const TO_MS = Date.parse("2026-07-08T10:00:00.000Z");
const context = { fromMs: FROM_MS, toMs: TO_MS, intervalMs: panelIntervalMs(FROM_MS, TO_MS, 60) };
const RUNS = { between: { run: "run_refreshed_between", minute: 10 }, once: { run: "run_refreshed_once", minute: 20 } } as const;

/** A failing request of `run` at `minute` past 09:00, partial (no tenant) or complete (t1), under `cause` when given. */
function failing(run: string, minute: number, index: number, partial: boolean, cause: string | null): CaseEvaluation {
  const startedAt = new Date(FROM_MS + minute * 60_000).toISOString();
  const caseResultId = `cr_${run}_${index}`;
  const evaluation = evaluatedRequest({ runId: run, caseResultId, caseId: `case_${index}`, traceId: `${index}`.padStart(32, "f"), startedAt, service: "support-bot", tenant: partial ? null : "t1", partial, output: "an answer" });
  return {
    ...evaluation,
    caseResult: { ...evaluation.caseResult, quality_status: "failed" },
    evaluationResults: [...evaluation.evaluationResults.filter((result) => result.evaluator_id !== "root_cause"), ...(cause === null ? [] : [rootCauseResult(caseResultId, cause, startedAt)])],
  };
}

let store: TemporaryStore;
let rollups: ClickHouseMetricRollups;

before(async () => {
  let clock = TO_MS + 60_000;
  store = await temporaryStore();
  // Refreshed here only, never by the timer: how many refreshes ran between the writes is the test's to decide.
  rollups = new ClickHouseMetricRollups(store.connection, { now: () => clock, refreshIntervalMs: 24 * 60 * 60_000 });
  const sink = new ClickHouseSink(store.connection, { datasetOf: () => "", now: () => clock, rollups });
  const write = async (evaluations: CaseEvaluation[]) => {
    const written = await sink.write(evaluations);
    assert.ok(written.ok, written.ok ? "" : JSON.stringify(written.error));
    clock += 1_000;
  };
  const { between, once } = RUNS;
  await write([failing(between.run, between.minute, 1, true, "RETRIEVAL_MISS"), failing(between.run, between.minute, 2, false, null)]);
  await rollups.refresh();
  await write([failing(between.run, between.minute, 1, false, "RETRIEVAL_MISS")]);
  await rollups.refresh();
  await write([failing(once.run, once.minute, 1, true, "RETRIEVAL_MISS"), failing(once.run, once.minute, 2, false, null)]);
  await write([failing(once.run, once.minute, 1, false, "RETRIEVAL_MISS")]);
  await rollups.refresh();
  assert.deepEqual([rollups.counters.refreshes, rollups.counters.failures], [3, 0], rollups.counters.lastError);
});

after(async () => {
  await rollups?.close();
  await store?.cleanup();
});

/** The Failures board's panel `title` over `run` (and the board's tenant variable set to `tenants`), run as Grafana and the report run it. */
async function panel(title: string, run: string, tenants: string[] = ["", "t1"]): Promise<Frame> {
  const variables: Variables = { service: allOf(["support-bot"]), tenant: { value: tenants, options: ["", "t1"] }, dataset: allOf([""]), run: { value: [run], options: Object.values(RUNS).map((each) => each.run) }, trace_id: { value: "" } };
  const board = (await readDashboards(undefined, ["failures.json"]))[0]!;
  const found = board.rows.flatMap((row) => row.panels).find((candidate) => candidate.title === title);
  assert.ok(found, `the Failures board has a panel "${title}"`);
  return runQuery(store.store.dashboards, "A", executableSql(found.targets[0]!.rawSql, store.connection.database, variables, context));
}

const column = (frame: Frame, name: string) => frame.fields.find((field) => field.name === name)?.values ?? [];

for (const [name, { run }] of Object.entries(RUNS)) {
  describe(`a labelled request stored twice, the rollups refreshed ${name === "between" ? "between the writes" : "once after both"}`, () => {
    test("the Failures page counts it once, under its label", async () => {
      const board = await new ClickHouseQualityReader(store.connection).failureBoard({ fromMs: FROM_MS, toMs: TO_MS, bucketSeconds: 3600, runId: run });
      assert.deepEqual(
        { failing: board.failing, withoutRootCause: board.withoutRootCause, groups: board.groups.filter((group) => group.failing > 0).map((group) => [group.rootCause, group.failing]) },
        { failing: 3, withoutRootCause: 1, groups: [["RETRIEVAL_MISS", 1]] },
      );
    });

    test("the board's bars count it once, as the Failures page does", async () => {
      const bars = await panel("Root causes", run);
      assert.deepEqual(
        column(bars, "Root cause").map((label, index) => [label, column(bars, "Failing requests")[index]]),
        [["RETRIEVAL_MISS", 1]],
      );
    });

    test("the board's stat counts only the request without a cause, as the Failures page does", async () => {
      assert.deepEqual(column(await panel("Without a root-cause label", run), "Failing requests"), [1]);
    });

    // Filtered to the complete row's tenant t1, which holds both requests' complete rows (2 failing rows): the labelled
    // request's row is under its label, the other without one — 1, as the page counts t1's rows. Its partial row
    // (tenant '') is outside the filter on both sides; counted under the newest row's group, the stat read 2 − 2 = 0.
    test("filtered to the complete row's tenant, the stat and the bars count that tenant's rows", async () => {
      assert.deepEqual(column(await panel("Without a root-cause label", run, ["t1"]), "Failing requests"), [1]);
      const bars = await panel("Root causes", run, ["t1"]);
      assert.deepEqual(column(bars, "Root cause").map((label, index) => [label, column(bars, "Failing requests")[index]]), [["RETRIEVAL_MISS", 1]]);
    });
  });
}
