/**
 * The TraceReader contract: newest first, every filter, keyset paging that
 * neither skips nor repeats, one trace with everything stored for it, runs
 * newest first. Expected values are written here from the rows the test
 * stores, not from either implementation.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { CaseResult } from "../../../../contracts/case-result.js";
import type { EvaluationResult } from "../../../../contracts/evaluation-result.js";
import { newHumanLabel } from "../../../../evaluators/judge/calibration/human-label.js";
import { ANONYMOUS_REVIEWER } from "../../../../evaluators/reviewed-verdict.js";
import { UNATTRIBUTED } from "../../../../evaluators/root-cause/root-cause-labels.js";
import { WITHDRAWN_ROOT_CAUSE } from "../../../../ui/review/review-labels.js";
import { buildCase, buildCaseResult } from "../../../support/case-results.js";
import { compareEvaluationResults, cursorOfStartAndId, type TraceCursor, type TraceFilter } from "../../../../store/ports/trace-reader.js";
import { evaluatedRequest } from "../../../support/evaluated-request.js";
import { sendCaseAgain, sendFailingCaseAgain, SAME_DAY } from "./case-sent-again.js";
import type { StoreFactory, StoreUnderTest } from "./store-under-test.js";

interface Seed {
  id: string;
  minute: number;
  service: string;
  tenant: string;
  route: string;
  run: string;
  caseId: string;
  verdict: CaseResult["quality_status"];
  query: string;
  output: string | null;
  rootCause?: string;
}

const SEEDS: Seed[] = [
  { id: "cr_a", minute: 1, service: "shop", tenant: "t1", route: "/ask", run: "run_1", caseId: "case_1", verdict: "passed", query: "How do refunds work?", output: "Refunds take five days." },
  { id: "cr_b", minute: 2, service: "shop", tenant: "t2", route: "/ask", run: "run_1", caseId: "case_2", verdict: "failed", query: "Points after a partial refund?", output: "Points are kept.", rootCause: "RETRIEVAL_MISS" },
  { id: "cr_c", minute: 3, service: "bank", tenant: "t1", route: "/chat", run: "", caseId: "", verdict: "review_required", query: "Opening hours?", output: null },
  { id: "cr_d", minute: 4, service: "shop", tenant: "t1", route: "/chat", run: "run_2", caseId: "case_1", verdict: "failed", query: "Coupon and REFUND together?", output: "No.", rootCause: "HALLUCINATION" },
  // Same start time as cr_d: the id decides the order (descending).
  { id: "cr_e", minute: 4, service: "bank", tenant: "t2", route: "/ask", run: "run_2", caseId: "case_2", verdict: "passed", query: "Card limits?", output: "The limit is 500." },
];

const at = (minute: number) => new Date(Date.parse("2026-07-08T09:00:00.000Z") + minute * 60_000).toISOString();

function caseResultOf(seed: Seed): CaseResult {
  const base = buildCaseResult({ output: seed.output, caseId: seed.caseId, retrieved: [{ chunk_id: `${seed.id}_chunk`, text: "text", score: 0.5 }] });
  return {
    ...base,
    case_result_id: seed.id,
    run_id: seed.run,
    case_version: "v1",
    quality_status: seed.verdict,
    trace_id: `trace_${seed.id}`,
    started_at: at(seed.minute),
    completed_at: at(seed.minute),
    rag_observation: { ...base.rag_observation, query: seed.query, service_name: seed.service, tenant_id: seed.tenant, route: seed.route, latency_ms: seed.minute * 100 },
  };
}

function rootCauseResult(seed: Seed): EvaluationResult[] {
  if (seed.rootCause === undefined) return [];
  return [{ evaluation_result_id: `er_${seed.id}_root`, case_result_id: seed.id, evaluator_id: "root_cause", evaluator_version: "1", metric_values: {}, outcome: "failed", reason: `${seed.rootCause}: stored by the contract`, evidence_refs: [], confidence: { value: 1, semantics: "deterministic_rule" }, review_required: false, error_type: "none", evaluated_at: at(seed.minute) }];
}

function metricResult(seed: Seed): EvaluationResult {
  return { evaluation_result_id: `er_${seed.id}_recall`, case_result_id: seed.id, evaluator_id: "retrieval.recall", evaluator_version: "1", metric_values: { recall_at_5: seed.minute / 10 }, outcome: "measured", reason: "measured", evidence_refs: [], confidence: { value: 1, semantics: "deterministic_rule" }, review_required: false, error_type: "none", evaluated_at: at(seed.minute) };
}

export function traceReaderContract(name: string, factory: StoreFactory): void {
  describe(`TraceReader: ${name}`, () => {
    let subject: StoreUnderTest;
    const ids = async (filter: TraceFilter) => (await subject.store.traces.listTraces(filter, { after: null, limit: 100 })).traces.map((trace) => trace.caseResultId);

    // The store's clock (row versions); the last test moves it forward.
    let clock = Date.parse("2026-07-08T10:00:00.000Z");

    before(async () => {
      subject = await factory({ now: () => clock });
      await subject.store.cases.put([buildCase({ case_id: "case_1", case_version: "v1", dataset_id: "refunds" }), buildCase({ case_id: "case_2", case_version: "v1", dataset_id: "loyalty" })]);
      const result = await subject.store.results.write(SEEDS.map((seed) => ({ caseResult: caseResultOf(seed), evaluationResults: [metricResult(seed), ...rootCauseResult(seed)] })));
      assert.ok(result.ok);
      await subject.store.runs.record({ run_id: "run_1", started_at: at(0), dataset_id: "refunds" });
      await subject.store.runs.record({ run_id: "run_2", started_at: at(3), dataset_id: "refunds" });
    });
    after(() => subject.cleanup());

    test("lists newest first, the id breaking ties, with the summary's fields", async () => {
      const page = await subject.store.traces.listTraces({}, { after: null, limit: 100 });
      assert.deepEqual(page.traces.map((trace) => trace.caseResultId), ["cr_e", "cr_d", "cr_c", "cr_b", "cr_a"]);
      assert.equal(page.next, null);
      const b = page.traces.find((trace) => trace.caseResultId === "cr_b")!;
      assert.deepEqual(b, { caseResultId: "cr_b", traceId: "trace_cr_b", runId: "run_1", caseId: "case_2", datasetId: "loyalty", serviceName: "shop", tenantId: "t2", route: "/ask", qualityStatus: "failed", executionStatus: "completed", errorType: "none", latencyMs: 200, startedAt: at(2), query: "Points after a partial refund?", output: "Points are kept.", rootCause: "RETRIEVAL_MISS" });
      const c = page.traces.find((trace) => trace.caseResultId === "cr_c")!;
      assert.equal(c.output, null, "an answer the trace did not carry stays null");
      assert.equal(c.datasetId, "");
      assert.equal(c.rootCause, null);
    });

    test("every filter selects exactly the matching traces", async () => {
      assert.deepEqual(await ids({ service: "bank" }), ["cr_e", "cr_c"]);
      assert.deepEqual(await ids({ tenant: "t2" }), ["cr_e", "cr_b"]);
      assert.deepEqual(await ids({ route: "/chat" }), ["cr_d", "cr_c"]);
      assert.deepEqual(await ids({ runId: "run_1" }), ["cr_b", "cr_a"]);
      assert.deepEqual(await ids({ datasetId: "refunds" }), ["cr_d", "cr_a"]);
      assert.deepEqual(await ids({ verdict: "failed" }), ["cr_d", "cr_b"]);
      assert.deepEqual(await ids({ rootCause: "HALLUCINATION" }), ["cr_d"]);
      assert.deepEqual(await ids({ fromMs: Date.parse(at(2)), toMs: Date.parse(at(4)) }), ["cr_c", "cr_b"]);
      assert.deepEqual(await ids({ text: "refund" }), ["cr_d", "cr_b", "cr_a"], "query text, any case");
      assert.deepEqual(await ids({ text: "LIMIT IS" }), ["cr_e"], "answer text");
      assert.deepEqual(await ids({ service: "shop", verdict: "failed", tenant: "t1" }), ["cr_d"]);
      assert.deepEqual(await ids({ service: "nobody" }), []);
      // An id (the list's q= when it is one) selects exactly its request, whatever the texts hold.
      assert.deepEqual(await ids({ traceId: "trace_cr_d" }), ["cr_d"]);
      assert.deepEqual(await ids({ traceId: "trace_cr_d", service: "bank" }), [], "with the other filters");
      assert.deepEqual(await ids({ traceId: "trace_cr_missing" }), []);
      assert.deepEqual(await ids({ caseResultId: "cr_b" }), ["cr_b"]);
      assert.deepEqual(await ids({ caseResultId: "cr_b", fromMs: Date.parse(at(3)) }), [], "within the time range");
      // recall_at_5 is minute / 10: a 0.1, b 0.2, c 0.3, d 0.4, e 0.4.
      assert.deepEqual(await ids({ metric: "recall_at_5", below: 0.3 }), ["cr_b", "cr_a"], "strictly below");
      assert.deepEqual(await ids({ metric: "recall_at_5", above: 0.3 }), ["cr_e", "cr_d"], "strictly above");
      assert.deepEqual(await ids({ metric: "recall_at_5", above: 0.15, below: 0.35 }), ["cr_c", "cr_b"]);
      assert.deepEqual(await ids({ metric: "recall_at_5", below: 0.3, service: "shop" }), ["cr_b", "cr_a"]);
      assert.deepEqual(await ids({ metric: "mrr", below: 2 }), [], "a trace without a value of the metric never matches");
    });

    test("the automatic verdict selects what the evaluation said, after a review changed the final verdict", async () => {
      assert.deepEqual(await ids({ automaticVerdict: "review_required" }), ["cr_c"]);
      await subject.store.humanLabels.save([newHumanLabel({ case_result_id: "cr_c", trace_id: "trace_cr_c", metric: "faithfulness", labeler_id: "alice", verdict: "pass", labeled_at: at(5) })]);
      // Two reviewers decide a case (REVIEWERS_PER_CASE): one reviewer's pass leaves the automatic verdict.
      assert.deepEqual(await ids({ verdict: "review_required" }), ["cr_c"], "one reviewer's pass is not the final verdict");
      assert.deepEqual(await ids({ verdict: "passed" }), ["cr_e", "cr_a"]);
      // The anonymous reviewer (the UI without tokens) is no second reviewer, and its fail blocks nobody's agreement.
      await subject.store.humanLabels.save([newHumanLabel({ case_result_id: "cr_c", trace_id: "trace_cr_c", metric: "faithfulness", labeler_id: ANONYMOUS_REVIEWER, verdict: "fail", labeled_at: at(5) })]);
      assert.deepEqual(await ids({ verdict: "review_required" }), ["cr_c"], "one reviewer and the anonymous one decide nothing");
      await subject.store.humanLabels.save([newHumanLabel({ case_result_id: "cr_c", trace_id: "trace_cr_c", metric: "faithfulness", labeler_id: "bob", verdict: "pass", labeled_at: at(5) })]);
      assert.deepEqual(await ids({ verdict: "review_required" }), [], "two agreeing reviewers' pass is the final verdict");
      assert.deepEqual(await ids({ verdict: "passed" }), ["cr_e", "cr_c", "cr_a"]);
      assert.deepEqual(await ids({ automaticVerdict: "review_required" }), ["cr_c"], "still routed to review: the queue keeps it");
      assert.deepEqual(await ids({ automaticVerdict: "review_required", verdict: "passed" }), ["cr_c"]);
      assert.deepEqual(await ids({ automaticVerdict: "passed", service: "bank" }), ["cr_e"]);
    });

    // After the verdict test (its labels on cr_c are no root causes). The Failures board counts a request under the
    // cause two or more of its reviewers chose alike, else the evaluator's (dashboards/source/root-causes.ts); the
    // list's filter and column must give the same, or its "show the traces" link lists another number.
    test("the root cause is the one the reviewers agreed on, else the evaluator's, in the filter and the column", async () => {
      const chooses = (caseResultId: string, labelerId: string, cause: string, minute: number) =>
        subject.store.humanLabels.save([newHumanLabel({ case_result_id: caseResultId, trace_id: `trace_${caseResultId}`, metric: "root_cause", labeler_id: labelerId, verdict: "fail", note: cause, labeled_at: at(minute) })]);
      const causes = async () => new Map((await subject.store.traces.listTraces({}, { after: null, limit: 100 })).traces.map((trace) => [trace.caseResultId, trace.rootCause]));
      // The seeds: cr_b's evaluator said RETRIEVAL_MISS, cr_d's HALLUCINATION; the others have no root cause.
      assert.deepEqual(await ids({ rootCause: "RETRIEVAL_MISS" }), ["cr_b"]);

      await chooses("cr_b", "alice", "HALLUCINATION", 10);
      assert.deepEqual(await ids({ rootCause: "HALLUCINATION" }), ["cr_d"], "one reviewer alone decides nothing");
      await chooses("cr_b", ANONYMOUS_REVIEWER, "HALLUCINATION", 10);
      assert.deepEqual(await ids({ rootCause: "HALLUCINATION" }), ["cr_d"], "nor with the anonymous reviewer");
      assert.deepEqual(await ids({ rootCause: "RETRIEVAL_MISS" }), ["cr_b"]);
      await chooses("cr_b", "bob", "CITATION_ERROR", 11);
      assert.deepEqual(await ids({ rootCause: "RETRIEVAL_MISS" }), ["cr_b"], "two reviewers who disagree decide nothing");
      assert.deepEqual(await ids({ rootCause: "CITATION_ERROR" }), []);
      assert.equal((await causes()).get("cr_b"), "RETRIEVAL_MISS");

      // Bob relabels: his newest choice is his, and now both chose HALLUCINATION.
      await chooses("cr_b", "bob", "HALLUCINATION", 12);
      assert.deepEqual(await ids({ rootCause: "HALLUCINATION" }), ["cr_d", "cr_b"], "the reviewers' agreed cause replaces the evaluator's");
      assert.deepEqual(await ids({ rootCause: "RETRIEVAL_MISS" }), [], "the evaluator's cause no longer selects it");
      assert.deepEqual(await ids({ rootCause: "CITATION_ERROR" }), [], "bob's earlier choice is not his");
      assert.deepEqual(await ids({ rootCause: "HALLUCINATION", verdict: "failed" }), ["cr_d", "cr_b"], "the Failures board's link: failing requests under the cause");
      assert.deepEqual(await ids({ rootCause: "HALLUCINATION", service: "shop", tenant: "t2" }), ["cr_b"]);

      // Reviewers agreeing on a cause the evaluator never gave (cr_e passed automatically: it has none).
      await chooses("cr_e", "alice", "CITATION_ERROR", 13);
      await chooses("cr_e", "carol", "CITATION_ERROR", 13);
      assert.deepEqual(await ids({ rootCause: "CITATION_ERROR" }), ["cr_e"]);
      assert.deepEqual(Object.fromEntries(await causes()), { cr_a: null, cr_b: "HALLUCINATION", cr_c: null, cr_d: "HALLUCINATION", cr_e: "CITATION_ERROR" });

      // More requests named by some reviewer than the page wants (one reviewer each: no agreement), as many as the
      // ClickHouse adapter reads to check (twice the page, newestKeys): none of them is RETRIEVAL_MISS's, and the
      // page is not filled with them.
      await chooses("cr_a", "alice", "RETRIEVAL_MISS", 14);
      await chooses("cr_c", "alice", "RETRIEVAL_MISS", 14);
      await chooses("cr_d", "dave", "RETRIEVAL_MISS", 14);
      const none = await subject.store.traces.listTraces({ rootCause: "RETRIEVAL_MISS" }, { after: null, limit: 1 });
      assert.deepEqual(none, { traces: [], next: null });
      // Keyset pages under the filter: each trace once, in order.
      const first = await subject.store.traces.listTraces({ rootCause: "HALLUCINATION" }, { after: null, limit: 1 });
      assert.deepEqual([first.traces.map((trace) => [trace.caseResultId, trace.rootCause]), first.next], [[["cr_d", "HALLUCINATION"]], { startedAtMs: Date.parse(at(4)), caseResultId: "cr_d", traceId: "trace_cr_d", tenantId: "t1", serviceName: "shop" }]);
      const second = await subject.store.traces.listTraces({ rootCause: "HALLUCINATION" }, { after: first.next, limit: 1 });
      assert.deepEqual([second.traces.map((trace) => [trace.caseResultId, trace.rootCause]), second.next], [[["cr_b", "HALLUCINATION"]], null]);

      // Alice withdraws her cause ("none" on the form): bob alone chose it, so cr_b is the evaluator's again.
      await subject.store.humanLabels.save([newHumanLabel({ case_result_id: "cr_b", trace_id: "trace_cr_b", metric: "root_cause", labeler_id: "alice", ...WITHDRAWN_ROOT_CAUSE, labeled_at: at(15) })]);
      assert.deepEqual(await ids({ rootCause: "HALLUCINATION" }), ["cr_d"], "a withdrawn cause is no choice");
      assert.deepEqual(await ids({ rootCause: "RETRIEVAL_MISS" }), ["cr_b"]);
      assert.equal((await causes()).get("cr_b"), "RETRIEVAL_MISS");
    });

    test("keyset pages cover every trace once, in order, also across equal start times", async () => {
      const seen: string[] = [];
      let after: TraceCursor | null = null;
      let pages = 0;
      do {
        const page = await subject.store.traces.listTraces({}, { after, limit: 2 });
        seen.push(...page.traces.map((trace) => trace.caseResultId));
        after = page.next;
        pages += 1;
      } while (after !== null && pages < 10);
      assert.deepEqual(seen, ["cr_e", "cr_d", "cr_c", "cr_b", "cr_a"]);
      assert.equal(pages, 3);
      const filtered = await subject.store.traces.listTraces({ service: "shop" }, { after: { startedAtMs: Date.parse(at(4)), caseResultId: "cr_d", traceId: "trace_cr_d", tenantId: "t1", serviceName: "shop" }, limit: 1 });
      assert.deepEqual(filtered.traces.map((trace) => trace.caseResultId), ["cr_b"]);
      assert.deepEqual(filtered.next, { startedAtMs: Date.parse(at(2)), caseResultId: "cr_b", traceId: "trace_cr_b", tenantId: "t2", serviceName: "shop" });
    });

    test("one trace comes back as stored, with its Evaluation Results and its Eval Case", async () => {
      const detail = await subject.store.traces.readTrace("cr_d");
      assert.ok(detail !== null);
      assert.deepEqual(detail.caseResult, caseResultOf(SEEDS[3]!));
      assert.deepEqual(detail.evaluationResults.map((result) => result.evaluator_id), ["retrieval.recall", "root_cause"]);
      assert.deepEqual(detail.evaluationResults[0]!.metric_values, { recall_at_5: 0.4 });
      assert.equal(detail.evalCase?.dataset_id, "refunds");
      assert.equal(detail.datasetId, "refunds");
      assert.equal(await subject.store.traces.readTrace("cr_missing"), null);
    });

    test("a trace id finds its stored request, where it opens, under the reader's scope", async () => {
      assert.deepEqual(await subject.store.traces.findByTraceId("trace_cr_b", 10), [{ caseResultId: "cr_b", traceId: "trace_cr_b", tenantId: "t2", serviceName: "shop", startedAt: at(2) }]);
      assert.deepEqual(await subject.store.traces.findByTraceId("trace_cr_missing", 10), []);
      assert.deepEqual(await subject.store.traces.findByTraceId("cr_b", 10), [], "a case result id is no trace id");
      assert.equal((await subject.store.traces.readTrace("cr_b", { traceId: "trace_cr_b" }))?.caseResult.trace_id, "trace_cr_b", "it opens there");
      // The ClickHouse adapter's reader for tenant t1 finds only t1's: cr_a, not t2's cr_b, by either lookup.
      const scoped = (subject.store as { scoped?: (scope: readonly string[]) => { traces: typeof subject.store.traces } }).scoped;
      if (scoped !== undefined) {
        const ofTenant = scoped.call(subject.store, ["t1"]).traces;
        assert.deepEqual(await ofTenant.findByTraceId("trace_cr_b", 10), [], "another tenant's trace id");
        assert.deepEqual((await ofTenant.listTraces({ traceId: "trace_cr_b" }, { after: null, limit: 10 })).traces, []);
        assert.deepEqual((await ofTenant.listTraces({ caseResultId: "cr_b" }, { after: null, limit: 10 })).traces, []);
        assert.deepEqual((await ofTenant.findByTraceId("trace_cr_a", 10)).map((found) => found.caseResultId), ["cr_a"]);
        assert.deepEqual((await ofTenant.listTraces({ traceId: "trace_cr_a" }, { after: null, limit: 10 })).traces.map((trace) => trace.caseResultId), ["cr_a"]);
      }
    });

    test("runs newest first, bounded", async () => {
      assert.deepEqual((await subject.store.traces.listRuns(10)).map((run) => run.runId), ["run_2", "run_1"]);
      assert.deepEqual((await subject.store.traces.listRuns(1)).map((run) => run.runId), ["run_2"]);
    });

    // Near the end: it stores one more Case Result (cr_f, no Evaluation Results), which the tests above do not expect.
    test("Evaluation Results of many traces at once: each id's as its trace read gives them, across slices of ids, the scope applied", async () => {
      const written = await subject.store.results.write([{ caseResult: caseResultOf({ ...SEEDS[0]!, id: "cr_f", minute: 5 }), evaluationResults: [] }]);
      assert.ok(written.ok);
      // cr_d lands in a second slice: BULK_READ_IDS (1,000) ids are read per query, and 1,200 ids that are not stored come before it.
      const missing = Array.from({ length: 1200 }, (_, index) => `cr_missing_${index}`);
      const found = await subject.store.traces.readEvaluationResults(["cr_b", "cr_c", "cr_b", ...missing, "cr_f", "cr_d"]);
      // From the seeds: cr_b (minute 2) has recall 0.2 and the root cause RETRIEVAL_MISS; "retrieval.recall" sorts
      // before "root_cause". cr_c (minute 3) has recall 0.3 only; cr_d (minute 4) recall 0.4 and HALLUCINATION. cr_f is
      // stored without results; the missing ids are not in the map.
      assert.deepEqual([...found.keys()].sort(), ["cr_b", "cr_c", "cr_d", "cr_f"]);
      const b = SEEDS[1]!;
      assert.deepEqual(found.get("cr_b"), [metricResult(b), ...rootCauseResult(b)]);
      assert.deepEqual(found.get("cr_b")!.map((result) => [result.evaluator_id, result.metric_values.recall_at_5 ?? null]), [["retrieval.recall", 0.2], ["root_cause", null]]);
      assert.deepEqual(found.get("cr_c"), [metricResult(SEEDS[2]!)]);
      assert.deepEqual(found.get("cr_d")!.map((result) => result.evaluation_result_id), ["er_cr_d_recall", "er_cr_d_root"]);
      assert.deepEqual(found.get("cr_f"), []);
      // The same rows a trace read gives, id by id.
      for (const id of ["cr_b", "cr_c", "cr_d", "cr_f"]) assert.deepEqual(found.get(id), (await subject.store.traces.readTrace(id))!.evaluationResults, id);
      assert.deepEqual(await subject.store.traces.readEvaluationResults([]), new Map());
      // The ClickHouse adapter's reader for tenant t1 reads only t1's: cr_a and cr_c, not t2's cr_b and cr_e. (The
      // in-memory store has no scoped readers: the UI refuses a tenant-limited token on it.)
      const scoped = (subject.store as { scoped?: (scope: readonly string[]) => { traces: typeof subject.store.traces } }).scoped;
      if (scoped !== undefined) {
        const ofTenant = await scoped.call(subject.store, ["t1"]).traces.readEvaluationResults(["cr_a", "cr_b", "cr_c", "cr_e"]);
        assert.deepEqual([...ofTenant.keys()].sort(), ["cr_a", "cr_c"]);
        assert.deepEqual(ofTenant.get("cr_a"), [metricResult(SEEDS[0]!)]);
      }
    });

    // Last: it writes two requests of one case (run run_resent), which the tests above do not expect.
    test("a case of a run sent again from another day and service is listed as each request, and each request's trace opens its own", async () => {
      // A harness retrying a case after midnight UTC from a renamed service: the same run and case ids give the same
      // case_result_id (contracts/ids.ts), but the second request has its own trace, start and service. Dashboards
      // count both requests, and the list shows both; the run counts the case once (run-reader-contract.ts).
      const resent = subject;
      const ofRun = { runId: "run_resent" };
      try {
        const { first, second } = await sendCaseAgain(resent, (milliseconds) => (clock += milliseconds), "t1");
        assert.ok(first.evaluationResults.length > 0);
        assert.notDeepEqual(first.evaluationResults, second.evaluationResults, "each request's evaluations are told apart by their time");

        const listed = (await resent.store.traces.listTraces(ofRun, { after: null, limit: 10 })).traces;
        assert.deepEqual(
          listed.map((trace) => [trace.caseResultId, trace.traceId, trace.serviceName, trace.startedAt, trace.output]),
          [
            ["cr_resent", "b".repeat(32), "support-bot-v2", "2026-07-08T00:01:00.000Z", "the second answer"],
            ["cr_resent", "a".repeat(32), "support-bot", "2026-07-07T23:59:00.000Z", "the first answer"],
          ],
          "each request, newest first, with its own trace, service, time and answer",
        );
        assert.deepEqual((await resent.store.traces.listTraces({ ...ofRun, service: "support-bot" }, { after: null, limit: 10 })).traces.map((trace) => trace.traceId), ["a".repeat(32)]);
        // Keyset pages of one request each: both requests, once each.
        const page = await resent.store.traces.listTraces(ofRun, { after: null, limit: 1 });
        assert.deepEqual([page.traces.map((trace) => trace.traceId), page.next], [["b".repeat(32)], { startedAtMs: Date.parse("2026-07-08T00:01:00.000Z"), caseResultId: "cr_resent", traceId: "b".repeat(32), tenantId: "t1", serviceName: "support-bot-v2" }]);
        const next = await resent.store.traces.listTraces(ofRun, { after: page.next, limit: 1 });
        assert.deepEqual([next.traces.map((trace) => trace.traceId), next.next], [["a".repeat(32)], null]);

        // The id alone opens the newest request; with its trace id, each request opens its own, with its own evaluations.
        const newest = await resent.store.traces.readTrace("cr_resent");
        assert.deepEqual([newest?.caseResult.trace_id, newest?.caseResult.output], ["b".repeat(32), "the second answer"]);
        const ofFirst = await resent.store.traces.readTrace("cr_resent", { traceId: "a".repeat(32) });
        assert.deepEqual(ofFirst?.caseResult, first.caseResult);
        // The same evaluation ids (an id's evaluator's result), evaluated at each request's own time.
        assert.deepEqual(ofFirst!.evaluationResults, [...first.evaluationResults].sort(compareEvaluationResults));
        const ofSecond = await resent.store.traces.readTrace("cr_resent", { traceId: "b".repeat(32) });
        assert.deepEqual(ofSecond?.caseResult, second.caseResult);
        assert.deepEqual(ofSecond!.evaluationResults, [...second.evaluationResults].sort(compareEvaluationResults));
        assert.deepEqual(newest!.evaluationResults, ofSecond!.evaluationResults);
        assert.equal(await resent.store.traces.readTrace("cr_resent", { traceId: "c".repeat(32) }), null, "a trace id the case was not sent with");
        // Each request's trace id finds that request (its service and start), and the list selects it alone.
        assert.deepEqual(await resent.store.traces.findByTraceId("a".repeat(32), 10), [{ caseResultId: "cr_resent", traceId: "a".repeat(32), tenantId: "t1", serviceName: "support-bot", startedAt: "2026-07-07T23:59:00.000Z" }]);
        assert.deepEqual(await resent.store.traces.findByTraceId("b".repeat(32), 10), [{ caseResultId: "cr_resent", traceId: "b".repeat(32), tenantId: "t1", serviceName: "support-bot-v2", startedAt: "2026-07-08T00:01:00.000Z" }]);
        assert.deepEqual((await resent.store.traces.listTraces({ traceId: "a".repeat(32) }, { after: null, limit: 10 })).traces.map((trace) => [trace.caseResultId, trace.serviceName]), [["cr_resent", "support-bot"]]);
        assert.deepEqual((await resent.store.traces.listTraces({ caseResultId: "cr_resent" }, { after: null, limit: 10 })).traces.map((trace) => trace.traceId), ["b".repeat(32), "a".repeat(32)], "a case result id lists each of its requests");
        // A label import binds its lines to these: every request of each case, newest first; an id not stored has none.
        assert.deepEqual(Object.fromEntries(await resent.store.traces.findRequestsOfCases(["cr_resent", "cr_not_stored"])), {
          cr_resent: [
            { caseResultId: "cr_resent", traceId: "b".repeat(32), tenantId: "t1", serviceName: "support-bot-v2", startedAt: "2026-07-08T00:01:00.000Z" },
            { caseResultId: "cr_resent", traceId: "a".repeat(32), tenantId: "t1", serviceName: "support-bot", startedAt: "2026-07-07T23:59:00.000Z" },
          ],
        });
        // Many ids at once read each id's as readTrace does: the newest request's.
        assert.deepEqual((await resent.store.traces.readEvaluationResults(["cr_resent"])).get("cr_resent"), newest!.evaluationResults);
      } finally {
        clock = Date.parse("2026-07-08T10:00:00.000Z");
      }
    });

    // After the case sent again above (its own run, traces and ids). The Failures page's bar links to the trace list
    // under its cause and the verdict failed (ui/README.md): the bar counts the rows that list shows.
    test("a failing case sent again is two failing requests under its cause, on the Failures board as in the trace list", async () => {
      try {
        await sendFailingCaseAgain(subject, (milliseconds) => {
          clock += milliseconds;
        }, "t1", "CITATION_ERROR");
        const range = { fromMs: Date.parse("2026-07-07T23:59:00.000Z"), toMs: Date.parse("2026-07-08T00:02:00.000Z") };
        const listed = (await subject.store.traces.listTraces({ runId: "run_resent_failing", rootCause: "CITATION_ERROR", verdict: "failed", ...range }, { after: null, limit: 10 })).traces;
        assert.deepEqual(
          listed.map((trace) => [trace.traceId, trace.serviceName, trace.rootCause]),
          [
            ["d".repeat(32), "support-bot-v2", "CITATION_ERROR"],
            ["c".repeat(32), "support-bot", "CITATION_ERROR"],
          ],
          "each failing request under its own evaluator's cause",
        );
        // Only the ClickHouse adapter has a quality reader (store/ports/quality-reader.ts).
        if (subject.store.quality === undefined) return;
        const board = await subject.store.quality.failureBoard({ ...range, bucketSeconds: 60, runId: "run_resent_failing" });
        const group = board.groups.find((candidate) => candidate.rootCause === "CITATION_ERROR")!;
        assert.deepEqual(
          { failing: board.failing, withoutRootCause: board.withoutRootCause, group: group.failing, overTime: group.overTime },
          { failing: 2, withoutRootCause: 0, group: 2, overTime: [1, 0, 1] },
          "each request in its own minute (23:59, 00:01)",
        );
        assert.equal(group.failing, listed.length, "the bar counts the rows its link lists");
      } finally {
        clock = Date.parse("2026-07-08T10:00:00.000Z");
      }
    });

    test("a failing case sent again the same day: the first request, whose stored cause the second's replaced, is listed without one", async () => {
      // The first request's rows stay stored beside the second's until a merge: readers must answer as FINAL does.
      await subject.holdMerges("evaluation_results", true);
      try {
        const { first, second } = await sendFailingCaseAgain(subject, (milliseconds) => {
          clock += milliseconds;
        }, "t1", "CONTEXT_TRUNCATED", SAME_DAY);
        // Each Evaluation Result id is its case's and evaluator's (contracts/ids.ts) and evaluation_results keeps one
        // row per evaluator, day and id: the second request's rows replaced every one of the first's, so the first
        // request opens with no Evaluation Results, not with the replaced ones; the second with its own.
        assert.deepEqual(new Set(first.evaluationResults.map((result) => result.evaluation_result_id)), new Set(second.evaluationResults.map((result) => result.evaluation_result_id)));
        const ofFirst = await subject.store.traces.readTrace(SAME_DAY.caseResultId, { traceId: SAME_DAY.traceIds[0] });
        assert.deepEqual(ofFirst?.caseResult, first.caseResult);
        assert.deepEqual(ofFirst.evaluationResults, [], "the replaced rows are not the first request's");
        const ofSecond = await subject.store.traces.readTrace(SAME_DAY.caseResultId, { traceId: SAME_DAY.traceIds[1] });
        assert.deepEqual(ofSecond?.evaluationResults, [...second.evaluationResults].sort(compareEvaluationResults));
        assert.deepEqual((await subject.store.traces.readEvaluationResults([SAME_DAY.caseResultId])).get(SAME_DAY.caseResultId), ofSecond.evaluationResults, "many ids at once: the newest request's");
        const range = { fromMs: Date.parse(SAME_DAY.startedAt[0]), toMs: Date.parse(SAME_DAY.startedAt[1]) + 60_000 };
        const ofRun = { runId: SAME_DAY.runId, ...range };
        const listed = async (filter: TraceFilter) => (await subject.store.traces.listTraces({ ...ofRun, ...filter }, { after: null, limit: 10 })).traces.map((trace) => [trace.traceId, trace.rootCause]);
        assert.deepEqual(await listed({}), [
          [SAME_DAY.traceIds[1], "CONTEXT_TRUNCATED"],
          [SAME_DAY.traceIds[0], null],
        ]);
        assert.deepEqual(await listed({ rootCause: "CONTEXT_TRUNCATED", verdict: "failed" }), [[SAME_DAY.traceIds[1], "CONTEXT_TRUNCATED"]]);
        if (subject.store.quality === undefined) return;
        const board = await subject.store.quality.failureBoard({ ...range, bucketSeconds: 60, runId: SAME_DAY.runId });
        const group = board.groups.find((candidate) => candidate.rootCause === "CONTEXT_TRUNCATED")!;
        assert.deepEqual({ failing: board.failing, withoutRootCause: board.withoutRootCause, group: group.failing, overTime: group.overTime }, { failing: 2, withoutRootCause: 1, group: 1, overTime: [0, 1] });
      } finally {
        clock = Date.parse("2026-07-08T10:00:00.000Z");
        await subject.holdMerges("evaluation_results", false);
      }
    });

    // The Failures page counts the failing requests whose cause is none of the labels "without a root-cause label" and
    // links that count to the list under root_cause=UNATTRIBUTED (ui/pages/failures-page.ts): the list must hold as
    // many, whichever way a request came to have no label. Its own run and minutes, apart from the seeds above.
    test("root cause UNATTRIBUTED lists the failing requests no label explains, as many as the Failures board counts without one", async () => {
      const run = "run_unattributed";
      const stored = (id: string, minute: number, verdict: CaseResult["quality_status"], reason: string | null) => {
        const seed: Seed = { ...SEEDS[0]!, id, minute, run, verdict };
        const evaluationResults = reason === null ? [] : rootCauseResult({ ...seed, rootCause: "UNUSED" }).map((result) => ({ ...result, reason }));
        return { caseResult: caseResultOf(seed), evaluationResults };
      };
      const written = await subject.store.results.write([
        stored("cr_u_label", 30, "failed", "RETRIEVAL_MISS: gold evidence not retrieved"),
        stored("cr_u_marked", 31, "failed", "UNATTRIBUTED: no step found a cause"),
        stored("cr_u_none", 32, "failed", null),
        stored("cr_u_newer", 33, "failed", "NEWER_EVALUATOR_LABEL: a name this release does not know"),
        stored("cr_u_passed", 34, "passed", null),
        stored("cr_u_pending", 35, "review_required", "UNATTRIBUTED: no step found a cause"),
        stored("cr_u_reviewed", 36, "failed", "UNATTRIBUTED: no step found a cause"),
      ]);
      assert.ok(written.ok);
      const range = { runId: run, fromMs: Date.parse(at(30)), toMs: Date.parse(at(40)) };
      const unattributed = async (filter: TraceFilter = {}) => (await subject.store.traces.listTraces({ ...range, rootCause: UNATTRIBUTED, ...filter }, { after: null, limit: 10 })).traces.map((trace) => [trace.caseResultId, trace.rootCause]);
      const withoutRootCause = async () => (subject.store.quality === undefined ? null : (await subject.store.quality.failureBoard({ fromMs: range.fromMs, toMs: range.toMs, bucketSeconds: 60, runId: run })).withoutRootCause);
      const label = (caseResultId: string, labelerId: string, metric: string, note: string) => newHumanLabel({ case_result_id: caseResultId, trace_id: `trace_${caseResultId}`, metric, labeler_id: labelerId, verdict: "fail", note, labeled_at: at(37) });

      const expected = [
        ["cr_u_reviewed", "UNATTRIBUTED"],
        ["cr_u_newer", "NEWER_EVALUATOR_LABEL"],
        ["cr_u_none", null],
        ["cr_u_marked", "UNATTRIBUTED"],
      ];
      assert.deepEqual(await unattributed(), expected, "failing, and no label: the evaluator's UNATTRIBUTED, no cause at all, a name no label has");
      assert.deepEqual(await unattributed({ verdict: "failed" }), expected, "the Failures page's link names the verdict too");
      assert.deepEqual(await unattributed({ verdict: "passed" }), [], "no passing request is a failure without a label");
      if (subject.store.quality !== undefined) assert.equal(await withoutRootCause(), expected.length, "the board counts the rows the list shows");
      // Keyset pages under the filter: each once, in order.
      const first = await subject.store.traces.listTraces({ ...range, rootCause: UNATTRIBUTED }, { after: null, limit: 3 });
      const second = await subject.store.traces.listTraces({ ...range, rootCause: UNATTRIBUTED }, { after: first.next, limit: 3 });
      assert.deepEqual([...first.traces, ...second.traces].map((trace) => trace.caseResultId), expected.map(([id]) => id));
      assert.equal(second.next, null);

      // Two reviewers fail the pending case without a cause: it is failing, still without a label. Two agree on a label
      // for the evaluator's UNATTRIBUTED case: it is that label's.
      await subject.store.humanLabels.save([label("cr_u_pending", "alice", "faithfulness", ""), label("cr_u_pending", "bob", "faithfulness", "")]);
      await subject.store.humanLabels.save([label("cr_u_reviewed", "alice", "root_cause", "HALLUCINATION"), label("cr_u_reviewed", "bob", "root_cause", "HALLUCINATION")]);
      const reviewed = [["cr_u_pending", "UNATTRIBUTED"], ...expected.slice(1)];
      assert.deepEqual(await unattributed(), reviewed);
      assert.deepEqual(await ids({ ...range, rootCause: "HALLUCINATION" }), ["cr_u_reviewed"]);
      if (subject.store.quality !== undefined) assert.equal(await withoutRootCause(), reviewed.length);
    });

    // Last: it rewrites cr_c and stores cr_g and cr_h, which the tests above do not expect.
    test("a trace id two tenants sent finds both requests, newest first, and a request replaced under a new trace id no longer answers the old one", async () => {
      try {
        const sent = (seed: Seed, traceId: string) => ({ caseResult: { ...caseResultOf(seed), trace_id: traceId }, evaluationResults: [] });
        const shared = "5".repeat(32);
        assert.ok((await subject.store.results.write([sent({ ...SEEDS[0]!, id: "cr_g", minute: 6, tenant: "t1" }, shared), sent({ ...SEEDS[0]!, id: "cr_h", minute: 7, tenant: "t2" }, shared)])).ok);
        assert.deepEqual(
          (await subject.store.traces.findByTraceId(shared, 10)).map((found) => [found.caseResultId, found.tenantId, found.startedAt]),
          [
            ["cr_h", "t2", at(7)],
            ["cr_g", "t1", at(6)],
          ],
        );
        assert.deepEqual((await subject.store.traces.findByTraceId(shared, 1)).map((found) => found.caseResultId), ["cr_h"], "at most the limit, the newest");
        assert.deepEqual(await ids({ traceId: shared }), ["cr_h", "cr_g"]);
        const scoped = (subject.store as { scoped?: (scope: readonly string[]) => { traces: typeof subject.store.traces } }).scoped;
        if (scoped !== undefined) assert.deepEqual((await scoped.call(subject.store, ["t1"]).traces.findByTraceId(shared, 10)).map((found) => found.caseResultId), ["cr_g"]);

        // cr_c written again at the same start, tenant and service (the same row key) with another trace id, later:
        // the newer version replaces it, as the list shows it.
        clock += 120_000;
        assert.ok((await subject.store.results.write([sent(SEEDS[2]!, "6".repeat(32))])).ok);
        await subject.settle();
        assert.deepEqual(await subject.store.traces.findByTraceId("trace_cr_c", 10), [], "the replaced trace id");
        assert.deepEqual(await ids({ traceId: "trace_cr_c" }), []);
        assert.deepEqual((await subject.store.traces.findByTraceId("6".repeat(32), 10)).map((found) => found.caseResultId), ["cr_c"]);
        assert.deepEqual(await ids({ traceId: "6".repeat(32) }), ["cr_c"]);
      } finally {
        clock = Date.parse("2026-07-08T10:00:00.000Z");
      }
    });

    // After every test above (its own run, ids and traces). A harness sends a case again at once from the renamed
    // service, in the same millisecond, and the collector rebuilds a result without a tenant from a partial trace of
    // the second request (its trace, start and service): three rows of one Case Result id and start, each a row of the
    // list (keyed by tenant, service, day and id). By the start and id alone they tie, and a page that ended on one of
    // them went on after all three.
    test("rows of one Case Result id at the same start page one by one, each once, in one order; a cursor of start and id alone reads as before", async () => {
      const startedAt = "2026-07-08T09:50:00.000Z";
      const request = (caseResultId: string, traceId: string, at: string, service: string, tenant: string | null) =>
        evaluatedRequest({ runId: "run_same_start", caseResultId, caseId: `case_${caseResultId}`, traceId, startedAt: at, service, tenant, partial: tenant === null, output: `the answer of ${service}` });
      const [first, second] = ["7".repeat(32), "8".repeat(32)];
      assert.ok((await subject.store.results.write([request("cr_before_same_start", "9".repeat(32), "2026-07-08T09:49:00.000Z", "support-bot", "t1")])).ok);
      assert.ok((await subject.store.results.write([request("cr_same_start", first, startedAt, "support-bot", "t1")])).ok);
      assert.ok((await subject.store.results.write([request("cr_same_start", second, startedAt, "support-bot-v2", "t1")])).ok);
      assert.ok((await subject.store.results.write([request("cr_same_start", second, startedAt, "support-bot-v2", null)])).ok);
      await subject.settle();
      const ofRun = { runId: "run_same_start" };
      const rowOf = (trace: { caseResultId: string; traceId: string; tenantId: string; serviceName: string }) => [trace.caseResultId, trace.traceId, trace.tenantId, trace.serviceName];
      // Newest first; at the same start the id, then the trace id, tenant and service, each descending.
      const expected = [
        ["cr_same_start", second, "t1", "support-bot-v2"],
        ["cr_same_start", second, "", "support-bot-v2"],
        ["cr_same_start", first, "t1", "support-bot"],
        ["cr_before_same_start", "9".repeat(32), "t1", "support-bot"],
      ];
      const pages: string[][][] = [];
      const cursors: (TraceCursor | null)[] = [];
      let after: TraceCursor | null = null;
      do {
        const page = await subject.store.traces.listTraces(ofRun, { after, limit: 1 });
        pages.push(page.traces.map(rowOf));
        cursors.push(page.next);
        after = page.next;
      } while (after !== null && pages.length < 10);
      const sorted = (rows: string[][]) => rows.map((row) => JSON.stringify(row)).sort();
      assert.deepEqual(sorted(pages.flat()), sorted(expected), "the pages together hold every row, each once");
      assert.deepEqual(pages, expected.map((row) => [row]), "one row a page, in the list's order");
      assert.deepEqual((await subject.store.traces.listTraces(ofRun, { after: null, limit: 10 })).traces.map(rowOf), expected, "one page holds them in the same order");
      assert.deepEqual(cursors[0], { startedAtMs: Date.parse(startedAt), caseResultId: "cr_same_start", traceId: second, tenantId: "t1", serviceName: "support-bot-v2" });
      assert.equal(cursors[3], null);

      // A "next" link given out before the cursor named the row's trace, tenant and service: the rows older than its
      // start and id, as it was read then.
      assert.deepEqual((await subject.store.traces.listTraces(ofRun, { after: cursorOfStartAndId(Date.parse(startedAt), "cr_same_start"), limit: 10 })).traces.map(rowOf), [expected[3]]);
    });

    // After every test above (its own run, ids, traces and day). Here the store's clock stands still for the batch, as
    // a collector's does for a batch it evaluates within one millisecond. Which row is the newest must then not depend
    // on how the engine happens to read or merge them: of one row key (tenant, service, day, id), the one written last
    // (as FINAL keeps it, and the in-memory store); of one id's rows under different keys (a case sent again from a
    // renamed service, in the same batch), the one written last too, each of an id's requests in a write taking a
    // version of its own in the order they arrived (store/row-version-clock.ts) — not the one the list shows first
    // (the later start), which the two rows' one version made it before. The rows are written so that the list's
    // order disagrees with the write's, and neither is the batch's first row.
    test("rows one batch writes: every read answers with the same row, the one written last, in both stores", async () => {
      const request = (caseResultId: string, traceId: string, startedAt: string, service: string) =>
        evaluatedRequest({ runId: "run_one_version", caseResultId, caseId: `case_${caseResultId}`, traceId, startedAt, service, tenant: "t1", output: `the answer of ${traceId.slice(0, 4)}` });
      // One row key: the later start and the greater trace id first, then the row that replaces it (written last).
      const replaced = request("cr_one_key", "4".repeat(32), "2026-07-06T09:31:00.000Z", "support-bot");
      const kept = request("cr_one_key", "3".repeat(32), "2026-07-06T09:30:00.000Z", "support-bot");
      // One id under two row keys (two services): the row the list shows first (the later start) first, then the other.
      const listedFirst = request("cr_two_keys", "6".repeat(32), "2026-07-06T09:36:00.000Z", "support-bot-v2");
      const listedSecond = request("cr_two_keys", "5".repeat(32), "2026-07-06T09:35:00.000Z", "support-bot");
      assert.ok((await subject.store.results.write([replaced, kept, listedFirst, listedSecond])).ok);
      await subject.settle();

      const day = { fromMs: Date.parse("2026-07-06T00:00:00.000Z"), toMs: Date.parse("2026-07-07T00:00:00.000Z") };
      const rowsOf = async (filter: TraceFilter) =>
        (await subject.store.traces.listTraces(filter, { after: null, limit: 10 })).traces.map((trace) => [trace.caseResultId, trace.traceId, trace.startedAt, trace.serviceName, trace.output]);
      const expected = [
        ["cr_two_keys", "6".repeat(32), "2026-07-06T09:36:00.000Z", "support-bot-v2", "the answer of 6666"],
        ["cr_two_keys", "5".repeat(32), "2026-07-06T09:35:00.000Z", "support-bot", "the answer of 5555"],
        ["cr_one_key", "3".repeat(32), "2026-07-06T09:30:00.000Z", "support-bot", "the answer of 3333"],
      ];
      // The list as the time range alone selects it, and as filters select it (the ClickHouse adapter then collapses
      // the candidates' rows by hand instead of with FINAL): the same rows, each one stored row's fields.
      assert.deepEqual(await rowsOf(day), expected, "the time range alone");
      assert.deepEqual(await rowsOf({ ...day, runId: "run_one_version" }), expected, "the run");
      assert.deepEqual(await rowsOf({ ...day, text: "the answer of" }), expected, "a text");
      assert.deepEqual(await rowsOf({ ...day, service: "support-bot" }), [expected[1], expected[2]], "a service");
      assert.deepEqual(await rowsOf({ traceId: "3".repeat(32) }), [expected[2]]);
      assert.deepEqual(await rowsOf({ traceId: "4".repeat(32) }), [], "the replaced row's trace id");
      assert.deepEqual(await subject.store.traces.findByTraceId("4".repeat(32), 10), [], "the replaced row's trace id");
      assert.deepEqual(await subject.store.traces.findByTraceId("3".repeat(32), 10), [{ caseResultId: "cr_one_key", traceId: "3".repeat(32), tenantId: "t1", serviceName: "support-bot", startedAt: "2026-07-06T09:30:00.000Z" }]);

      // Opened by id: the kept row, with the Evaluation Results written with it; its replaced trace id opens nothing.
      const oneKey = await subject.store.traces.readTrace("cr_one_key");
      assert.deepEqual(oneKey?.caseResult, kept.caseResult);
      assert.deepEqual(oneKey.evaluationResults, [...kept.evaluationResults].sort(compareEvaluationResults));
      assert.equal(await subject.store.traces.readTrace("cr_one_key", { traceId: "4".repeat(32) }), null, "the replaced row's trace id");
      // Of the id's two rows, the one written last; its own trace id opens each.
      const twoKeys = await subject.store.traces.readTrace("cr_two_keys");
      assert.deepEqual(twoKeys?.caseResult, listedSecond.caseResult);
      assert.deepEqual((await subject.store.traces.readTrace("cr_two_keys", { traceId: "6".repeat(32) }))?.caseResult, listedFirst.caseResult);
      const many = await subject.store.traces.readEvaluationResults(["cr_one_key", "cr_two_keys"]);
      assert.deepEqual([many.get("cr_one_key"), many.get("cr_two_keys")], [oneKey.evaluationResults, twoKeys.evaluationResults], "many ids at once read what readTrace reads");
      // The run reads each case once, its newest request as readTrace opens it.
      const cases = await subject.store.reader.loadRunCases("run_one_version");
      assert.deepEqual(
        cases.map((loaded) => [loaded.caseResult.case_result_id, loaded.caseResult.trace_id]),
        [
          ["cr_one_key", "3".repeat(32)],
          ["cr_two_keys", "5".repeat(32)],
        ],
      );
    });

    // After every test above (its own run, ids and days). The store's clock stands still across two writes, as a clock
    // a test or a replay holds does, or as two writes within one millisecond meet it: one id's two requests (a case
    // sent again from a renamed service) are written one after the other. A writer's versions strictly increase
    // (store/row-version-clock.ts), so the newest is the one written last, in both stores — not the one the list shows
    // first, which the two writes' equal versions made it before: here the request the list shows first (the later
    // start) is written first. On one day the second write's Evaluation Results replace the first's (their sorting
    // key is the evaluator, day and id: case-sent-again.ts SAME_DAY), so the request the equal versions took for the
    // newest opened with no evaluations at all.
    test("two writes in one millisecond of the store's clock: an id's newest request is the one written last, with its own evaluations, in both stores", async () => {
      const request = (caseResultId: string, traceId: string, startedAt: string, service: string) =>
        evaluatedRequest({ runId: "run_one_millisecond", caseResultId, caseId: `case_${caseResultId}`, traceId, startedAt, service, tenant: "t1", output: `the answer of ${service}` });
      const sentTwice = [
        // A day apart (after midnight UTC): each request keeps Evaluation Results of its own.
        { id: "cr_one_millisecond", listedFirst: request("cr_one_millisecond", "c1".repeat(16), "2026-07-05T00:01:00.000Z", "support-bot-v2"), writtenLast: request("cr_one_millisecond", "c2".repeat(16), "2026-07-04T23:59:00.000Z", "support-bot") },
        // The same day: the second write's Evaluation Results replace the first's.
        { id: "cr_one_millisecond_day", listedFirst: request("cr_one_millisecond_day", "c3".repeat(16), "2026-07-04T22:01:00.000Z", "support-bot-v2"), writtenLast: request("cr_one_millisecond_day", "c4".repeat(16), "2026-07-04T21:59:00.000Z", "support-bot") },
      ];
      for (const { listedFirst, writtenLast } of sentTwice) {
        assert.ok((await subject.store.results.write([listedFirst])).ok);
        assert.ok((await subject.store.results.write([writtenLast])).ok);
      }
      await subject.settle();

      for (const { id, writtenLast } of sentTwice) {
        const newest = await subject.store.traces.readTrace(id);
        assert.deepEqual(newest?.caseResult, writtenLast.caseResult, `${id}: the request written last`);
        assert.ok(writtenLast.evaluationResults.length > 0);
        assert.deepEqual(newest.evaluationResults, [...writtenLast.evaluationResults].sort(compareEvaluationResults), `${id}: with its own evaluations`);
        assert.deepEqual((await subject.store.traces.readEvaluationResults([id])).get(id), newest.evaluationResults, `${id}: many ids at once read what readTrace reads`);
      }
      assert.deepEqual(
        (await subject.store.reader.loadRunCases("run_one_millisecond")).map((loaded) => [loaded.caseResult.case_result_id, loaded.caseResult.trace_id]).sort(),
        [
          ["cr_one_millisecond", "c2".repeat(16)],
          ["cr_one_millisecond_day", "c4".repeat(16)],
        ],
      );
      // Each request is listed, by its start, and opens by its own trace id; a day apart, each with its own evaluations.
      const range = { fromMs: Date.parse("2026-07-04T21:00:00.000Z"), toMs: Date.parse("2026-07-05T01:00:00.000Z") };
      assert.deepEqual((await subject.store.traces.listTraces(range, { after: null, limit: 10 })).traces.map((trace) => trace.traceId), ["c1".repeat(16), "c2".repeat(16), "c3".repeat(16), "c4".repeat(16)]);
      const listedFirst = sentTwice[0]!.listedFirst;
      const ofFirst = await subject.store.traces.readTrace("cr_one_millisecond", { traceId: "c1".repeat(16) });
      assert.deepEqual(ofFirst?.caseResult, listedFirst.caseResult);
      assert.deepEqual(ofFirst.evaluationResults, [...listedFirst.evaluationResults].sort(compareEvaluationResults));
    });

    // After every test above (its own run, ids and days). One write carries two requests of one case (the case sent
    // again twice within one batch), the store's clock standing still. Each of an id's requests in a write takes a
    // version of its own in the order they arrived (store/row-version-clock.ts), so the newest is the later request,
    // in both stores, as of two writes (the test above). Before, both had the write's version and the list's order
    // chose the request the list shows first (the later start), here the earlier request; on one day, the later
    // request's Evaluation Results having replaced the earlier's (case-sent-again.ts SAME_DAY), that "newest" request
    // opened with no evaluations at all.
    test("two requests of one case in one write: the later one is the newest, with its own evaluations, in both stores", async () => {
      const request = (caseResultId: string, traceId: string, startedAt: string, service: string) =>
        evaluatedRequest({ runId: "run_one_write", caseResultId, caseId: `case_${caseResultId}`, traceId, startedAt, service, tenant: "t1", output: `the answer of ${traceId.slice(0, 4)}` });
      const sentTwice = [
        // A day apart (after midnight UTC): each request keeps Evaluation Results of its own.
        { id: "cr_one_write", earlier: request("cr_one_write", "d1".repeat(16), "2026-07-03T00:01:00.000Z", "support-bot-v2"), later: request("cr_one_write", "d2".repeat(16), "2026-07-02T23:59:00.000Z", "support-bot") },
        // The same day, from a renamed service: the later request's Evaluation Results replace the earlier's.
        { id: "cr_one_write_day", earlier: request("cr_one_write_day", "d3".repeat(16), "2026-07-02T22:01:00.000Z", "support-bot-v2"), later: request("cr_one_write_day", "d4".repeat(16), "2026-07-02T21:59:00.000Z", "support-bot") },
      ];
      // One write, each case's earlier request first: the order they arrived in.
      assert.ok((await subject.store.results.write(sentTwice.flatMap(({ earlier, later }) => [earlier, later]))).ok);
      await subject.settle();

      for (const { id, later } of sentTwice) {
        const newest = await subject.store.traces.readTrace(id);
        assert.deepEqual(newest?.caseResult, later.caseResult, `${id}: the later request`);
        assert.ok(later.evaluationResults.length > 0);
        assert.deepEqual(newest.evaluationResults, [...later.evaluationResults].sort(compareEvaluationResults), `${id}: with its own evaluations`);
        assert.deepEqual((await subject.store.traces.readEvaluationResults([id])).get(id), newest.evaluationResults, `${id}: many ids at once read what readTrace reads`);
      }
      assert.deepEqual(
        (await subject.store.reader.loadRunCases("run_one_write")).map((loaded) => [loaded.caseResult.case_result_id, loaded.caseResult.trace_id, loaded.evaluationResults.length > 0]).sort(),
        [
          ["cr_one_write", "d2".repeat(16), true],
          ["cr_one_write_day", "d4".repeat(16), true],
        ],
        "the run reads each case's later request, with its evaluations",
      );
      // The trace list shows each request by its start; each opens by its own trace id, a day apart with its own evaluations.
      const range = { fromMs: Date.parse("2026-07-02T21:00:00.000Z"), toMs: Date.parse("2026-07-03T01:00:00.000Z") };
      assert.deepEqual(
        (await subject.store.traces.listTraces(range, { after: null, limit: 10 })).traces.map((trace) => [trace.caseResultId, trace.traceId]),
        [
          ["cr_one_write", "d1".repeat(16)],
          ["cr_one_write", "d2".repeat(16)],
          ["cr_one_write_day", "d3".repeat(16)],
          ["cr_one_write_day", "d4".repeat(16)],
        ],
      );
      for (const { id, later } of sentTwice) {
        assert.deepEqual((await subject.store.traces.readTrace(id, { traceId: later.caseResult.trace_id }))?.caseResult, later.caseResult, `${id}: the later request by its trace id`);
      }
      const earlier = sentTwice[0]!.earlier;
      const ofEarlier = await subject.store.traces.readTrace("cr_one_write", { traceId: "d1".repeat(16) });
      assert.deepEqual(ofEarlier?.caseResult, earlier.caseResult);
      assert.deepEqual(ofEarlier.evaluationResults, [...earlier.evaluationResults].sort(compareEvaluationResults));
    });
  });
}
