/** The RunReader contract: a run's summary, count, cases, lineage and the stored time span. */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createDefaultRegistry } from "../../../../evaluators/default-registry.js";
import { evaluateCaseResult } from "../../../../evaluators/evaluate-case-result.js";
import { newHumanLabel } from "../../../../evaluators/judge/calibration/human-label.js";
import { ANONYMOUS_REVIEWER } from "../../../../evaluators/reviewed-verdict.js";
import { buildCaseResult, seedExample } from "../../../support/case-results.js";
import { evaluatedRequest } from "../../../support/evaluated-request.js";
import { measured } from "../../../support/stored-requests.js";
import { sendCaseAgain } from "./case-sent-again.js";
import type { StoreFactory, StoreUnderTest } from "./store-under-test.js";

export function runReaderContract(name: string, factory: StoreFactory): void {
  describe(`RunReader: ${name}`, () => {
    let subject: StoreUnderTest;
    // The store's clock (row versions); one test moves it forward and back.
    let clock = Date.parse("2026-07-08T10:00:00.000Z");
    before(async () => {
      subject = await factory({ now: () => clock });
    });
    after(() => subject.cleanup());

    test("an unknown run reads as empty, not as an error", async () => {
      assert.equal(await subject.store.reader.countCaseResults("run_missing"), 0);
      assert.deepEqual(await subject.store.reader.loadRunCases("run_missing"), []);
      assert.equal(await subject.store.reader.readRun("run_missing"), null);
      assert.equal(await subject.store.reader.storedSpan(), null);
      const summary = await subject.store.reader.readRunSummary("run_missing");
      assert.deepEqual({ ...summary, metrics: summary.metrics.length, failures: summary.failures.length }, { runId: "run_missing", cases: 0, passed: 0, failed: 0, reviewRequired: 0, unjudged: 0, notEvaluated: 0, partial: 0, metrics: 0, failures: 0 });
    });

    test("the summary counts verdicts, averages metrics over applicable values and lists failures by case", async () => {
      const registry = createDefaultRegistry();
      const { caseResult, evalCase } = seedExample();
      await subject.store.cases.put([evalCase]);
      const failing = evaluateCaseResult(registry, { ...caseResult, case_version: evalCase.case_version, run_id: "run_summary", case_result_id: "cr_failing" }, evalCase, "2026-07-08T09:32:01.000Z");
      const unknownCase = evaluateCaseResult(registry, { ...buildCaseResult({ caseId: "case_unknown", output: "an answer" }), run_id: "run_summary", case_result_id: "cr_unknown", started_at: "2026-07-08T09:35:00.000Z" }, null, "2026-07-08T09:35:01.000Z");
      await subject.store.results.write([failing, unknownCase]);
      await subject.store.runs.record({ run_id: "run_summary", started_at: "2026-07-08T09:30:00.000Z", dataset_id: "d" });

      const summary = await subject.store.reader.readRunSummary("run_summary");
      const statuses = [failing, unknownCase].map((evaluation) => evaluation.caseResult.quality_status);
      const count = (status: string) => statuses.filter((value) => value === status).length;
      assert.deepEqual([summary.cases, summary.passed, summary.failed, summary.reviewRequired, summary.unjudged, summary.notEvaluated, summary.partial], [2, count("passed"), count("failed"), count("review_required"), count("unjudged"), count("not_evaluated"), 0]);
      // Independent of the store: the averages recomputed here from the evaluations written.
      const values = new Map<string, (number | null)[]>();
      for (const evaluation of [failing, unknownCase]) for (const result of evaluation.evaluationResults) for (const [metric, value] of Object.entries(result.metric_values)) values.set(metric, [...(values.get(metric) ?? []), value ?? null]);
      assert.deepEqual(summary.metrics.map((row) => row.metric).sort(), [...values.keys()].sort());
      for (const row of summary.metrics) {
        const present = values.get(row.metric)!.filter((value): value is number => value !== null);
        assert.equal(row.applicable, present.length, row.metric);
        assert.equal(row.notApplicable, values.get(row.metric)!.length - present.length, row.metric);
        if (present.length === 0) assert.equal(row.mean, null, row.metric);
        else assert.ok(Math.abs(row.mean! - present.reduce((total, value) => total + value, 0) / present.length) < 1e-9, row.metric);
      }
      const sortedMetrics = [...summary.metrics].sort((first, second) => (first.evaluatorId < second.evaluatorId ? -1 : first.evaluatorId > second.evaluatorId ? 1 : first.metric < second.metric ? -1 : 1));
      assert.deepEqual(summary.metrics, sortedMetrics, "ordered by evaluator id, then metric");
      const expectedFailures = [failing, unknownCase]
        .flatMap((evaluation) => evaluation.evaluationResults.filter((result) => result.outcome === "failed" || result.outcome === "error" || result.review_required).map((result) => `${evaluation.caseResult.case_id}|${result.evaluator_id}|${evaluation.caseResult.quality_status}`))
        .sort();
      assert.ok(expectedFailures.length > 0, "the seed example fails evaluations");
      assert.deepEqual(summary.failures.map((row) => `${row.caseId}|${row.evaluatorId}|${row.caseStatus}`), expectedFailures);

      assert.equal(await subject.store.reader.countCaseResults("run_summary"), 2);
      const cases = await subject.store.reader.loadRunCases("run_summary");
      assert.deepEqual(cases.map((item) => item.caseResult.case_id), ["case_unknown", "rag_refund_member_points_001"], "ordered by case id");
      assert.deepEqual(cases.map((item) => item.evalCase?.case_id ?? null), [null, "rag_refund_member_points_001"]);
      assert.equal((await subject.store.reader.readRun("run_summary"))?.dataset_id, "d");
      assert.deepEqual(await subject.store.reader.storedSpan(), { firstMs: Date.parse(caseResult.started_at), lastMs: Date.parse("2026-07-08T09:35:00.000Z"), requests: 2 });
    });

    test("a case of a run sent again from another day and service is one case of the run, the newest: its result, evaluations, counts and summary", async () => {
      // A harness retrying a case after midnight UTC, or from a renamed service: the same run and case ids give the
      // same case_result_id (contracts/ids.ts), but the second request's start and service are its own.
      const resent = subject;
      const clockBefore = clock;
      try {
        const { second } = await sendCaseAgain(resent, (milliseconds) => (clock += milliseconds), null);

        const cases = await resent.store.reader.loadRunCases("run_resent");
        assert.deepEqual(cases.map((item) => [item.caseResult.trace_id, item.caseResult.output]), [["b".repeat(32), "the second answer"]]);
        assert.deepEqual(cases[0]!.evaluationResults.map((result) => result.evaluation_result_id).sort(), second.evaluationResults.map((result) => result.evaluation_result_id).sort());
        assert.equal(cases[0]!.evaluationResults.length, second.evaluationResults.length, "each evaluation once");
        assert.equal(await resent.store.reader.countCaseResults("run_resent"), 1);
        assert.deepEqual(await resent.store.reader.countRunTenants("run_resent"), [{ tenant: "", results: 1 }]);
        const summary = await resent.store.reader.readRunSummary("run_resent");
        assert.equal(summary.cases, 1);
        // Each metric counted once: as many values (applicable or not) as the second request's evaluations carry.
        const expected = new Map<string, number>();
        for (const result of second.evaluationResults) for (const metric of Object.keys(result.metric_values)) expected.set(metric, (expected.get(metric) ?? 0) + 1);
        for (const row of summary.metrics) assert.equal(row.applicable + row.notApplicable, expected.get(row.metric), row.metric);
        const expectedFailures = second.evaluationResults.filter((result) => result.outcome === "failed" || result.outcome === "error" || result.review_required).length;
        assert.equal(summary.failures.length, expectedFailures);
      } finally {
        clock = clockBefore;
      }
    });

    test("a result rebuilt without a tenant at the same start (a partial trace, or sent again without one) is one case of the run: the newest request's", async () => {
      // The same trace and start, so the same case_result_id, trace id and started_at; but the tenant is in the stored
      // row's sorting key (migration 0007), so the stores keep both rows. The run counts the case once, as the runs
      // list does (run-current-results.ts currentCaseCounts), from the newest request: a complete result outranks a
      // partial one whenever it was written (result-rows.ts rowVersion), else the one written last.
      const clockBefore = clock;
      try {
        const sent = (runId: string, tenant: string | null, partial: boolean, output: string) =>
          evaluatedRequest({ runId, caseResultId: `cr_${runId}`, caseId: "case_rebuilt", traceId: "d".repeat(32), startedAt: "2026-07-08T08:00:00.000Z", service: "support-bot", tenant, partial, output });
        // run_rebuilt: the complete result of tenant acme, then a result rebuilt from a partial trace of it that names no tenant.
        const complete = sent("run_rebuilt", "acme", false, "the complete answer");
        await subject.store.results.write([complete]);
        clock += 60_000;
        await subject.store.results.write([sent("run_rebuilt", null, true, "a partial answer")]);
        // run_untenanted: a complete result of tenant acme, then the same request sent again complete without a tenant (the newest).
        await subject.store.results.write([sent("run_untenanted", "acme", false, "the answer of acme")]);
        clock += 60_000;
        const untenanted = sent("run_untenanted", null, false, "the answer without a tenant");
        await subject.store.results.write([untenanted]);
        await subject.settle();

        // The trace list shows each stored row once, as the dashboards count them (in either order: they share the id and start).
        const listed = async (runId: string) => (await subject.store.traces.listTraces({ runId }, { after: null, limit: 10 })).traces.map((trace) => [trace.tenantId, trace.output]).sort();
        assert.deepEqual(await listed("run_rebuilt"), [["", "a partial answer"], ["acme", "the complete answer"]]);
        assert.deepEqual(await listed("run_untenanted"), [["", "the answer without a tenant"], ["acme", "the answer of acme"]]);

        for (const [runId, newest, tenant] of [
          ["run_rebuilt", complete, "acme"],
          ["run_untenanted", untenanted, ""],
        ] as const) {
          const cases = await subject.store.reader.loadRunCases(runId);
          assert.deepEqual(cases.map((item) => item.caseResult.output), [newest.caseResult.output], runId);
          assert.equal(cases[0]!.evaluationResults.length, newest.evaluationResults.length, `${runId}: each evaluation once`);
          assert.equal(await subject.store.reader.countCaseResults(runId), 1, runId);
          assert.deepEqual(await subject.store.reader.countRunTenants(runId), [{ tenant, results: 1 }], runId);
          const summary = await subject.store.reader.readRunSummary(runId);
          const statuses = [summary.passed, summary.failed, summary.reviewRequired, summary.unjudged, summary.notEvaluated];
          assert.deepEqual([summary.cases, statuses.reduce((total, count) => total + count, 0), summary.partial], [1, 1, 0], runId);
          // Each metric counted once: as many values (applicable or not) as the newest request's evaluations carry.
          const expected = new Map<string, number>();
          for (const result of newest.evaluationResults) for (const metric of Object.keys(result.metric_values)) expected.set(metric, (expected.get(metric) ?? 0) + 1);
          assert.ok(summary.metrics.length > 0, runId);
          for (const row of summary.metrics) assert.equal(row.applicable + row.notApplicable, expected.get(row.metric), `${runId} ${row.metric}`);
          const expectedFailures = newest.evaluationResults.filter((result) => result.outcome === "failed" || result.outcome === "error" || result.review_required).length;
          assert.equal(summary.failures.length, expectedFailures, runId);
          // The runs list counts it once too.
          assert.equal((await subject.store.traces.listRuns(100)).find((run) => run.runId === runId)?.cases, 1, runId);
        }
      } finally {
        clock = clockBefore;
      }
    });

    test("countRunTenants counts the run's results per tenant value, '' for results that name none, ", async () => {
      const tenants = ["globex", null, "acme", "globex", "globex"];
      await subject.store.results.write(
        tenants.map((tenant, index) => {
          const built = buildCaseResult({ caseId: `case_tenants_${index}`, output: "an answer" });
          return { caseResult: { ...built, run_id: "run_tenants", case_result_id: `cr_tenants_${index}`, trace_id: `${index + 1}`.padStart(32, "c"), rag_observation: { ...built.rag_observation, tenant_id: tenant } }, evaluationResults: [] };
        }),
      );
      // Counted by hand from the list above, ordered by tenant value.
      assert.deepEqual(await subject.store.reader.countRunTenants("run_tenants"), [
        { tenant: "", results: 1 },
        { tenant: "acme", results: 1 },
        { tenant: "globex", results: 3 },
      ]);
      assert.deepEqual(await subject.store.reader.countRunTenants("run_missing"), []);
    });

    test("an agreed human review of two reviewers replaces the automatic verdict (reviewed-verdict.ts), in the cases and the summary; one reviewer, disagreement and root-cause labels alone do not, and an agreed pass never passes a request that did not complete", async () => {
      // The final verdict by the rule (REVIEWERS_PER_CASE = 2 reviewers who agree), worked by hand per seed.
      const seeds = [
        { id: "cr_review_agreed_pass", automatic: "failed" as const, labels: [["alice", "pass"], ["bob", "pass"]] },
        { id: "cr_review_agreed_fail", automatic: "review_required" as const, labels: [["alice", "fail"], ["bob", "fail"]] },
        { id: "cr_review_three_agree", automatic: "review_required" as const, labels: [["alice", "pass"], ["bob", "pass"], ["carol", "pass"]] },
        { id: "cr_review_disagree", automatic: "review_required" as const, labels: [["alice", "pass"], ["bob", "fail"]] },
        { id: "cr_review_one_reviewer", automatic: "unjudged" as const, labels: [["carol", "pass"]] },
        // One reviewer's complete pass of a failed case, and one reviewer's fail of a case to review: pending, not decided.
        { id: "cr_review_one_reviewer_passes_failed", automatic: "failed" as const, labels: [["carol", "pass"]] },
        { id: "cr_review_one_reviewer_fails", automatic: "review_required" as const, labels: [["carol", "fail"]] },
        // A second reviewer who gave only a root cause (saved below) gave no verdict: still one reviewer.
        { id: "cr_review_one_reviewer_and_root_cause", automatic: "review_required" as const, labels: [["carol", "pass"]] },
        { id: "cr_review_root_cause_only", automatic: "failed" as const, labels: [] },
        { id: "cr_review_none", automatic: "failed" as const, labels: [] },
        // Requests that did not complete (reliability-summary.ts): a review confirms their failure, never passes them.
        { id: "cr_review_threw_agreed_pass", automatic: "failed" as const, labels: [["alice", "pass"], ["bob", "pass"]], execution: { execution_status: "failed" as const, execution_error: { type: "system_error" as const, message: "rerank threw" } } },
        { id: "cr_review_timed_out_agreed_pass", automatic: "failed" as const, labels: [["alice", "pass"], ["bob", "pass"]], execution: { execution_status: "timeout" as const, execution_error: { type: "none" as const, message: null } } },
        // Its status says completed, its error type says the environment failed: it did not complete either.
        { id: "cr_review_environment_agreed_pass", automatic: "failed" as const, labels: [["alice", "pass"], ["bob", "pass"]], execution: { execution_status: "completed" as const, execution_error: { type: "environment_error" as const, message: "index offline" } } },
        { id: "cr_review_threw_agreed_fail", automatic: "failed" as const, labels: [["alice", "fail"], ["bob", "fail"]], execution: { execution_status: "failed" as const, execution_error: { type: "system_error" as const, message: "rerank threw" } } },
        // A partial trace (evaluated before its root span ended) is not a request that did not complete.
        { id: "cr_review_partial_agreed_pass", automatic: "unjudged" as const, labels: [["alice", "pass"], ["bob", "pass"]], execution: { execution_status: "partial" as const, execution_error: { type: "none" as const, message: null } } },
        // The anonymous reviewer (the UI without tokens, ANONYMOUS_REVIEWER) is never a second reviewer, nor a dissent.
        { id: "cr_review_anonymous_second", automatic: "review_required" as const, labels: [["carol", "fail"], [ANONYMOUS_REVIEWER, "fail"]] },
        { id: "cr_review_anonymous_dissent", automatic: "failed" as const, labels: [["alice", "pass"], ["bob", "pass"], [ANONYMOUS_REVIEWER, "fail"]] },
      ];
      await subject.store.results.write(
        seeds.map((seed, index) => ({ caseResult: { ...buildCaseResult({ caseId: `case_${index}`, output: "an answer" }), ...("execution" in seed ? seed.execution : {}), run_id: "run_reviewed", case_result_id: seed.id, quality_status: seed.automatic }, evaluationResults: [] })),
      );
      const labeledAt = "2026-07-08T11:00:00.000Z";
      // Each seed's one request keeps buildCaseResult's trace id: the labels review it.
      const reviewed = buildCaseResult().trace_id;
      await subject.store.humanLabels.save(
        seeds.flatMap((seed) => seed.labels.map(([reviewer, verdict]) => newHumanLabel({ case_result_id: seed.id, trace_id: reviewed, metric: "faithfulness", labeler_id: reviewer!, verdict: verdict as "pass" | "fail", labeled_at: labeledAt }))),
      );
      // A second label of a reviewer who passed; and root-cause labels, which are not verdicts on a metric.
      await subject.store.humanLabels.save([
        newHumanLabel({ case_result_id: "cr_review_disagree", trace_id: reviewed, metric: "completeness", labeler_id: "alice", verdict: "pass", labeled_at: labeledAt }),
        newHumanLabel({ case_result_id: "cr_review_root_cause_only", trace_id: reviewed, metric: "root_cause", labeler_id: "alice", verdict: "fail", note: "HALLUCINATION", labeled_at: labeledAt }),
        newHumanLabel({ case_result_id: "cr_review_one_reviewer_and_root_cause", trace_id: reviewed, metric: "root_cause", labeler_id: "dave", verdict: "fail", note: "HALLUCINATION", labeled_at: labeledAt }),
      ]);
      const cases = await subject.store.reader.loadRunCases("run_reviewed");
      const byId = new Map(cases.map((item) => [item.caseResult.case_result_id, item]));
      assert.deepEqual(
        seeds.map((seed) => [seed.id, byId.get(seed.id)?.caseResult.quality_status, byId.get(seed.id)?.reviewedBy ?? []]),
        [
          ["cr_review_agreed_pass", "passed", ["alice", "bob"]],
          ["cr_review_agreed_fail", "failed", ["alice", "bob"]],
          ["cr_review_three_agree", "passed", ["alice", "bob", "carol"]],
          ["cr_review_disagree", "review_required", []],
          ["cr_review_one_reviewer", "unjudged", []],
          ["cr_review_one_reviewer_passes_failed", "failed", []],
          ["cr_review_one_reviewer_fails", "review_required", []],
          ["cr_review_one_reviewer_and_root_cause", "review_required", []],
          ["cr_review_root_cause_only", "failed", []],
          ["cr_review_none", "failed", []],
          // The agreed passes of requests that did not complete are set aside: failed, and no reviewer's verdict.
          ["cr_review_threw_agreed_pass", "failed", []],
          ["cr_review_timed_out_agreed_pass", "failed", []],
          ["cr_review_environment_agreed_pass", "failed", []],
          ["cr_review_threw_agreed_fail", "failed", ["alice", "bob"]],
          ["cr_review_partial_agreed_pass", "passed", ["alice", "bob"]],
          ["cr_review_anonymous_second", "review_required", []],
          ["cr_review_anonymous_dissent", "passed", ["alice", "bob"]],
        ],
      );
      // passed: agreed_pass, three_agree, partial_agreed_pass, anonymous_dissent; failed: agreed_fail,
      // one_reviewer_passes_failed, root_cause_only, none, threw_agreed_pass, timed_out_agreed_pass,
      // environment_agreed_pass, threw_agreed_fail; review_required: disagree, one_reviewer_fails,
      // one_reviewer_and_root_cause, anonymous_second; unjudged: one_reviewer.
      const summary = await subject.store.reader.readRunSummary("run_reviewed");
      assert.deepEqual([summary.passed, summary.failed, summary.reviewRequired, summary.unjudged], [4, 8, 4, 1]);
      const listed = async (verdict: string) => (await subject.store.traces.listTraces({ runId: "run_reviewed", verdict }, { after: null, limit: 20 })).traces.map((trace) => trace.caseResultId).sort();
      assert.deepEqual(await listed("failed"), [
        "cr_review_agreed_fail",
        "cr_review_environment_agreed_pass",
        "cr_review_none",
        "cr_review_one_reviewer_passes_failed",
        "cr_review_root_cause_only",
        "cr_review_threw_agreed_fail",
        "cr_review_threw_agreed_pass",
        "cr_review_timed_out_agreed_pass",
      ]);
      assert.deepEqual(await listed("passed"), ["cr_review_agreed_pass", "cr_review_anonymous_dissent", "cr_review_partial_agreed_pass", "cr_review_three_agree"]);
      // The list's summaries carry how each request ended, which the UI's verdict column reads (reviewed-verdict.ts).
      const summaries = (await subject.store.traces.listTraces({ runId: "run_reviewed", verdict: "failed" }, { after: null, limit: 20 })).traces;
      assert.deepEqual(
        summaries.filter((trace) => trace.caseResultId.includes("agreed_pass")).map((trace) => [trace.caseResultId, trace.executionStatus, trace.errorType]).sort(),
        [
          ["cr_review_environment_agreed_pass", "completed", "environment_error"],
          ["cr_review_threw_agreed_pass", "failed", "system_error"],
          ["cr_review_timed_out_agreed_pass", "timeout", "none"],
        ],
      );
      assert.deepEqual(await listed("review_required"), ["cr_review_anonymous_second", "cr_review_disagree", "cr_review_one_reviewer_and_root_cause", "cr_review_one_reviewer_fails"]);
    });

    // After every test above (its own run). A metric two evaluators write (a renamed evaluator, a rule beside a judge)
    // is one row of the summary: under which evaluator was whichever row the engine read first (ClickHouse's any())
    // or was written first (the in-memory store), so the two stores, and two reads of one, could name different ones.
    test("a metric two evaluators write is summarised once, under the least evaluator id", async () => {
      const written = evaluatedRequest({ runId: "run_two_evaluators", caseResultId: "cr_two_evaluators", caseId: "case_two_evaluators", traceId: "7e".repeat(16), startedAt: "2026-07-08T09:45:00.000Z", service: "support-bot", output: "an answer" });
      const scored = (evaluatorId: string, value: number) => ({
        evaluation_result_id: `er_cr_two_evaluators_${evaluatorId}`,
        case_result_id: "cr_two_evaluators",
        evaluator_id: evaluatorId,
        evaluator_version: "1",
        metric_values: { shared_score: value },
        outcome: "measured" as const,
        reason: "measured",
        evidence_refs: [],
        confidence: { value: 1, semantics: "deterministic_rule" as const },
        review_required: false,
        error_type: "none" as const,
        evaluated_at: "2026-07-08T09:45:00.000Z",
      });
      // The greater id written first.
      assert.ok((await subject.store.results.write([{ ...written, evaluationResults: [scored("zeta.rule", 0.2), scored("alpha.rule", 0.4)] }])).ok);
      const summary = await subject.store.reader.readRunSummary("run_two_evaluators");
      const shared = summary.metrics.filter((row) => row.metric === "shared_score");
      assert.equal(shared.length, 1);
      assert.equal(shared[0]!.evaluatorId, "alpha.rule");
      assert.ok(Math.abs(shared[0]!.mean! - 0.3) < 1e-9);
      assert.deepEqual([shared[0]!.applicable, shared[0]!.notApplicable], [2, 0]);
    });

    // A metric value written to the store directly (a judge's result, an evaluator of an earlier release), not read
    // from a span the collector bounds: beyond 2^53 − 1 either way, or not finite, it is no measurement
    // (core/largest-measurement.ts), and both stores count it not applicable. Before, the ClickHouse adapter counted
    // 1e308 as a value and its mean overflowed to null, and the in-memory store counted Infinity and NaN too and read NaN.
    test("a metric value beyond 2^53 − 1 or not finite is not applicable, and the mean stands on the others", async () => {
      const stated = [1e308, 1e308, 2 ** 53, -1e308, Number.POSITIVE_INFINITY, Number.NaN, 4e15, 2e15];
      const writes = stated.map((value, index) => {
        const written = evaluatedRequest({ runId: "run_beyond_bound", caseResultId: `cr_beyond_bound_${index}`, caseId: `case_beyond_bound_${index}`, traceId: String(index + 1).padStart(32, "b"), startedAt: "2026-07-08T09:50:00.000Z", service: "support-bot", output: "an answer" });
        // The value is set after the helper's schema parse, which refuses Infinity and NaN: a store is handed them by
        // code that does not parse them (the cases above), so it must bound them itself.
        const direct = { ...measured(`cr_beyond_bound_${index}`, "direct.rule", {}, Date.parse("2026-07-08T09:50:00.000Z")), metric_values: { stated_cost: value } };
        return { ...written, evaluationResults: [direct] };
      });
      assert.ok((await subject.store.results.write(writes)).ok);
      const summary = await subject.store.reader.readRunSummary("run_beyond_bound");
      assert.deepEqual(
        summary.metrics.filter((row) => row.metric === "stated_cost"),
        [{ metric: "stated_cost", evaluatorId: "direct.rule", mean: 3e15, applicable: 2, notApplicable: 6 }],
        "the mean of 4e15 and 2e15; 1e308 twice, 2^53, -1e308, Infinity and NaN not applicable",
      );
    });
  });
}
