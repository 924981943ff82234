import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { summarizeLatency } from "../../../../evaluators/aggregate/latency-summary.js";
import { summarizeReliability } from "../../../../evaluators/aggregate/reliability-summary.js";
import { summarizeTaskSuccess } from "../../../../evaluators/aggregate/task-success.js";
import { summarizeUsage } from "../../../../evaluators/aggregate/usage-summary.js";
import type { MetricValue } from "../../../../evaluators/metric-value.js";
import { caseResultWith } from "../rules/build-case-result.js";

const valueOf = (value: MetricValue) => (value.applicable ? value.value : null);
const timing = (stage: string, duration_ms: number) => ({ stage, span_name: `rag.${stage}`, duration_ms, status: "ok" as const });
const usage = (cost: number | null, input: number | null = null) => ({ model: null, input_tokens: input, output_tokens: null, total_tokens: null, cost, time_to_first_token_ms: null });

describe("latency", () => {
  test("request and per-stage percentiles; a stage's spans in one request add up", () => {
    const requests = [
      caseResultWith({ latency_ms: 1000, stage_timings: [timing("retrieve", 100), timing("retrieve", 50), timing("generate", 700)] }),
      caseResultWith({ latency_ms: 3000, stage_timings: [timing("retrieve", 300), timing("rerank", 80)] }),
      caseResultWith({ latency_ms: null, generation: { ...usage(null), time_to_first_token_ms: 250 } }),
    ];
    const latency = summarizeLatency(requests);
    assert.equal(latency.request.count, 2);
    assert.equal(valueOf(latency.request.p50), 1000);
    assert.equal(valueOf(latency.request.p95), 3000);
    assert.deepEqual(Object.keys(latency.stages), ["generate", "rerank", "retrieve"]);
    assert.equal(latency.stages.retrieve!.count, 2);
    assert.equal(valueOf(latency.stages.retrieve!.p50), 150);
    assert.equal(valueOf(latency.stages.retrieve!.mean), 225);
    assert.equal(valueOf(latency.timeToFirstToken.p99), 250);
  });

  test("no requests: counts 0, nothing applicable", () => {
    const latency = summarizeLatency([]);
    assert.equal(latency.request.count, 0);
    assert.equal(valueOf(latency.request.p95), null);
    assert.deepEqual(latency.stages, {});
  });
});

describe("reliability and task success", () => {
  const completedPassed = caseResultWith({}, { quality_status: "passed" });
  const completedFailed = caseResultWith({}, { quality_status: "failed" });
  const timedOut = caseResultWith({}, { execution_status: "failed", execution_error: { type: "timeout", message: null } });
  const crashed = caseResultWith({}, { execution_status: "failed", execution_error: { type: "system_error", message: "boom" } });
  const online = caseResultWith({}, { quality_status: "not_evaluated" });
  const partial = caseResultWith({}, { execution_status: "partial", quality_status: "review_required" });

  test("timeouts and errors are disjoint; partial traces are counted apart", () => {
    const reliability = summarizeReliability([completedPassed, completedFailed, timedOut, crashed, online, partial]);
    assert.equal(reliability.timeouts, 1);
    assert.equal(reliability.errors, 1);
    assert.equal(reliability.partial, 1);
    assert.equal(valueOf(reliability.errorRate), 1 / 6);
    assert.equal(valueOf(reliability.timeoutRate), 1 / 6);
    assert.equal(valueOf(summarizeReliability([]).errorRate), null);
  });

  test("success: passed / requests with a verdict (failed executions count, unevaluated online traffic does not)", () => {
    const success = summarizeTaskSuccess([completedPassed, completedFailed, timedOut, crashed, online, partial]);
    assert.equal(success.judged, 5);
    assert.equal(success.succeeded, 1);
    assert.equal(success.notEvaluated, 1);
    assert.equal(success.reviewRequired, 1);
    assert.equal(valueOf(success.rate), 1 / 5);
    assert.equal(valueOf(summarizeTaskSuccess([online]).rate), null);
  });
});

describe("usage and cost", () => {
  test("totals and means over the requests that recorded them; cost per successful task over all cost, when every request recorded one", () => {
    const requests = [
      caseResultWith({ generation: usage(0.02, 1000) }, { quality_status: "passed" }),
      caseResultWith({ generation: usage(0.03, 3000) }, { quality_status: "failed" }),
      // A generation (its model recorded) without a cost.
      caseResultWith({ generation: { ...usage(null), model: "m" } }, { quality_status: "passed" }),
    ];
    const summary = summarizeUsage(requests);
    assert.equal(summary.cost.recorded, 2);
    assert.ok(Math.abs(valueOf(summary.cost.total)! - 0.05) < 1e-12);
    assert.ok(Math.abs(valueOf(summary.cost.mean)! - 0.025) < 1e-12);
    assert.equal(valueOf(summary.inputTokens.mean), 2000);
    assert.equal(valueOf(summary.outputTokens.total), null);
    // 0.05 recorded over 2 successful tasks, but one request's cost is not known: so is not the run's total, nor its
    // cost per task (it read 0.025, the unpriced request taken as free).
    assert.equal(valueOf(summary.costPerSuccessfulTask), null);
    assert.match(summary.costPerSuccessfulTask.applicable ? "" : summary.costPerSuccessfulTask.reason, /^1 of 3 requests called a model and recorded no cost, so the run's total cost is not known/);
    // Every request priced: the total of all of them (the failed one cost money too) over the successes.
    const priced = summarizeUsage([requests[0]!, requests[1]!]);
    assert.ok(Math.abs(valueOf(priced.costPerSuccessfulTask)! - 0.05) < 1e-12);
    // A request that called no model (its task failed before generating) cost nothing the total could miss.
    const withoutCall = caseResultWith({ generation: { model: null, input_tokens: null, output_tokens: null, total_tokens: null, cost: null, time_to_first_token_ms: null } }, { quality_status: "failed" });
    assert.ok(Math.abs(valueOf(summarizeUsage([requests[0]!, requests[1]!, withoutCall]).costPerSuccessfulTask)! - 0.05) < 1e-12);
  });

  test("no success or no cost: cost per successful task not applicable", () => {
    assert.equal(valueOf(summarizeUsage([caseResultWith({ generation: usage(0.02) }, { quality_status: "failed" })]).costPerSuccessfulTask), null);
    assert.equal(valueOf(summarizeUsage([caseResultWith({}, { quality_status: "passed" })]).costPerSuccessfulTask), null);
    assert.equal(valueOf(summarizeUsage([]).cost.total), null);
  });
});
