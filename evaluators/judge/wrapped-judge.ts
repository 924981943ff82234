/**
 * What a judge wrapper (cache, rate limit, usage ledger) shows of the judge it
 * wraps: one place copies the identity fields, so a field added to Judge is
 * forwarded by every wrapper at once (a wrapper that forgot `metrics` once made
 * the heuristic judge judge metrics it does not support).
 */
import type { Judge, JudgeOutcome, JudgeRequest } from "./judge.js";

export type JudgeIdentity = Pick<Judge, "id" | "model" | "promptVersion" | "metrics"> & { confidenceSemantics: "judge_self_report" | "heuristic" };

export function judgeIdentity(inner: Judge): JudgeIdentity {
  return {
    id: inner.id,
    model: inner.model,
    promptVersion: inner.promptVersion,
    confidenceSemantics: inner.confidenceSemantics ?? "judge_self_report",
    metrics: inner.metrics,
  };
}

/** A judge that shows the identity of the judge it wraps and adds behaviour around its calls. */
export abstract class WrappedJudge implements Judge {
  readonly id: string;
  readonly model: string;
  readonly promptVersion: string;
  readonly confidenceSemantics: "judge_self_report" | "heuristic";
  readonly metrics: Judge["metrics"];

  constructor(protected readonly inner: Judge) {
    const identity = judgeIdentity(inner);
    this.id = identity.id;
    this.model = identity.model;
    this.promptVersion = identity.promptVersion;
    this.confidenceSemantics = identity.confidenceSemantics;
    this.metrics = identity.metrics;
  }

  abstract judge(request: JudgeRequest, signal?: AbortSignal): Promise<JudgeOutcome>;
}
