/**
 * Partial results on the RAG quality board's business and behaviour rates: a partial trace with a verdict is a
 * request task success is over, and a result rebuilt from a late user event alone is of no request — neither turns
 * "not judged" or "no data" into a wrong number. The board's SQL (dashboards/rag-quality.json, what `ragscope
 * report` runs) on the ClickHouse engine over rows written by the real sink and its rollup refresh.
 *
 * Four results in one minute, worked by hand:
 *   cr_complete_unjudged  complete, unjudged (nothing able to judge it)        not judged
 *   cr_complete_failed    complete, a rule failed it                           judged
 *   cr_partial_failed     partial trace (its root span never arrived), failed  judged (a question was asked)
 *   cr_late_thumbs        partial, a thumbs-down for a request never seen      neither: no request
 * Task success 0 of 2 judged; 1 not judged (complete requests without a verdict: cr_complete_unjudged) — the
 * difference complete requests − judged read 2 − 2 = 0. Dislike and handoff rates: no complete request carries a
 * user event, so no data (the thumbs-down is of no request), over 2 requests with 0 thumbs — the probe counting
 * every result's thumbs read 0.0 %. The in-process summary (summarizeTaskSuccess: what `eval` and experiments print)
 * counts the same four results alike: it read 4 − 2 = 2 not evaluated, the late thumbs among them.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { collectDashboard, type DashboardResult } from "../../../report/collect-report.js";
import { readDashboards } from "../../../report/dashboard-files.js";
import { ClickHouseMetricRollups } from "../../../store/clickhouse/metric-rollups.js";
import { ClickHouseSink } from "../../../store/clickhouse/clickhouse-sink.js";
import type { CaseResult } from "../../../contracts/case-result.js";
import { summarizeTaskSuccess } from "../../../evaluators/aggregate/task-success.js";
import { plannedCaseResult } from "../../support/stored-requests.js";
import { temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";

const T0 = Date.UTC(2026, 6, 8, 9, 30);
const AT = T0 + 5_000;
const WRITTEN_AT = T0 + 3_600_000;

/** A result the collector rebuilt from part of a trace (rag_observation.partial_trace, stored as case_results.partial_trace). */
const partial = (result: CaseResult): CaseResult => ({ ...result, rag_observation: { ...result.rag_observation, partial_trace: true } });

const RESULTS: CaseResult[] = [
  { ...plannedCaseResult({ caseResultId: "cr_complete_unjudged", traceId: "1".padStart(32, "0"), startedAtMs: AT }), quality_status: "unjudged" },
  { ...plannedCaseResult({ caseResultId: "cr_complete_failed", traceId: "2".padStart(32, "0"), startedAtMs: AT }), quality_status: "failed" },
  partial({ ...plannedCaseResult({ caseResultId: "cr_partial_failed", traceId: "3".padStart(32, "0"), startedAtMs: AT }), quality_status: "failed" }),
  partial({
    ...plannedCaseResult({ caseResultId: "cr_late_thumbs", traceId: "4".padStart(32, "0"), startedAtMs: AT, feedback: [{ kind: "thumbs_down", recorded_at: new Date(AT + 60_000).toISOString() }] }),
    output: null,
  }),
];

let store: TemporaryStore;
let result: DashboardResult;

/** A stat panel's columns by name (each of its queries has one row). */
function columnsOf(title: string): Map<string, unknown> {
  const panel = [...result.panels.values()].find((candidate) => candidate.panel.title === title);
  assert.ok(panel, `no panel "${title}"`);
  assert.equal(panel.error, null);
  return new Map(panel.frames.flatMap((frame) => frame.fields).map((field) => [field.name, field.values[0]]));
}

before(async () => {
  store = await temporaryStore();
  const rollups = new ClickHouseMetricRollups(store.connection, { now: () => WRITTEN_AT });
  const written = await new ClickHouseSink(store.connection, { datasetOf: () => "", now: () => WRITTEN_AT, rollups }).write(RESULTS.map((caseResult) => ({ caseResult, evaluationResults: [] })));
  assert.ok(written.ok, written.ok ? "" : written.error.message);
  await rollups.refresh();
  assert.equal(rollups.counters.failures, 0, rollups.counters.lastError);
  const board = (await readDashboards(undefined, ["rag-quality.json"]))[0]!;
  result = await collectDashboard(store.store.dashboards, board, { fromMs: T0 - 60_000, toMs: T0 + 10 * 60_000, values: {} });
});

after(async () => {
  await store?.cleanup();
});

describe("partial results beside the business rates", () => {
  test("a partial trace a rule failed is judged, and not judged counts the complete requests without a verdict", () => {
    const business = columnsOf("Business: rates over the range");
    assert.equal(business.get("Task success"), 0);
    assert.equal(business.get("Task success · judged"), 2);
    assert.equal(business.get("Task success · not judged"), 1);
  });

  test("the in-process summary of the same results counts what the board counts", () => {
    const business = columnsOf("Business: rates over the range");
    const summary = summarizeTaskSuccess(RESULTS);
    const valueOf = (rate: typeof summary.rate) => (rate.applicable ? rate.value : null);
    assert.deepEqual([valueOf(summary.rate), summary.judged, summary.notEvaluated, summary.unjudged], [0, 2, 1, 1], "worked by hand above");
    assert.deepEqual([valueOf(summary.rate), summary.judged, summary.notEvaluated], [business.get("Task success"), business.get("Task success · judged"), business.get("Task success · not judged")]);
  });

  test("a late thumbs of a request the store never saw leaves the dislike and handoff rates no data", () => {
    const business = columnsOf("Business: rates over the range");
    assert.equal(business.get("Dislike rate"), null);
    assert.equal(business.get("Dislike rate · requests"), 2);
    assert.equal(business.get("Dislike rate · with a thumbs"), 0);
    const behaviour = columnsOf("User behaviour over the range");
    assert.equal(behaviour.get("Dislike rate"), null);
    assert.equal(behaviour.get("Handoff rate"), null);
    assert.equal(behaviour.get("Like rate"), null);
  });
});
