/**
 * The Failures board's cases tables (dashboards/failures.json, what Grafana and `ragscope report` run) list a case
 * sent again as each request, with what was written with that request: in "Failing cases" the root cause the
 * evaluator gave it, as the Failures page, the trace list and the root-cause rollups attribute it
 * (dashboards/source/root-causes.ts: the cause written with the request's own trace and start), and its own failed
 * evaluations; in "Review queue" its own signals.
 *
 * Stored: two cases of one run, each sent twice by a harness retrying after midnight UTC from a renamed service — one
 * Case Result id, two requests (one trace at 23:59, another at 00:01). Case "cr_resent_causes": both requests failing,
 * the root-cause evaluator saying RETRIEVAL_MISS of the first and HALLUCINATION of the second, and a failed check of
 * each. Case "cr_resent_signals": both requests needing review, each with a signal of its own. Expected, worked by
 * hand: a row per request, newest first, each with its own cause, reason, failed check and signal. Joined by the Case
 * Result id alone, each request met both requests' rows: four failing rows, two under the other request's cause, and
 * each pending request with both signals.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { EvaluationResult } from "../../../contracts/evaluation-result.js";
import type { CaseEvaluation } from "../../../evaluators/evaluate-case-result.js";
import { readDashboards } from "../../../report/dashboard-files.js";
import { allOf, type Variables } from "../../../report/grafana-macros.js";
import { executableSql, runQuery } from "../../../report/panel-data.js";
import { panelIntervalMs } from "../../../report/panel-interval.js";
import { ClickHouseMetricRollups } from "../../../store/clickhouse/metric-rollups.js";
import { ClickHouseSink } from "../../../store/clickhouse/clickhouse-sink.js";
import { evaluatedRequest } from "../../support/evaluated-request.js";
import { rootCauseResult } from "../../support/root-cause-result.js";
import { temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";

const CASE_RESULT_ID = "cr_resent_causes";
const REQUESTS = [
  { traceId: "c1".repeat(16), startedAt: "2026-07-07T23:59:00.000Z", service: "support-bot", cause: "RETRIEVAL_MISS" },
  { traceId: "c2".repeat(16), startedAt: "2026-07-08T00:01:00.000Z", service: "support-bot-v2", cause: "HALLUCINATION" },
];
const PENDING_ID = "cr_resent_signals";
const PENDING = [
  { traceId: "d1".repeat(16), startedAt: "2026-07-07T23:59:30.000Z", service: "support-bot" },
  { traceId: "d2".repeat(16), startedAt: "2026-07-08T00:01:30.000Z", service: "support-bot-v2" },
];
const WRITTEN_AT = Date.parse("2026-07-08T01:00:00.000Z");
const context = { fromMs: Date.parse("2026-07-07T23:00:00.000Z"), toMs: Date.parse("2026-07-08T01:00:00.000Z"), intervalMs: panelIntervalMs(Date.parse("2026-07-07T23:00:00.000Z"), Date.parse("2026-07-08T01:00:00.000Z"), 60) };
const variables: Variables = { service: allOf([""]), tenant: allOf([""]), dataset: allOf([""]), run: allOf(["run_resent_causes"]), trace_id: { value: "" } };

/** A check of the test's own (evaluator "test.check"), written with one request: `outcome` failed, or measured with review_required. */
function check(caseResultId: string, startedAt: string, signal: "failed" | "review"): EvaluationResult {
  return {
    ...rootCauseResult(caseResultId, "UNUSED", startedAt),
    evaluation_result_id: `er_${caseResultId}_check`,
    evaluator_id: "test.check",
    outcome: signal === "failed" ? "failed" : "measured",
    review_required: signal === "review",
    reason: `the check of the request at ${startedAt}`,
  };
}

function sent(caseResultId: string, request: { traceId: string; startedAt: string; service: string }): CaseEvaluation {
  return evaluatedRequest({ runId: "run_resent_causes", caseResultId, caseId: `case_${caseResultId}`, traceId: request.traceId, startedAt: request.startedAt, service: request.service, tenant: "t1", output: `the answer of ${request.service}` });
}

function failing(request: (typeof REQUESTS)[number]): CaseEvaluation {
  const evaluation = sent(CASE_RESULT_ID, request);
  return {
    ...evaluation,
    caseResult: { ...evaluation.caseResult, quality_status: "failed" },
    evaluationResults: [
      ...evaluation.evaluationResults.filter((result) => result.evaluator_id !== "root_cause"),
      { ...rootCauseResult(CASE_RESULT_ID, request.cause, request.startedAt), reason: `${request.cause}: of the request at ${request.startedAt}` },
      check(CASE_RESULT_ID, request.startedAt, "failed"),
    ],
  };
}

/** Only the test's check signals: the default registry's evaluations of this request all pass or measure. */
function pending(request: (typeof PENDING)[number]): CaseEvaluation {
  const evaluation = sent(PENDING_ID, request);
  return { ...evaluation, caseResult: { ...evaluation.caseResult, quality_status: "review_required" }, evaluationResults: [...evaluation.evaluationResults, check(PENDING_ID, request.startedAt, "review")] };
}

let store: TemporaryStore;

before(async () => {
  store = await temporaryStore();
  const rollups = new ClickHouseMetricRollups(store.connection, { now: () => WRITTEN_AT });
  const sink = new ClickHouseSink(store.connection, { datasetOf: () => "", now: () => WRITTEN_AT, rollups });
  for (const [index, request] of REQUESTS.entries()) {
    const written = await sink.write([failing(request), pending(PENDING[index]!)]);
    assert.ok(written.ok, written.ok ? "" : written.error.message);
  }
  await rollups.refresh();
  assert.equal(rollups.counters.failures, 0, rollups.counters.lastError);
});

after(async () => {
  await store?.cleanup();
});

/** The Failures board's table `title`: its columns `names`, a row each. */
async function table(title: string, names: readonly string[]): Promise<unknown[][]> {
  const board = (await readDashboards(undefined, ["failures.json"]))[0]!;
  const panel = board.rows.flatMap((row) => row.panels).find((candidate) => candidate.title === title)!;
  const frame = await runQuery(store.store.dashboards, "A", executableSql(panel.targets[0]!.rawSql, store.connection.database, variables, context));
  const columns = names.map((name) => frame.fields.find((field) => field.name === name)!.values);
  return Array.from({ length: frame.rows }, (_, index) => columns.map((values) => values[index]));
}

test("Failing cases: a case sent again is each failing request under its own root cause and failed evaluations, once", async () => {
  const rows = await table("Failing cases", ["trace_id", "service", "primary_label", "reason", "failed_evaluations"]);
  assert.deepEqual(
    rows.map((row) => row.slice(0, 4)),
    [
      ["c2".repeat(16), "support-bot-v2", "HALLUCINATION", "HALLUCINATION: of the request at 2026-07-08T00:01:00.000Z"],
      ["c1".repeat(16), "support-bot", "RETRIEVAL_MISS", "RETRIEVAL_MISS: of the request at 2026-07-07T23:59:00.000Z"],
    ],
  );
  const checks = (row: unknown[]) => String(row[4]).match(/the check of the request at [^;]*/g);
  assert.deepEqual(rows.map(checks), [["the check of the request at 2026-07-08T00:01:00.000Z"], ["the check of the request at 2026-07-07T23:59:00.000Z"]]);
});

// Beside the test's check, the default registry's heuristic groundedness signals each request (quoting its answer).
test("Review queue: a case sent again is each pending request with its own signals", async () => {
  const rows = await table("Review queue", ["trace_id", "service", "signals"]);
  const checks = (row: unknown[]) => String(row[2]).match(/test\.check: [^;]*/g);
  assert.deepEqual(
    rows.map((row) => [row[0], row[1], checks(row)]),
    [
      ["d2".repeat(16), "support-bot-v2", ["test.check: the check of the request at 2026-07-08T00:01:30.000Z"]],
      ["d1".repeat(16), "support-bot", ["test.check: the check of the request at 2026-07-07T23:59:30.000Z"]],
    ],
  );
});
