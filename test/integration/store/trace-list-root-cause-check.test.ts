/**
 * The trace list's root-cause filter when more traces than a page meet it in any version: the key query's rows are
 * checked against the cause attributed to each of them (clickhouse-trace-reader.ts newestKeys, the check). The check
 * attributes the rows it is asked about, each a request (its Case Result id, trace and start), as the Failures page
 * counts them (dashboards/source/root-causes.ts attributedRootCauses): the cause the case's reviewers agreed on, else
 * the evaluator's written with that request. A case sent again the same day from another service is two rows; the
 * store keeps one root-cause result of its day, the second request's, so the first request has none of its own.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { CaseResult } from "../../../contracts/case-result.js";
import { newHumanLabel } from "../../../evaluators/judge/calibration/human-label.js";
import { ClickHouseHumanLabelStore } from "../../../store/clickhouse/clickhouse-human-label-store.js";
import { ClickHouseSink } from "../../../store/clickhouse/clickhouse-sink.js";
import { ClickHouseTraceReader } from "../../../store/clickhouse/clickhouse-trace-reader.js";
import type { TraceCursor, TraceFilter, TraceSummary } from "../../../store/ports/trace-reader.js";
import { buildCaseResult } from "../../support/case-results.js";
import { rootCauseResult } from "../../support/root-cause-result.js";
import { temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";

interface Request {
  id: string;
  traceId: string;
  service: string;
  startedAt: string;
  /** The root-cause evaluator's label written with this request (null: none). */
  rootCause: string | null;
}

/** Six failing requests the evaluator attributed to HALLUCINATION, ten minutes apart: more than a page of 1 or 2 asks. */
const OTHERS: Request[] = Array.from({ length: 6 }, (_, index) => ({
  id: `cr_other_${index}`,
  traceId: String(index + 1).repeat(32),
  service: "shop",
  startedAt: new Date(Date.parse("2026-09-14T10:00:00.000Z") + index * 10 * 60_000).toISOString(),
  rootCause: "HALLUCINATION",
}));
/** A case sent again from another service: RETRIEVAL_MISS written with its first request, HALLUCINATION with its second, the same day. */
const SENT_AGAIN: Request[] = [
  { id: "cr_sent_again", traceId: "a".repeat(32), service: "shop", startedAt: "2026-09-14T12:00:00.000Z", rootCause: "RETRIEVAL_MISS" },
  { id: "cr_sent_again", traceId: "b".repeat(32), service: "bank", startedAt: "2026-09-14T12:05:00.000Z", rootCause: "HALLUCINATION" },
];
/**
 * A case sent again whose reviewers agreed on HALLUCINATION on its second request (the newest, the one the review form
 * shows): that request has their cause in place of its evaluator's RETRIEVAL_MISS; the first, reviewed by nobody and
 * without an evaluator's result, has none.
 */
const REVIEWED: Request[] = [
  { id: "cr_reviewed", traceId: "c".repeat(32), service: "shop", startedAt: "2026-09-14T12:10:00.000Z", rootCause: null },
  { id: "cr_reviewed", traceId: "d".repeat(32), service: "bank", startedAt: "2026-09-14T12:15:00.000Z", rootCause: "RETRIEVAL_MISS" },
];

function caseResultOf(request: Request): CaseResult {
  const base = buildCaseResult({ output: `the answer of ${request.traceId.slice(0, 4)}` });
  return {
    ...base,
    case_result_id: request.id,
    trace_id: request.traceId,
    quality_status: "failed",
    started_at: request.startedAt,
    completed_at: request.startedAt,
    rag_observation: { ...base.rag_observation, service_name: request.service, tenant_id: "t1" },
  };
}

/** Every page of the list, following the cursor to its end: each row's request (id, trace, service). */
async function listed(reader: ClickHouseTraceReader, filter: TraceFilter, limit: number): Promise<string[]> {
  const rows: TraceSummary[] = [];
  let after: TraceCursor | null = null;
  for (let page = 0; page < 20; page += 1) {
    const read = await reader.listTraces(filter, { after, limit });
    rows.push(...read.traces);
    if (read.next === null) return rows.map((row) => `${row.caseResultId} ${row.traceId.slice(0, 1)} ${row.serviceName} ${row.rootCause}`);
    after = read.next;
  }
  throw new Error("the list did not end within 20 pages");
}

describe("trace list: a root cause many traces met, the key query's rows checked per request", () => {
  let store: TemporaryStore;

  before(async () => {
    store = await temporaryStore();
    let clock = Date.parse("2026-09-15T00:00:00.000Z");
    const sink = new ClickHouseSink(store.connection, { now: () => clock });
    // One write per request, the sink's clock (the rows' versions) later each time: a second request is written after its first.
    for (const request of [...OTHERS, ...SENT_AGAIN, ...REVIEWED]) {
      const written = await sink.write([{ caseResult: caseResultOf(request), evaluationResults: request.rootCause === null ? [] : [rootCauseResult(request.id, request.rootCause, request.startedAt)] }]);
      assert.ok(written.ok);
      clock += 1_000;
    }
    const labeledAt = "2026-09-15T01:00:00.000Z";
    await new ClickHouseHumanLabelStore(store.connection).save(
      ["alice", "bob"].flatMap((labeler) => [
        newHumanLabel({ case_result_id: "cr_reviewed", trace_id: REVIEWED[1]!.traceId, metric: "faithfulness", labeler_id: labeler, verdict: "fail", labeled_at: labeledAt }),
        newHumanLabel({ case_result_id: "cr_reviewed", trace_id: REVIEWED[1]!.traceId, metric: "root_cause", labeler_id: labeler, verdict: "fail", note: "HALLUCINATION", labeled_at: labeledAt }),
      ]),
    );
  });
  after(() => store.cleanup());

  const hallucination = [
    "cr_reviewed d bank HALLUCINATION",
    "cr_sent_again b bank HALLUCINATION",
    ...[...OTHERS].reverse().map((request) => `${request.id} ${request.traceId.slice(0, 1)} shop HALLUCINATION`),
  ];

  test("each request under its own cause, whatever the page size", async () => {
    const reader = new ClickHouseTraceReader(store.connection);
    // Pages of 1 and 2 read the checked key query (more candidates than the page wants); 50 reads the candidates' rows.
    for (const limit of [1, 2, 50]) assert.deepEqual(await listed(reader, { rootCause: "HALLUCINATION" }, limit), hallucination, `limit ${limit}`);
    for (const limit of [1, 50]) {
      assert.deepEqual(await listed(reader, { rootCause: "RETRIEVAL_MISS" }, limit), [], `limit ${limit}: the first request's result was replaced by the second's, and the reviewers' cause replaces the evaluator's`);
    }
    // The reviewers' cause is of the request they reviewed: the first request of their case has none.
    for (const limit of [1, 50]) assert.deepEqual(await listed(reader, { caseResultId: "cr_reviewed" }, limit), ["cr_reviewed d bank HALLUCINATION", "cr_reviewed c shop null"], `limit ${limit}`);
  });
});
