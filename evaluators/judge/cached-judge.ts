/**
 * A judge behind the cache: a hit answers the stored verdict with usage
 * `{ cached: true, calls: 0, cost: 0 }` and makes no call, so a replayed trace
 * costs nothing and its cost is not counted twice. Misses go to the inner judge;
 * its verdicts are stored, its grader errors are not.
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
    this.missCount += 1;
    const outcome = await this.inner.judge(request, signal);
    if (outcome.kind !== "grader_error") await this.cache.set(key, outcome);
    return outcome;
  }

  get hits(): number {
    return this.hitCount;
  }

  get misses(): number {
    return this.missCount;
  }
}
