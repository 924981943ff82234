/**
 * A Judge (evaluators/judge/judge.ts) whose verdicts a test scripts: a value
 * per metric (or a function of the request), pass when the value meets
 * `passAt`. It records every call, can be made to wait (a slow judge) and
 * charges a fixed cost per call, so queue, cache and budget behaviour can be
 * observed without a model.
 */
import type { Judge, JudgeMetric, JudgeOutcome, JudgeRequest } from "../../evaluators/judge/judge.js";

export interface ScriptedJudgeOptions {
  /** The value of a metric for a request; default 1. */
  value?: (request: JudgeRequest) => number;
  passAt?: number;
  costPerCall?: number;
  /** Awaited before answering (a slow judge); resolves immediately by default. */
  delay?: (request: JudgeRequest) => Promise<void>;
}

export class ScriptedJudge implements Judge {
  readonly id = "scripted";
  readonly model = "scripted-model";
  readonly promptVersion = "scripted@1";
  readonly confidenceSemantics = "judge_self_report" as const;
  readonly calls: { metric: JudgeMetric; caseResultId: string }[] = [];

  constructor(private readonly options: ScriptedJudgeOptions = {}) {}

  async judge(request: JudgeRequest): Promise<JudgeOutcome> {
    this.calls.push({ metric: request.metric, caseResultId: request.caseResult.case_result_id });
    await this.options.delay?.(request);
    const value = this.options.value?.(request) ?? 1;
    return {
      kind: value >= (this.options.passAt ?? 0.5) ? "pass" : "fail",
      metric: request.metric,
      value,
      reason: `scripted ${request.metric} = ${value}`,
      details: {},
      usage: { inputTokens: 100, outputTokens: 20, cost: this.options.costPerCall ?? 0.001, calls: 1, cached: false },
      judgeId: this.id,
      promptVersion: this.promptVersion,
    };
  }
}
