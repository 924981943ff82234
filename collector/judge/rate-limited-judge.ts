/**
 * A judge that takes a token from a TokenBucket before each call, keeping the
 * judge interface (evaluators/judge/judge.ts). Put it inside the cache
 * (CachedJudge(RateLimitedJudge(OpenAiJudge))) so cache hits, which call
 * nothing, take no token.
 */
import type { Judge, JudgeOutcome, JudgeRequest } from "../../evaluators/judge/judge.js";
import type { TokenBucket } from "./token-bucket.js";

export class RateLimitedJudge implements Judge {
  readonly id: string;
  readonly model: string;
  readonly promptVersion: string;
  readonly confidenceSemantics: "judge_self_report" | "heuristic";
  readonly metrics: Judge["metrics"];

  constructor(
    private readonly inner: Judge,
    private readonly bucket: TokenBucket,
  ) {
    this.id = inner.id;
    this.model = inner.model;
    this.promptVersion = inner.promptVersion;
    this.confidenceSemantics = inner.confidenceSemantics ?? "judge_self_report";
    this.metrics = inner.metrics;
  }

  async judge(request: JudgeRequest, signal?: AbortSignal): Promise<JudgeOutcome> {
    await this.bucket.acquire(signal);
    return this.inner.judge(request, signal);
  }
}
