/**
 * The Failures page's "without a root-cause label" of a case sent again (embedded chDB, the real sink): a harness
 * retried case "again" of a run from a renamed service, so its case_result_id is stored under two sorting keys
 * (migration 0007: tenant, service, day, case_result_id), two requests that both failed, and the root-cause
 * evaluator labelled it RETRIEVAL_MISS. ClickHouseQualityReader.failureBoard counts the failing total by rows (each
 * request, as the quality board does) and each cause by case_result_id (as root_cause_rollups); it subtracted the
 * second from the first, so the retried request read as a failing request without a root-cause label although every
 * failing request here has one. Worked by hand: 3 failing requests (again twice, other once), every one with a cause.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { CaseResult } from "../../../contracts/case-result.js";
import { ClickHouseQualityReader } from "../../../store/clickhouse/clickhouse-quality-reader.js";
import { ClickHouseSink } from "../../../store/clickhouse/clickhouse-sink.js";
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

  test("no failing request is counted as one without a root-cause label when each has one", async () => {
    const board = await new ClickHouseQualityReader(store.connection).failureBoard({ fromMs: Date.parse(MINUTE), toMs: Date.parse(MINUTE) + 60_000, bucketSeconds: 60 });
    assert.equal(board.failing, 3, "both requests of the case sent again fail, and the other one");
    assert.equal(board.withoutRootCause, 0, "every failing request has the evaluator's root cause");
    assert.deepEqual(
      board.groups.filter((group) => group.failing > 0).map((group) => group.rootCause),
      ["HALLUCINATION", "RETRIEVAL_MISS"],
    );
  });
});
