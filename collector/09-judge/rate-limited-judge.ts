/**
 * A judge that takes a token from a TokenBucket before each call, keeping the
 * judge interface (evaluators/judge/judge.ts). Put it inside the cache
 * (CachedJudge(RateLimitedJudge(OpenAiJudge))) so cache hits, which call
 * nothing, take no token.
 */
import type { Judge, JudgeOutcome, JudgeRequest } from "../../evaluators/judge/judge.js";
import { WrappedJudge } from "../../evaluators/judge/wrapped-judge.js";
import type { TokenBucket } from "./token-bucket.js";

export class RateLimitedJudge extends WrappedJudge {
  constructor(
    inner: Judge,
    private readonly bucket: TokenBucket,
  ) {
    super(inner);
  }

  async judge(request: JudgeRequest, signal?: AbortSignal): Promise<JudgeOutcome> {
    await this.bucket.acquire(signal);
    return this.inner.judge(request, signal);
  }
}
