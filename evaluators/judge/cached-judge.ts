/**
 * A judge behind the cache: a hit answers the stored verdict with usage
 * `{ cached: true, calls: 0, cost: 0 }` and makes no call, so a replayed trace
 * costs nothing and its cost is not counted twice. Misses go to the inner judge;
 * its verdicts are stored, its grader errors are not. A request whose inputs
 * are already being judged waits for that verdict instead of paying for it twice.
 */
import type { Judge, JudgeOutcome, JudgeRequest } from "./judge.js";
import { cachedUsage } from "./judge.js";
import { judgeCacheKey, type JudgeCache } from "./judge-cache.js";
import { judgeInputsFor } from "./judge-inputs.js";
import { thresholdFor } from "./judge-thresholds.js";
import { rubricFor } from "./rubrics/rubric-registry.js";
import { WrappedJudge } from "./wrapped-judge.js";

export class CachedJudge extends WrappedJudge {
  private hitCount = 0;
  private missCount = 0;
  /** Calls to the inner judge not answered yet, by cache key. */
  private readonly inFlight = new Map<string, Promise<JudgeOutcome>>();

  constructor(
    inner: Judge,
    private readonly cache: JudgeCache,
  ) {
    super(inner);
  }

  async judge(request: JudgeRequest, signal?: AbortSignal): Promise<JudgeOutcome> {
    const key = judgeCacheKey({
      model: this.inner.model,
      // The judge's version and the metric's rubric version: either changing invalidates the entry.
      promptVersion: `${this.inner.promptVersion}/${rubricFor(request.metric).version}`,
      metric: request.metric,
      threshold: thresholdFor(request.metric, request.evalCase).source,
      inputs: judgeInputsFor(request.caseResult, request.evalCase),
    });
    const stored = await this.cache.get(key);
    if (stored !== undefined) {
      this.hitCount += 1;
      return { ...stored, usage: cachedUsage() };
    }
    // The same inputs already on their way to the judge (a case run twice at once by eval --repeat, a redelivered
    // trace, one popular question): wait for that verdict rather than pay for it again. Only a verdict is shared; after a
    // grader error (which is not cached either) this request calls the judge itself.
    const pending = this.inFlight.get(key);
    if (pending !== undefined) {
      const shared = await pending;
      if (shared.kind !== "grader_error") {
        this.hitCount += 1;
        return { ...shared, usage: cachedUsage() };
      }
    }
    this.missCount += 1;
    const call = this.inner.judge(request, signal);
    if (pending === undefined) this.inFlight.set(key, call);
    try {
      const outcome = await call;
      if (outcome.kind !== "grader_error") await this.cache.set(key, outcome);
      return outcome;
    } finally {
      if (this.inFlight.get(key) === call) this.inFlight.delete(key);
    }
  }

  get hits(): number {
    return this.hitCount;
  }

  get misses(): number {
    return this.missCount;
  }
}
