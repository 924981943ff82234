/**
 * The experiment report's decisions on small constructed experiments: too few
 * requests for the effect asked for is "not enough data" even with a small
 * p-value; two lineage fields differing is warned about; a user seen in two
 * variants is counted; fewer than two variants compares nothing; a metric
 * with one value in both arms is no difference; a judged metric of which an
 * arm has only the heuristic judge's values is that judge's measurement.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { caseResult as caseResultSchema, type CaseResult } from "../../../../contracts/case-result.js";
import { buildExperimentReport } from "../../../../evaluators/experiments/experiment-report.js";

function request(index: number, variant: string, options: { like: boolean; user?: string; model?: string; reranked?: boolean; session?: string | null; noEvents?: boolean }): CaseResult {
  const traceId = index.toString(16).padStart(32, "0");
  return caseResultSchema.parse({
    case_result_id: `cr_${traceId}`,
    run_id: "",
    case_id: "",
    case_version: "",
    execution_status: "completed",
    quality_status: "unjudged",
    input_snapshot_uri: null,
    output: "answer",
    rag_observation: {
      query: `question ${index}`,
      retrieved_chunks: null,
      pre_rerank_chunks: options.reranked ? [] : null,
      context: null,
      citations: null,
      generation: { model: options.model ?? "model-a" },
      session_id: options.session === undefined ? `session-${index}` : options.session,
      user_id: options.user ?? `user-${index}`,
      experiment_id: "exp",
      experiment_variant: variant,
      feedback: options.noEvents ? [] : options.like ? [{ kind: "thumbs_up", recorded_at: "2026-11-01T09:00:01.000Z", span_id: traceId.slice(16) }] : [{ kind: "copy", recorded_at: "2026-11-01T09:00:01.000Z", span_id: traceId.slice(16) }],
    },
    trace_id: traceId,
    execution_error: { type: "none", message: null },
    started_at: "2026-11-01T09:00:00.000Z",
    completed_at: "2026-11-01T09:00:00.500Z",
  });
}

const now = Date.parse("2026-11-02T00:00:00.000Z");

describe("experiment report decisions", () => {
  test("two users an arm decide nothing, however many requests they sent: no test over four units reaches p < 0.05", () => {
    // Control: users a and b, no like in 60 requests; treatment: users c (30 of 30 liked) and d (24 of 30). The
    // clustered delta method gave p ≈ 4e-37 and decided "worse" early; permuting the four users gives 1/3 at best.
    const results = [
      ...Array.from({ length: 60 }, (_, index) => request(index, "control", { like: false, user: index % 2 === 0 ? "a" : "b", session: null })),
      ...Array.from({ length: 60 }, (_, index) => request(100 + index, "treatment", { like: index % 2 === 0 || index % 10 < 8, user: index % 2 === 0 ? "c" : "d", session: null })),
    ];
    const report = buildExperimentReport(results, [], { experimentId: "exp", now, minimumEffect: 5 });
    const like = report.metrics.find((metric) => metric.metric === "like_rate")!.comparisons[0]!;
    assert.deepEqual([like.verdict, like.decidedEarly], ["not_enough_data", false]);
    assert.match(like.note ?? "", /^2 and 2 users: no test over so few can reach p < 0\.05 \(an exact permutation test over them at best p=0\.3333\); with equal arms, 4 users per arm are the fewest that can$/);
    assert.doesNotMatch(report.decisions[0]!, /worse/);
    // Requests without a session id are in no session: the traffic counts none.
    assert.deepEqual(report.traffic.map((item) => [item.variant, item.requests, item.units, item.sessions]), [["control", 60, 2, 0], ["treatment", 60, 2, 0]]);
  });

  test("an arm none of whose requests carries a user event has no data on the event rates, not 0 %", () => {
    // Control records likes and copies; the treatment's feedback is not recorded at all.
    const results = [
      ...Array.from({ length: 40 }, (_, index) => request(index, "control", { like: index % 5 === 0 })),
      ...Array.from({ length: 40 }, (_, index) => request(100 + index, "treatment", { like: false, noEvents: true })),
    ];
    const report = buildExperimentReport(results, [], { experimentId: "exp", now, minimumEffect: 5 });
    const like = report.metrics.find((metric) => metric.metric === "like_rate")!;
    assert.deepEqual(like.values.map((value) => [value.variant, value.value, value.observations]), [["control", 0.2, 40], ["treatment", null, 0]]);
    assert.equal(like.comparisons[0]!.verdict, "not_enough_data");
    assert.match(like.comparisons[0]!.note ?? "", /^no data in treatment: none of its requests carries a reaction to its answer \(thumbs, copy, handoff, citation click or rating\), so its rate is not known \(not 0\)/);
    assert.doesNotMatch(report.decisions[0]!, /worse/);
  });

  test("a clear difference on too few requests is not enough data; with enough it is decided", () => {
    // 40 per arm: like 10 % vs 60 % (p ≈ 1e-6) — but a 10 % relative change of 10 % needs ~14 000 per arm.
    const small = [...Array.from({ length: 40 }, (_, index) => request(index, "control", { like: index % 10 === 0 })), ...Array.from({ length: 40 }, (_, index) => request(100 + index, "treatment", { like: index % 10 < 6 }))];
    const strict = buildExperimentReport(small, [], { experimentId: "exp", now });
    const like = strict.metrics.find((metric) => metric.metric === "like_rate")!.comparisons[0]!;
    assert.ok(like.comparison!.pValue! < 0.001);
    assert.equal(like.verdict, "not_enough_data");
    assert.match(strict.decisions[0]!, /not enough data on [^;]*like_rate/);
    // Asking for a 5-fold change (mde 5: 10 % → 60 %) needs fewer than 40 per arm: decided.
    const loose = buildExperimentReport(small, [], { experimentId: "exp", now, minimumEffect: 5 });
    assert.equal(loose.metrics.find((metric) => metric.metric === "like_rate")!.comparisons[0]!.verdict, "better");
  });

  test("a measured metric with one value in every request of both arms is no difference, not an error (Welch's test is 0/0 there)", () => {
    const results = [request(1, "control", { like: false }), request(2, "control", { like: true }), request(3, "treatment", { like: false }), request(4, "treatment", { like: true })];
    const latencies = results.map((result) => ({ traceId: result.trace_id, metric: "latency_ms", evaluatorId: "rule.latency", value: 100, heuristicJudgement: false }));
    const report = buildExperimentReport(results, latencies, { experimentId: "exp", now });
    const latency = report.metrics.find((metric) => metric.metric === "latency_ms")!;
    assert.deepEqual(latency.values.map((value) => [value.variant, value.value, value.observations]), [["control", 100, 2], ["treatment", 100, 2]]);
    assert.deepEqual(latency.comparisons, [{ variant: "treatment", comparison: null, requiredObservations: null, verdict: "no_difference", indication: "no_difference", decidedEarly: false, note: "no variance in either arm: every request is 100 in both, so no difference" }]);
  });

  test("two constant arms at different values: two requests against two is not enough, four against four is decided", () => {
    const latencies = (perArm: number) => {
      const results = [...Array.from({ length: perArm }, (_, index) => request(index, "control", { like: false })), ...Array.from({ length: perArm }, (_, index) => request(100 + index, "treatment", { like: false }))];
      const values = results.map((result) => ({ traceId: result.trace_id, metric: "latency_ms", evaluatorId: "rule.latency", value: result.rag_observation.experiment_variant === "control" ? 100 : 130, heuristicJudgement: false }));
      return buildExperimentReport(results, values, { experimentId: "exp", now }).metrics.find((metric) => metric.metric === "latency_ms")!.comparisons[0]!;
    };
    // Two against two: one random split in three separates the values this way (SciPy: p = 0.3333, separated-arms.json).
    const few = latencies(2);
    assert.deepEqual([few.verdict, few.requiredObservations], ["not_enough_data", 4]);
    assert.match(few.note ?? "", /every control request is 100, every treatment request 130 — a difference in every request, but 2 and 2 requests split that way by chance too often \(exact permutation test over 2 and 2 requests, p=0\.3333 ≥ alpha 0\.05\): 4 requests per arm would decide it/);
    // Four against four: p = 0.0286 (SciPy), below alpha; a higher latency is worse.
    const enough = latencies(4);
    assert.deepEqual([enough.verdict, enough.requiredObservations], ["worse", null]);
    assert.match(enough.note ?? "", /a difference in every request \(exact permutation test over 4 and 4 requests, p=0\.0286\)$/);
  });

  test("a language-model judge in the control and only the heuristic judge in the treatment: one judge measures both arms, and it decides nothing", () => {
    // The treatment's judge fell back to the heuristic judge (no language-model judge sampled there): comparing the two
    // judges would read as a difference between the variants.
    const results = [...Array.from({ length: 30 }, (_, index) => request(index, "control", { like: false })), ...Array.from({ length: 30 }, (_, index) => request(100 + index, "treatment", { like: false }))];
    const values = results.map((result, index) => {
      const treatment = result.rag_observation.experiment_variant === "treatment";
      // The control: a language-model judge on all but every sixth request, which the heuristic judge scored (~0.9).
      const heuristicJudgement = treatment || index % 6 === 0;
      return { traceId: result.trace_id, metric: "answer_correctness", evaluatorId: "judge.answer_correctness", value: (heuristicJudgement ? (treatment ? 0.3 : 0.9) : 0.95) + (index % 3) / 100, heuristicJudgement };
    });
    const report = buildExperimentReport(results, values, { experimentId: "exp", now });
    const correctness = report.metrics.find((metric) => metric.metric === "answer_correctness")!;
    assert.deepEqual([correctness.heuristicJudge, correctness.decides], [true, false]);
    assert.deepEqual(correctness.values.map((value) => [value.variant, value.observations, value.valuesLeftOut]), [["control", 5, 25], ["treatment", 30, 0]], "the heuristic judge's values of both arms, the control's language-model judge values left out");
    assert.deepEqual([correctness.comparisons[0]!.verdict, correctness.comparisons[0]!.indication], ["heuristic_not_decided", "worse"]);
    assert.match(correctness.caution ?? "", /an arm has only the heuristic judge's values.*the language-model judge's values left out so one judge measures every arm \(control 25\)/);
    assert.match(report.decisions[0]!, /heuristics, not decided \(a reason to look, never a verdict\): worse on answer_correctness \(heuristic judge, measurement\)/);
  });

  test("two lineage fields differing is warned about; a user in both variants is counted", () => {
    const results = [
      request(1, "control", { like: true, user: "shared" }),
      request(2, "control", { like: false }),
      request(3, "treatment", { like: true, user: "shared", model: "model-b", reranked: true }),
      request(4, "treatment", { like: false, model: "model-b", reranked: true }),
    ];
    const report = buildExperimentReport(results, [], { experimentId: "exp", now });
    assert.deepEqual(report.lineage.filter((field) => field.differs).map((field) => field.field), ["generator_model", "reranker"]);
    assert.ok(report.warnings.some((warning) => /more than one main variable differs between variants \(generator_model, reranker\)/.test(warning)));
    assert.equal(report.unitsInSeveralVariants, 1);
    assert.ok(report.warnings.some((warning) => /1 users saw more than one variant/.test(warning)));
  });

  test("one variant only: nothing compared, and it says why", () => {
    const report = buildExperimentReport([request(1, "control", { like: true }), request(2, "control", { like: false })], [], { experimentId: "exp", now });
    assert.equal(report.sampleRatio, null);
    assert.deepEqual(report.decisions, ["Nothing to compare: only one variant (control) has requests."]);
  });
  test("a metric whose values no variance can hold (1e200 and up) is not compared, saying why; the others are", () => {
    // A reader that gives such values (the stores keep none beyond 2^53 − 1) must not stop the report.
    const results = Array.from({ length: 40 }, (_, index) => request(index + 1, index < 20 ? "control" : "treatment", { like: index % 2 === 0 }));
    const metricValues = results.flatMap((result, index) => [
      { traceId: result.trace_id, metric: "cost", evaluatorId: "performance.usage", value: Number(`${1 + (index % 5)}e200`), heuristicJudgement: false },
      { traceId: result.trace_id, metric: "latency_ms", evaluatorId: "performance.usage", value: (index < 20 ? 1_000 : 2_000) + (index % 5) * 10, heuristicJudgement: false },
    ]);
    const report = buildExperimentReport(results, metricValues, { experimentId: "exp", now });
    const cost = report.metrics.find((metric) => metric.metric === "cost")!;
    const compared = cost.comparisons.find((item) => item.variant === "treatment")!;
    assert.deepEqual([compared.indication, compared.comparison], ["not_enough_data", null]);
    assert.equal(compared.note, "not compared: a value of 5e+200 is too large for the statistics, whose variances square the values (beyond the largest number past 1e+150)");
    const latency = report.metrics.find((metric) => metric.metric === "latency_ms")!.comparisons.find((item) => item.variant === "treatment")!;
    assert.equal(latency.indication, "worse");
  });
});
