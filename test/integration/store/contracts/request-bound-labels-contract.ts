/**
 * Labels bound to the request they review, on both stores: the trace reader's requests of many cases (each stored
 * request as the list shows it, newest first), the label store's trace_id round trip (a label moved off its request
 * keeps "" and a reviewer's label of a case moves between its requests, one label per case, metric and reviewer), and
 * the final verdict read by the run reader and the trace list, which count a review toward the request it names only.
 *
 * Case cr_twice is sent on 2026-07-08 (request A) and again on 2026-07-09 (request B): two stored requests. Case
 * cr_replaced is sent twice on 2026-07-08 from one service: its second request replaces the first.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { newHumanLabel } from "../../../../evaluators/judge/calibration/human-label.js";
import { buildCaseResult, judgeVerdict } from "../../../support/case-results.js";
import type { StoreFactory, StoreUnderTest } from "./store-under-test.js";

const A = "aa000000000000000000000000000001";
const B = "bb000000000000000000000000000002";
const FIRST = "cc000000000000000000000000000003";
const SECOND = "dd000000000000000000000000000004";

function request(caseResultId: string, caseId: string, traceId: string, startedAt: string) {
  return {
    caseResult: { ...buildCaseResult({ caseId, output: `the answer of ${traceId}` }), case_result_id: caseResultId, run_id: "bound_run", trace_id: traceId, quality_status: "failed" as const, started_at: startedAt, completed_at: startedAt },
    evaluationResults: [{ ...judgeVerdict(caseResultId, "faithfulness", false), evaluated_at: startedAt }],
  };
}

const pass = (caseResultId: string, traceId: string, reviewer: string, labeledAt: string) => newHumanLabel({ case_result_id: caseResultId, trace_id: traceId, metric: "faithfulness", labeler_id: reviewer, verdict: "pass", labeled_at: labeledAt });

export function requestBoundLabelsContract(name: string, factory: StoreFactory): void {
  describe(`labels bound to the request reviewed: ${name}`, () => {
    let subject: StoreUnderTest;
    before(async () => {
      subject = await factory({ now: () => Date.parse("2026-07-10T00:00:00.000Z") });
      for (const written of [
        request("cr_twice", "twice", A, "2026-07-08T09:00:00.000Z"),
        request("cr_twice", "twice", B, "2026-07-09T09:00:00.000Z"),
        request("cr_replaced", "replaced", FIRST, "2026-07-08T09:00:00.000Z"),
        request("cr_replaced", "replaced", SECOND, "2026-07-08T10:00:00.000Z"),
      ]) assert.ok((await subject.store.results.write([written])).ok);
      // alice and bob pass request A of cr_twice and the first request of cr_replaced, before its second was sent.
      await subject.store.humanLabels.save(["alice", "bob"].flatMap((reviewer) => [pass("cr_twice", A, reviewer, "2026-07-08T12:00:00.000Z"), pass("cr_replaced", FIRST, reviewer, "2026-07-08T09:30:00.000Z")]));
      await subject.settle();
    });
    after(() => subject.cleanup());

    test("findRequestsOfCases: every stored request of each case as the list shows it, newest first; an id not stored has no entry", async () => {
      const found = await subject.store.traces.findRequestsOfCases(["cr_twice", "cr_replaced", "cr_nothing"]);
      assert.deepEqual(
        [...found].sort(([first], [second]) => (first < second ? -1 : 1)).map(([id, requests]) => [id, requests.map((located) => [located.traceId, located.startedAt])]),
        [
          ["cr_replaced", [[SECOND, "2026-07-08T10:00:00.000Z"]]],
          [
            "cr_twice",
            [
              [B, "2026-07-09T09:00:00.000Z"],
              [A, "2026-07-08T09:00:00.000Z"],
            ],
          ],
        ],
      );
    });

    test("a review counts toward the request it names: A passed by review, B and cr_replaced's newest request keep their automatic verdict", async () => {
      const listed = await subject.store.traces.listTraces({ runId: "bound_run", verdict: "passed" }, { after: null, limit: 10 });
      assert.deepEqual(listed.traces.map((trace) => [trace.caseResultId, trace.traceId]), [["cr_twice", A]]);
      const failed = await subject.store.traces.listTraces({ runId: "bound_run", verdict: "failed" }, { after: null, limit: 10 });
      assert.deepEqual(failed.traces.map((trace) => [trace.caseResultId, trace.traceId]).sort(), [
        ["cr_replaced", SECOND],
        ["cr_twice", B],
      ]);
      // The run reader reads each case's newest request (B; cr_replaced's second): neither was reviewed.
      const summary = await subject.store.reader.readRunSummary("bound_run");
      assert.deepEqual([summary.cases, summary.passed, summary.failed], [2, 0, 2]);
    });

    test("trace_id round trip: a reviewer's label of a case moves between its requests; one moved off keeps \"\"", async () => {
      await subject.store.humanLabels.save([pass("cr_twice", B, "alice", "2026-07-09T12:00:00.000Z"), { ...pass("cr_replaced", FIRST, "bob", "2026-07-09T12:00:00.000Z"), trace_id: "" }]);
      const labels = await subject.store.humanLabels.list({ caseResultIds: ["cr_twice", "cr_replaced"] });
      assert.deepEqual(
        labels.map((label) => [label.case_result_id, label.labeler_id, label.trace_id]),
        [
          ["cr_replaced", "alice", FIRST],
          ["cr_replaced", "bob", ""],
          ["cr_twice", "alice", B],
          ["cr_twice", "bob", A],
        ],
      );
      await subject.settle();
      const passed = await subject.store.traces.listTraces({ runId: "bound_run", verdict: "passed" }, { after: null, limit: 10 });
      assert.deepEqual(passed.traces, [], "A has bob alone now, B alice alone: neither is decided");
    });
  });
}
