/**
 * The Failures page of a case sent again the same day (embedded chDB, the real sink): a harness retried case "again"
 * of a run from a renamed service, so its case_result_id is stored under two sorting keys (migration 0007: tenant,
 * service, day, case_result_id), two requests with their own traces that both failed, and the root-cause evaluator
 * labelled each RETRIEVAL_MISS. ClickHouseQualityReader.failureBoard counts failing requests — each stored request,
 * a Case Result id's trace and start, as the trace list lists them — under the cause written with each request
 * (dashboards/source/root-causes.ts). evaluation_results is sorted by evaluator, day and Evaluation Result id (the
 * Case Result id's evaluator's): the second request's root-cause result, the same id on the same day, replaced the
 * first's, so the store holds no cause for the first request, which counts without one rather than under a cause
 * evaluated on another request's answer; the trace list gives it none either, in both stores, so a bar's link lists
 * the requests the bar counts.
 * Before, each cause counted its requests per case_result_id (the case once) and the total its rows (both requests).
 * Worked by hand: 3 failing requests (again twice, other once); RETRIEVAL_MISS 1 (again's second request),
 * HALLUCINATION 1 (other), without a root-cause label 1 (again's first request); 1 + 1 + 1 = 3.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { CaseResult } from "../../../contracts/case-result.js";
import { ClickHouseQualityReader } from "../../../store/clickhouse/clickhouse-quality-reader.js";
import { ClickHouseSink } from "../../../store/clickhouse/clickhouse-sink.js";
import { ClickHouseTraceReader } from "../../../store/clickhouse/clickhouse-trace-reader.js";
import { buildCaseResult } from "../../support/case-results.js";
import { rootCauseResult } from "../../support/root-cause-result.js";
import { temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";

const MINUTE = "2026-07-08T09:30:00.000Z";

function failedRequest(caseResultId: string, traceId: string, service: string, startedAt: string): CaseResult {
  const base = buildCaseResult({ caseId: `case_${caseResultId}`, output: "an answer" });
  return { ...base, case_result_id: caseResultId, trace_id: traceId, quality_status: "failed", started_at: startedAt, rag_observation: { ...base.rag_observation, service_name: service } };
}

describe("the Failures page of a case sent again from a renamed service", () => {
  let store: TemporaryStore;
  before(async () => {
    store = await temporaryStore();
    const first = "2026-07-08T09:30:05.000Z";
    const again = "2026-07-08T09:30:40.000Z";
    const written = await new ClickHouseSink(store.connection).write([
      { caseResult: failedRequest("again", "a".repeat(32), "support-bot", first), evaluationResults: [rootCauseResult("again", "RETRIEVAL_MISS", first)] },
      { caseResult: failedRequest("again", "b".repeat(32), "support-bot-v2", again), evaluationResults: [rootCauseResult("again", "RETRIEVAL_MISS", again)] },
      { caseResult: failedRequest("other", "c".repeat(32), "support-bot", first), evaluationResults: [rootCauseResult("other", "HALLUCINATION", first)] },
    ]);
    assert.ok(written.ok, written.ok ? "" : JSON.stringify(written.error));
  });
  after(async () => {
    await store.cleanup();
  });

  test("each failing request counts once, under the cause stored with it or without one: the groups and the rest add up to the total", async () => {
    const board = await new ClickHouseQualityReader(store.connection).failureBoard({ fromMs: Date.parse(MINUTE), toMs: Date.parse(MINUTE) + 60_000, bucketSeconds: 60 });
    assert.equal(board.failing, 3, "both requests of the case sent again fail, and the other one");
    assert.deepEqual(
      board.groups.filter((group) => group.failing > 0).map((group) => [group.rootCause, group.failing]),
      [
        ["HALLUCINATION", 1],
        ["RETRIEVAL_MISS", 1],
      ],
    );
    assert.equal(board.withoutRootCause, 1, "the first request, whose root-cause result the second request's replaced");
    assert.equal(board.groups.reduce((sum, group) => sum + group.failing, 0) + board.withoutRootCause, board.failing);
  });

  test("the trace list behind a bar lists as many requests as the bar counts, each with the cause stored with it", async () => {
    const traces = new ClickHouseTraceReader(store.connection);
    const range = { fromMs: Date.parse(MINUTE), toMs: Date.parse(MINUTE) + 60_000 };
    const listed = async (rootCause: string) => (await traces.listTraces({ rootCause, verdict: "failed", ...range }, { after: null, limit: 10 })).traces.map((trace) => [trace.caseResultId, trace.traceId]);
    assert.deepEqual(await listed("RETRIEVAL_MISS"), [["again", "b".repeat(32)]]);
    assert.deepEqual(await listed("HALLUCINATION"), [["other", "c".repeat(32)]]);
    const column = (await traces.listTraces(range, { after: null, limit: 10 })).traces.map((trace) => [trace.traceId, trace.rootCause]);
    assert.deepEqual(column, [
      ["b".repeat(32), "RETRIEVAL_MISS"],
      // The same start as "again"'s first request: the id decides (descending).
      ["c".repeat(32), "HALLUCINATION"],
      ["a".repeat(32), null],
    ]);
  });
});
