/**
 * The Grafana Failures board's root-cause panels (dashboards/failures.json, what Grafana and `ragscope report` run)
 * draw the root-cause labels only, and count the failing requests no label explains apart, as the web UI's Failures
 * page does (its chart and table of labels, and "N without a root-cause label", which links to the traces list under
 * root_cause=UNATTRIBUTED). Before, the rollups' UNATTRIBUTED was drawn as a bar among the labels, as if it were one,
 * and a failing request with no cause at all was on no panel.
 *
 * Stored (the real sink and rollup refresh, embedded chDB): failing requests — two the evaluator labelled
 * RETRIEVAL_MISS, one it could not explain (UNATTRIBUTED), one with no root-cause result, one under a name no label
 * has (a newer evaluator's) — and a passing one. Expected, worked by hand: the bars RETRIEVAL_MISS 2 only; without a
 * label 3, on the board's stat as on the Failures page, and the traces list under root_cause=UNATTRIBUTED lists those 3.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { CaseEvaluation } from "../../../evaluators/evaluate-case-result.js";
import { UNATTRIBUTED } from "../../../evaluators/root-cause/root-cause-labels.js";
import { readDashboards } from "../../../report/dashboard-files.js";
import { allOf, type Variables } from "../../../report/grafana-macros.js";
import { executableSql, runQuery, type Frame } from "../../../report/panel-data.js";
import { panelIntervalMs } from "../../../report/panel-interval.js";
import { ClickHouseMetricRollups } from "../../../store/clickhouse/metric-rollups.js";
import { ClickHouseQualityReader } from "../../../store/clickhouse/clickhouse-quality-reader.js";
import { ClickHouseSink } from "../../../store/clickhouse/clickhouse-sink.js";
import { ClickHouseTraceReader } from "../../../store/clickhouse/clickhouse-trace-reader.js";
import { evaluatedRequest } from "../../support/evaluated-request.js";
import { rootCauseResult } from "../../support/root-cause-result.js";
import { temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";

const RUN = "run_without_label";
const FROM_MS = Date.parse("2026-07-08T09:00:00.000Z");
const TO_MS = Date.parse("2026-07-08T10:00:00.000Z");
const WRITTEN_AT = TO_MS + 60_000;
const context = { fromMs: FROM_MS, toMs: TO_MS, intervalMs: panelIntervalMs(FROM_MS, TO_MS, 60) };
const variables: Variables = { service: allOf(["support-bot"]), tenant: allOf([""]), dataset: allOf([""]), run: allOf([RUN]), trace_id: { value: "" } };

/** A request at `minute` past 09:00 with the automatic verdict `verdict` and, when `cause` is given, the root-cause evaluator's reason `<cause>: …`. */
function request(index: number, minute: number, verdict: "failed" | "passed", cause: string | null): CaseEvaluation {
  const startedAt = new Date(FROM_MS + minute * 60_000).toISOString();
  const caseResultId = `cr_without_label_${index}`;
  const evaluation = evaluatedRequest({ runId: RUN, caseResultId, caseId: `case_${index}`, traceId: String(index).padStart(32, "e"), startedAt, service: "support-bot", tenant: "t1", output: "an answer" });
  return {
    ...evaluation,
    caseResult: { ...evaluation.caseResult, quality_status: verdict },
    evaluationResults: [...evaluation.evaluationResults.filter((result) => result.evaluator_id !== "root_cause"), ...(cause === null ? [] : [rootCauseResult(caseResultId, cause, startedAt)])],
  };
}

let store: TemporaryStore;

before(async () => {
  store = await temporaryStore();
  const rollups = new ClickHouseMetricRollups(store.connection, { now: () => WRITTEN_AT });
  const sink = new ClickHouseSink(store.connection, { datasetOf: () => "", now: () => WRITTEN_AT, rollups });
  const written = await sink.write([
    request(1, 1, "failed", "RETRIEVAL_MISS"),
    request(2, 2, "failed", "RETRIEVAL_MISS"),
    request(3, 3, "failed", UNATTRIBUTED),
    request(4, 4, "failed", null),
    request(5, 5, "failed", "NEWER_EVALUATOR_LABEL"),
    request(6, 6, "passed", null),
  ]);
  assert.ok(written.ok, written.ok ? "" : JSON.stringify(written.error));
  await rollups.refresh();
  assert.equal(rollups.counters.failures, 0, rollups.counters.lastError);
});

after(async () => {
  await store?.cleanup();
});

/** The Failures board's panel `title`, run as Grafana and the report run it. */
async function panel(title: string): Promise<Frame> {
  const board = (await readDashboards(undefined, ["failures.json"]))[0]!;
  const found = board.rows.flatMap((row) => row.panels).find((candidate) => candidate.title === title);
  assert.ok(found, `the Failures board has a panel "${title}"`);
  return runQuery(store.store.dashboards, "A", executableSql(found.targets[0]!.rawSql, store.connection.database, variables, context));
}

const column = (frame: Frame, name: string) => frame.fields.find((field) => field.name === name)?.values ?? [];

test("the root-cause panels draw the labels only: no UNATTRIBUTED bar or series, nor a name no label has", async () => {
  const bars = await panel("Root causes");
  assert.deepEqual(
    column(bars, "Root cause").map((label, index) => [label, column(bars, "Failing requests")[index]]),
    [["RETRIEVAL_MISS", 2]],
  );
  const overTime = await panel("Root causes over time");
  assert.deepEqual([...new Set(column(overTime, "series"))], ["RETRIEVAL_MISS"]);
});

test("the failing requests without a label are counted apart, as many as the Failures page counts and its link lists", async () => {
  const stat = await panel("Without a root-cause label");
  assert.deepEqual(column(stat, "Failing requests"), [3]);
  const board = await new ClickHouseQualityReader(store.connection).failureBoard({ fromMs: FROM_MS, toMs: TO_MS, bucketSeconds: 60, runId: RUN });
  assert.equal(board.withoutRootCause, 3);
  const listed = await new ClickHouseTraceReader(store.connection).listTraces({ runId: RUN, rootCause: UNATTRIBUTED, verdict: "failed", fromMs: FROM_MS, toMs: TO_MS }, { after: null, limit: 10 });
  assert.deepEqual(
    listed.traces.map((trace) => [trace.caseResultId, trace.rootCause]),
    [
      ["cr_without_label_5", "NEWER_EVALUATOR_LABEL"],
      ["cr_without_label_4", null],
      ["cr_without_label_3", UNATTRIBUTED],
    ],
  );
});
