/**
 * root_cause_rollups as one refresh computes them for a minute whose requests reviewers labelled and a minute
 * without any label (store/clickhouse/metric-rollups.ts, dashboards/source/root-causes.ts rootCauseRollupSelect):
 * each request counts when its final verdict is failed (evaluators/reviewed-verdict.ts: two agreeing reviewers
 * decide it, a review never passes a request that did not complete), under the cause two reviewers agreed on, else
 * the root-cause evaluator's. The requests are written through the real sink and the labels through the human label
 * store (embedded chDB); the rollup is read back from the table.
 *
 * Worked by hand (alice and bob review; "fail" / "pass" a faithfulness label, a cause a root_cause label):
 *   09:30 labelled
 *     a1  failed, evaluator RETRIEVAL_MISS, no labels                              → RETRIEVAL_MISS
 *     a2  failed, evaluator RETRIEVAL_MISS, both pass                              → passed, not counted
 *     a3  failed (threw), evaluator CONTEXT_TRUNCATED, both pass                   → stays failed: CONTEXT_TRUNCATED
 *     a4  review_required, no evaluator cause, both fail, both HALLUCINATION       → HALLUCINATION
 *     a5  failed, evaluator RETRIEVAL_MISS, both fail, HALLUCINATION / CONTEXT_TRUNCATED → RETRIEVAL_MISS
 *     a6  passed, no evaluator cause, both fail without a cause                    → failed without a cause, not counted
 *     a7  failed, evaluator RETRIEVAL_MISS, alice alone fails with HALLUCINATION   → RETRIEVAL_MISS
 *     a8  review_required, no evaluator cause, alice fails and bob passes, both HALLUCINATION → not failing, not counted
 *     a9  passed, no evaluator cause, both fail, bob HALLUCINATION and alice a note that names no label → no cause, not counted
 *     a10 failed, evaluator RETRIEVAL_MISS, alice passes, bob only names HALLUCINATION (no metric labelled: one reviewer of
 *         the verdict, one of the cause)                                         → RETRIEVAL_MISS
 *   09:31 no labels
 *     b1  failed, evaluator HALLUCINATION → HALLUCINATION;  b2 failed, evaluator RETRIEVAL_MISS → RETRIEVAL_MISS
 *     b3  passed;  b4  review_required → not counted
 *
 * The web UI reads the same rule from the raw rows over the same store (root-causes.ts attributedRootCauses): the
 * Failures page (ClickHouseQualityReader.failureBoard) counts the same requests under the same causes, a6 and a9
 * failing without one; the trace list (ClickHouseTraceReader) gives every request its cause whatever its verdict —
 * a2 keeps the evaluator's RETRIEVAL_MISS, a8 has the reviewers' agreed HALLUCINATION — and under the final verdict
 * `failed` lists the Failures page's requests of each cause.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { CaseResult } from "../../../contracts/case-result.js";
import type { EvaluationResult } from "../../../contracts/evaluation-result.js";
import { newHumanLabel, type HumanLabel } from "../../../evaluators/judge/calibration/human-label.js";
import { ClickHouseHumanLabelStore } from "../../../store/clickhouse/clickhouse-human-label-store.js";
import { ClickHouseSink } from "../../../store/clickhouse/clickhouse-sink.js";
import { ClickHouseMetricRollups } from "../../../store/clickhouse/metric-rollups.js";
import { ClickHouseQualityReader } from "../../../store/clickhouse/clickhouse-quality-reader.js";
import { ClickHouseTraceReader } from "../../../store/clickhouse/clickhouse-trace-reader.js";
import { buildCaseResult } from "../../support/case-results.js";
import { queryRows, temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";
import { rootCauseResult } from "../../support/root-cause-result.js";

const LABELED_AT = "2026-07-08T10:00:00.000Z";

interface Request {
  id: string;
  startedAt: string;
  quality: CaseResult["quality_status"];
  threw?: boolean;
  evaluatorCause?: string;
  labels?: HumanLabel[];
}

// Each label reviews its case's one request (caseResultOf: trace_<id>).
const verdict = (id: string, labelerId: string, outcome: "pass" | "fail") => newHumanLabel({ case_result_id: id, trace_id: `trace_${id}`, metric: "faithfulness", labeler_id: labelerId, verdict: outcome, labeled_at: LABELED_AT });
const cause = (id: string, labelerId: string, note: string) => newHumanLabel({ case_result_id: id, trace_id: `trace_${id}`, metric: "root_cause", labeler_id: labelerId, verdict: "fail", note, labeled_at: LABELED_AT });
const both = (id: string, outcome: "pass" | "fail") => [verdict(id, "alice", outcome), verdict(id, "bob", outcome)];

const A = "2026-07-08T09:30:05.000Z";
const B = "2026-07-08T09:31:05.000Z";
const REQUESTS: Request[] = [
  { id: "a1", startedAt: A, quality: "failed", evaluatorCause: "RETRIEVAL_MISS" },
  { id: "a2", startedAt: A, quality: "failed", evaluatorCause: "RETRIEVAL_MISS", labels: both("a2", "pass") },
  { id: "a3", startedAt: A, quality: "failed", threw: true, evaluatorCause: "CONTEXT_TRUNCATED", labels: both("a3", "pass") },
  { id: "a4", startedAt: A, quality: "review_required", labels: [...both("a4", "fail"), cause("a4", "alice", "HALLUCINATION"), cause("a4", "bob", "HALLUCINATION")] },
  { id: "a5", startedAt: A, quality: "failed", evaluatorCause: "RETRIEVAL_MISS", labels: [...both("a5", "fail"), cause("a5", "alice", "HALLUCINATION"), cause("a5", "bob", "CONTEXT_TRUNCATED")] },
  { id: "a6", startedAt: A, quality: "passed", labels: both("a6", "fail") },
  { id: "a7", startedAt: A, quality: "failed", evaluatorCause: "RETRIEVAL_MISS", labels: [verdict("a7", "alice", "fail"), cause("a7", "alice", "HALLUCINATION")] },
  { id: "a8", startedAt: A, quality: "review_required", labels: [verdict("a8", "alice", "fail"), verdict("a8", "bob", "pass"), cause("a8", "alice", "HALLUCINATION"), cause("a8", "bob", "HALLUCINATION")] },
  { id: "a9", startedAt: A, quality: "passed", labels: [...both("a9", "fail"), cause("a9", "alice", "the answer is off"), cause("a9", "bob", "HALLUCINATION")] },
  { id: "a10", startedAt: A, quality: "failed", evaluatorCause: "RETRIEVAL_MISS", labels: [verdict("a10", "alice", "pass"), cause("a10", "bob", "HALLUCINATION")] },
  { id: "b1", startedAt: B, quality: "failed", evaluatorCause: "HALLUCINATION" },
  { id: "b2", startedAt: B, quality: "failed", evaluatorCause: "RETRIEVAL_MISS" },
  { id: "b3", startedAt: B, quality: "passed" },
  { id: "b4", startedAt: B, quality: "review_required" },
];

function caseResultOf(request: Request): CaseResult {
  const base = buildCaseResult({ caseId: `case_${request.id}`, output: request.threw === true ? null : "an answer" });
  return {
    ...base,
    case_result_id: request.id,
    trace_id: `trace_${request.id}`,
    quality_status: request.quality,
    execution_status: request.threw === true ? "failed" : "completed",
    execution_error: request.threw === true ? { type: "system_error", message: "the task threw" } : base.execution_error,
    started_at: request.startedAt,
  };
}

function evaluatorCauseOf(request: Request): EvaluationResult[] {
  if (request.evaluatorCause === undefined) return [];
  return [rootCauseResult(request.id, request.evaluatorCause, request.startedAt)];
}

describe("root_cause_rollups of a labelled minute and an unlabelled one, refreshed together", () => {
  let store: TemporaryStore;
  let rollups: ClickHouseMetricRollups;
  before(async () => {
    store = await temporaryStore();
    // Written without a rollup of their own, then noted at once: one refresh recomputes both minutes.
    const written = await new ClickHouseSink(store.connection).write(REQUESTS.map((request) => ({ caseResult: caseResultOf(request), evaluationResults: evaluatorCauseOf(request) })));
    assert.ok(written.ok);
    await new ClickHouseHumanLabelStore(store.connection).save(REQUESTS.flatMap((request) => request.labels ?? []));
    rollups = new ClickHouseMetricRollups(store.connection, { now: () => Date.parse("2026-07-09T00:00:00.000Z") });
    rollups.note(REQUESTS.map((request) => ({ startedAt: request.startedAt, tenantId: "", serviceName: "" })));
    await rollups.refresh();
    assert.equal(rollups.counters.failures, 0, rollups.counters.lastError);
  });
  after(async () => {
    await rollups.close();
    await store.cleanup();
  });

  test("one refresh recomputed both minutes", () => {
    assert.equal(rollups.counters.refreshes, 1);
    assert.equal(rollups.counters.minutesRefreshed, 2);
  });

  test("each minute counts its failing requests under the reviewers' agreed cause, else the evaluator's", async () => {
    const rows = await queryRows<{ minute: string; root_cause: string; failing: string }>(
      store.connection,
      "SELECT toString(minute) AS minute, root_cause, sum(failing_requests) AS failing FROM {{database}}.root_cause_rollups FINAL GROUP BY minute, root_cause HAVING failing > 0 ORDER BY minute, root_cause",
    );
    assert.deepEqual(
      rows.map((row) => [row.minute, row.root_cause, Number(row.failing)]),
      [
        ["2026-07-08 09:30:00", "CONTEXT_TRUNCATED", 1],
        ["2026-07-08 09:30:00", "HALLUCINATION", 1],
        ["2026-07-08 09:30:00", "RETRIEVAL_MISS", 4],
        ["2026-07-08 09:31:00", "HALLUCINATION", 1],
        ["2026-07-08 09:31:00", "RETRIEVAL_MISS", 1],
      ],
    );
  });
  test("the Failures page counts the same requests under the same causes, per minute", async () => {
    const board = await new ClickHouseQualityReader(store.connection).failureBoard({ fromMs: Date.parse("2026-07-08T09:30:00.000Z"), toMs: Date.parse("2026-07-08T09:32:00.000Z"), bucketSeconds: 60 });
    assert.deepEqual(board.times, [Date.parse("2026-07-08T09:30:00.000Z"), Date.parse("2026-07-08T09:31:00.000Z")]);
    assert.deepEqual(
      board.groups.filter((group) => group.failing > 0).map((group) => [group.rootCause, group.failing, group.overTime]),
      [
        ["RETRIEVAL_MISS", 5, [4, 1]],
        ["HALLUCINATION", 2, [1, 1]],
        ["CONTEXT_TRUNCATED", 1, [1, 0]],
      ],
    );
    // a1, a3, a4, a5, a6, a7, a9, a10, b1, b2; a6 and a9 without a cause.
    assert.deepEqual([board.failing, board.withoutRootCause], [10, 2]);
  });

  test("the trace list gives each request the same cause, and under the verdict failed lists the Failures page's requests", async () => {
    const traces = new ClickHouseTraceReader(store.connection);
    const listed = async (filter: { rootCause?: string; verdict?: string }) => (await traces.listTraces(filter, { after: null, limit: 100 })).traces.map((trace) => trace.caseResultId).sort();
    const column = new Map((await traces.listTraces({}, { after: null, limit: 100 })).traces.map((trace) => [trace.caseResultId, trace.rootCause]));
    assert.deepEqual(Object.fromEntries([...column].sort(([first], [second]) => (first < second ? -1 : 1))), {
      a1: "RETRIEVAL_MISS", a10: "RETRIEVAL_MISS", a2: "RETRIEVAL_MISS", a3: "CONTEXT_TRUNCATED", a4: "HALLUCINATION", a5: "RETRIEVAL_MISS",
      a6: null, a7: "RETRIEVAL_MISS", a8: "HALLUCINATION", a9: null, b1: "HALLUCINATION", b2: "RETRIEVAL_MISS", b3: null, b4: null,
    });
    assert.deepEqual(await listed({ rootCause: "HALLUCINATION" }), ["a4", "a8", "b1"]);
    assert.deepEqual(await listed({ rootCause: "RETRIEVAL_MISS" }), ["a1", "a10", "a2", "a5", "a7", "b2"]);
    assert.deepEqual(await listed({ rootCause: "HALLUCINATION", verdict: "failed" }), ["a4", "b1"]);
    assert.deepEqual(await listed({ rootCause: "RETRIEVAL_MISS", verdict: "failed" }), ["a1", "a10", "a5", "a7", "b2"]);
    assert.deepEqual(await listed({ rootCause: "CONTEXT_TRUNCATED", verdict: "failed" }), ["a3"]);
  });
});
