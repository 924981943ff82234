/**
 * The deterministic judge sampler (collector/08-sample/): the same 10 % of
 * 10,000 traces on every run and in every instance, close to 1,000 of them,
 * forced cases always in, rates by tenant > route > service > default, and a
 * spending limit that stops sampling and says so.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { describe, test } from "node:test";
import { caseResult as caseResultSchema, type CaseResult } from "../../../contracts/case-result.js";
import type { EvaluationResult } from "../../../contracts/evaluation-result.js";
import { JudgeBudget } from "../../../evaluators/judge/judge-budget.js";
import { resolveSampleRate, type SampleRates } from "../../../collector/08-sample/sampling-rates.js";
import { traceSampleDraw } from "../../../collector/08-sample/trace-hash.js";
import { TraceSampler } from "../../../collector/08-sample/trace-sampler.js";

const TEN_PERCENT: SampleRates = { defaultRate: 0.1, services: {}, routes: {}, tenants: {} };

/** 10,000 trace ids from a seeded generator (xorshift), the same on every run. */
function traceIds(count: number, seed = 20260708): string[] {
  let state = seed >>> 0;
  const next = () => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state.toString(16).padStart(8, "0");
  };
  return Array.from({ length: count }, () => `${next()}${next()}${next()}${next()}`);
}

interface TraceInput {
  traceId: string;
  status?: CaseResult["execution_status"];
  serviceName?: string | null;
  route?: string | null;
  tenantId?: string | null;
  abstained?: boolean | null;
  feedback?: unknown;
}

function evaluation(input: TraceInput, ruleMetrics: Record<string, number | null> = {}) {
  const caseResult = caseResultSchema.parse({
    case_result_id: `cr_${input.traceId}`,
    run_id: "",
    case_id: "",
    case_version: "",
    execution_status: input.status ?? "completed",
    quality_status: "passed",
    input_snapshot_uri: null,
    output: "answer",
    rag_observation: { retrieved_chunks: null, context: null, citations: null, abstained: input.abstained ?? null, service_name: input.serviceName ?? null, route: input.route ?? null, tenant_id: input.tenantId ?? null },
    trace_id: input.traceId,
    execution_error: { type: input.status === "failed" ? "system_error" : "none", message: null },
    started_at: "2026-07-08T09:31:12.000Z",
    completed_at: "2026-07-08T09:31:15.000Z",
  });
  // The feedback field is read when a trace carries it; the contract has no slot for it yet.
  if (input.feedback !== undefined) (caseResult.rag_observation as Record<string, unknown>).feedback = input.feedback;
  const evaluationResults: EvaluationResult[] = Object.keys(ruleMetrics).length === 0 ? [] : [{
    evaluation_result_id: `er_${input.traceId}`,
    case_result_id: caseResult.case_result_id,
    evaluator_id: "rules",
    evaluator_version: "1",
    metric_values: ruleMetrics,
    outcome: "passed",
    reason: "",
    evidence_refs: [],
    confidence: { value: 1, semantics: "deterministic_rule" },
    review_required: false,
    error_type: "none",
    evaluated_at: "2026-07-08T10:00:00.000Z",
  }];
  return { caseResult, evaluationResults };
}

const chosen = (sampler: TraceSampler, ids: readonly string[]) => new Set(ids.filter((traceId) => sampler.decide(evaluation({ traceId })).sampled));

describe("deterministic sampling by trace id", () => {
  const ids = traceIds(10_000);

  test("10 % of 10,000: the same set in two runs and two instances, within a binomial tolerance of 1,000", () => {
    const first = chosen(new TraceSampler({ rates: TEN_PERCENT }), ids);
    const second = chosen(new TraceSampler({ rates: TEN_PERCENT }), ids);
    const rerun = chosen(new TraceSampler({ rates: TEN_PERCENT }), [...ids].reverse());
    assert.deepEqual([...second].sort(), [...first].sort());
    assert.deepEqual([...rerun].sort(), [...first].sort());
    // Binomial(10000, 0.1): mean 1000, standard deviation sqrt(10000 · 0.1 · 0.9) = 30; 4 sd = 120.
    assert.ok(Math.abs(first.size - 1000) <= 120, `chose ${first.size}`);
    // The rate-only view agrees with the full decision (every evaluator sees the same sample).
    const rateOnly = new TraceSampler({ rates: TEN_PERCENT });
    assert.deepEqual(ids.filter((traceId) => rateOnly.chooses(traceId, { serviceName: null, route: null, tenantId: null })).sort(), [...first].sort());
  });

  test("another process (another run) chooses the same 10 %", () => {
    const inThisProcess = ids.filter((traceId) => traceSampleDraw(traceId) < 0.1);
    const module = fileURLToPath(new URL("../../../collector/08-sample/trace-hash.ts", import.meta.url));
    const script = `import { traceSampleDraw } from ${JSON.stringify(module)}; let input = ""; for await (const chunk of process.stdin) input += chunk; const ids = JSON.parse(input); process.stdout.write(JSON.stringify(ids.filter((id) => traceSampleDraw(id) < 0.1)));`;
    const output = execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { encoding: "utf8", input: JSON.stringify(ids) });
    const digest = (list: readonly string[]) => createHash("sha256").update(list.join(",")).digest("hex");
    assert.equal(digest(JSON.parse(output) as string[]), digest(inThisProcess));
  });

  test("the draw depends on the trace id only: upper or lower case, any process", () => {
    const id = "4BF92F3577B34DA6A3CE929D0E0E4736";
    assert.equal(traceSampleDraw(id), traceSampleDraw(id.toLowerCase()));
    const draw = traceSampleDraw(randomBytes(16).toString("hex"));
    assert.ok(draw >= 0 && draw < 1);
    // A lower rate's sample is inside a higher rate's: raising the rate only adds traces.
    const five = chosen(new TraceSampler({ rates: { ...TEN_PERCENT, defaultRate: 0.05 } }), ids);
    const ten = chosen(new TraceSampler({ rates: TEN_PERCENT }), ids);
    assert.ok([...five].every((traceId) => ten.has(traceId)));
  });

  test("forced cases are always in: errors, negative feedback, abstentions, sensitive-data hits, heuristic review signals", () => {
    const sampler = new TraceSampler({ rates: { ...TEN_PERCENT, defaultRate: 0 } });
    const forced = [
      [evaluation({ traceId: ids[0]!, status: "failed" }), ["error"]],
      [evaluation({ traceId: ids[1]!, feedback: { kind: "thumbs", value: "down" } }), ["negative_feedback"]],
      [evaluation({ traceId: ids[2]!, feedback: [{ value: "up" }, { value: -1 }] }), ["negative_feedback"]],
      [evaluation({ traceId: ids[3]!, abstained: true }), ["abstention"]],
      [evaluation({ traceId: ids[4]! }, { abstained: 1 }), ["abstention"]],
      [evaluation({ traceId: ids[5]! }, { sensitive_data_in_answer: 1 }), ["sensitive_data"]],
    ] as const;
    for (const [item, reasons] of forced) {
      const decision = sampler.decide(item);
      assert.equal(decision.sampled, true, item.caseResult.trace_id);
      assert.deepEqual(decision.forced, reasons);
    }
    // And not forced: positive feedback, no abstention, no sensitive data.
    for (const item of [evaluation({ traceId: ids[6]!, feedback: { value: "up" } }), evaluation({ traceId: ids[7]! }, { abstained: 0, sensitive_data_in_answer: 0 })]) {
      assert.equal(sampler.decide(item).sampled, false);
    }
    // A late thumbs-down alone (a trace of one feedback span, merged into its request by the sink) has nothing to judge.
    const lateEvent = evaluation({ traceId: ids[9]!, feedback: [{ kind: "thumbs_down", value: null, comment: null, recorded_at: "2026-07-10T00:00:00.000Z", span_id: "a1b2c3d4e5f60718", chunk_id: null }] });
    lateEvent.caseResult.rag_observation.span_count = 1;
    lateEvent.caseResult.rag_observation.partial_trace = true;
    assert.deepEqual([sampler.decide(lateEvent).sampled, sampler.decide(lateEvent).reason], [false, "user_events_only"]);
    // A heuristic signal against the case (an overlap measure's review rule held) routes it to the judge.
    const flagged = evaluation({ traceId: ids[8]! }, { heuristic_groundedness: 0 });
    flagged.evaluationResults[0] = { ...flagged.evaluationResults[0]!, outcome: "measured", review_required: true };
    assert.deepEqual(sampler.decide(flagged).forced, ["heuristic_review"]);
    const needsReview = evaluation({ traceId: ids[9]! });
    assert.deepEqual(sampler.decide({ ...needsReview, caseResult: { ...needsReview.caseResult, quality_status: "review_required" } }).forced, ["heuristic_review"]);
    // Among 10,000 traces at 10 %, every forced one is in, whatever its draw.
    const withForced = new TraceSampler({ rates: TEN_PERCENT });
    const forcedIds = new Set(ids.filter((_, index) => index % 97 === 0));
    for (const traceId of ids) {
      const decision = withForced.decide(evaluation({ traceId, status: forcedIds.has(traceId) ? "timeout" : "completed" }));
      if (forcedIds.has(traceId)) assert.equal(decision.sampled, true);
    }
    assert.equal(withForced.counters.sampledForced, forcedIds.size);
  });

  test("rates: tenant over route over service over default", () => {
    const rates: SampleRates = { defaultRate: 0.1, services: { "support-bot": 0.5 }, routes: { "/refund": 0.2 }, tenants: { acme: 1, test_tenant: 0 } };
    assert.deepEqual(resolveSampleRate(rates, { serviceName: "support-bot", route: "/refund", tenantId: "acme" }), { rate: 1, source: "tenant" });
    assert.deepEqual(resolveSampleRate(rates, { serviceName: "support-bot", route: "/refund", tenantId: "globex" }), { rate: 0.2, source: "route" });
    assert.deepEqual(resolveSampleRate(rates, { serviceName: "support-bot", route: "/faq", tenantId: null }), { rate: 0.5, source: "service" });
    assert.deepEqual(resolveSampleRate(rates, { serviceName: "other", route: null, tenantId: null }), { rate: 0.1, source: "default" });
    const sampler = new TraceSampler({ rates });
    const sampleOf = (tenantId: string) => ids.slice(0, 500).filter((traceId) => sampler.decide(evaluation({ traceId, tenantId })).sampled).length;
    assert.equal(sampleOf("acme"), 500);
    assert.equal(sampleOf("test_tenant"), 0);
    assert.throws(() => new TraceSampler({ rates: { ...rates, routes: { "/x": 1.5 } } }), /routes\.\/x must be between 0 and 1/);
  });

  test("an exhausted spending limit stops sampling, forced cases included, and says so once", () => {
    let now = Date.parse("2026-07-08T10:00:00Z");
    const budget = new JudgeBudget({ limitPerHour: 1, now: () => now });
    const lines: string[] = [];
    const sampler = new TraceSampler({ rates: { ...TEN_PERCENT, defaultRate: 1 }, budget, log: (line) => lines.push(line) });
    assert.equal(sampler.decide(evaluation({ traceId: ids[0]! })).sampled, true);
    budget.record(1.2);
    const skipped = sampler.decide(evaluation({ traceId: ids[1]! }));
    assert.equal(skipped.sampled, false);
    assert.equal(skipped.reason, "budget_exhausted");
    assert.equal(sampler.decide(evaluation({ traceId: ids[2]!, status: "failed" })).sampled, false);
    // A trace sampled before the limit and still queued is not judged now either, counted apart; the stop is said once.
    assert.equal(sampler.admitsQueued(), false);
    assert.deepEqual(sampler.counters, { decided: 3, userEventsOnly: 0, sampledByRate: 1, sampledForced: 0, notSampled: 0, skippedBudget: 2, forcedSkippedBudget: 1, budgetExhaustions: 1, queuedSkippedBudget: 1 });
    assert.equal(lines.length, 1);
    assert.match(lines[0]!, /judge sampling stopped: judge spending limit reached/);
    // An hour later the spending has left the window: sampling resumes, and says so.
    now += 60 * 60 * 1000 + 1;
    assert.equal(sampler.decide(evaluation({ traceId: ids[3]! })).sampled, true);
    assert.match(lines[1]!, /resumed/);
    assert.equal(sampler.admitsQueued(), true);
  });

  test("while the spending limit is reached, only traces the rate or a forced reason would choose count as skipped for it", () => {
    const budget = new JudgeBudget({ limitPerHour: 1, now: () => Date.parse("2026-07-08T10:00:00Z") });
    budget.record(1.2);
    const sampler = new TraceSampler({ rates: TEN_PERCENT, budget, log: () => {} });
    const chosenByRate = ids.filter((traceId) => sampler.chooses(traceId, { serviceName: null, route: null, tenantId: null })).length;
    const reasons = ids.map((traceId) => sampler.decide(evaluation({ traceId })).reason);
    assert.ok(chosenByRate > 0 && chosenByRate < ids.length);
    assert.equal(reasons.filter((reason) => reason === "budget_exhausted").length, chosenByRate);
    assert.equal(reasons.filter((reason) => reason === "not_sampled").length, ids.length - chosenByRate);
    assert.equal(sampler.counters.skippedBudget, chosenByRate);
    assert.equal(sampler.counters.notSampled, ids.length - chosenByRate);
  });

  test("the stop and the resumption are said and counted when they happen, though no trace the rate chooses arrives", () => {
    let now = Date.parse("2026-07-08T10:00:00Z");
    const budget = new JudgeBudget({ limitPerHour: 1, now: () => now });
    const lines: string[] = [];
    // A rate no trace meets: every trace below is one the rate does not choose, and none is forced.
    const sampler = new TraceSampler({ rates: { ...TEN_PERCENT, defaultRate: 0 }, budget, log: (line) => lines.push(line) });
    budget.record(1.2);
    assert.equal(sampler.decide(evaluation({ traceId: ids[0]! })).reason, "not_sampled");
    assert.equal(sampler.counters.budgetExhaustions, 1);
    assert.deepEqual(lines.map((line) => /sampling (stopped|resumed)/.exec(line)?.[1]), ["stopped"]);
    assert.equal(sampler.decide(evaluation({ traceId: ids[1]! })).reason, "not_sampled");
    now += 60 * 60 * 1000 + 1;
    assert.equal(sampler.decide(evaluation({ traceId: ids[2]! })).reason, "not_sampled");
    assert.deepEqual(lines.map((line) => /sampling (stopped|resumed)/.exec(line)?.[1]), ["stopped", "resumed"]);
    assert.equal(sampler.counters.budgetExhaustions, 1);
    // Only traces the limit keeps from the judge count as skipped for it: none here.
    assert.equal(sampler.counters.skippedBudget, 0);
    assert.equal(sampler.counters.notSampled, 3);
  });

  test("a stop and a resumption seen only by traces already queued are said and counted too", () => {
    let now = Date.parse("2026-07-08T10:00:00Z");
    const budget = new JudgeBudget({ limitPerHour: 1, now: () => now });
    const lines: string[] = [];
    const sampler = new TraceSampler({ rates: TEN_PERCENT, budget, log: (line) => lines.push(line) });
    budget.record(1.2);
    assert.equal(sampler.admitsQueued(), false);
    now += 60 * 60 * 1000 + 1;
    assert.equal(sampler.admitsQueued(), true);
    budget.record(1.2);
    assert.equal(sampler.admitsQueued(), false);
    assert.deepEqual(lines.map((line) => /sampling (stopped|resumed)/.exec(line)?.[1]), ["stopped", "resumed", "stopped"]);
    assert.equal(sampler.counters.budgetExhaustions, 2);
  });
});
