/**
 * A judge behind the cache: a hit answers the stored verdict with usage
 * `{ cached: true, calls: 0, cost: 0 }` and makes no call, so a replayed trace
 * costs nothing and its cost is not counted twice. Misses go to the inner judge;
 * its verdicts are stored, its grader errors are not. A request whose inputs
 * are already being judged waits for that verdict instead of paying for it twice
 * (shared-judge-call.ts): until its own signal aborts, which ends its wait at once
 * with a `timeout` grader error while the call goes on for the others.
 */
import type { Judge, JudgeOutcome, JudgeRequest } from "./judge.js";
import { cachedUsage, noUsage } from "./judge.js";
import { judgeCacheKey, type JudgeCache } from "./judge-cache.js";
import { judgeInputsFor } from "./judge-inputs.js";
import { thresholdFor } from "./judge-thresholds.js";
import { rubricFor } from "./rubrics/rubric-registry.js";
import { SharedJudgeCall } from "./shared-judge-call.js";
import { WrappedJudge } from "./wrapped-judge.js";

export class CachedJudge extends WrappedJudge {
  private hitCount = 0;
  private missCount = 0;
  /** Calls to the inner judge not answered yet, by cache key. */
  private readonly inFlight = new Map<string, SharedJudgeCall>();

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
    // trace, one popular question): wait for that verdict rather than pay for it again.
    const joined = this.inFlight.get(key);
    const shared = joined?.open === true ? joined : this.start(key, request);
    const waited = await shared.wait(signal);
    if (waited.kind === "left") {
      return { kind: "grader_error", metric: request.metric, errorType: "timeout", message: "the judge call was aborted by the caller while it waited for the verdict of a request with the same inputs", usage: noUsage(), judgeId: this.id, promptVersion: this.promptVersion };
    }
    if (waited.kind === "own") return waited.outcome;
    if (waited.outcome.kind !== "grader_error") {
      this.hitCount += 1;
      return { ...waited.outcome, usage: cachedUsage() };
    }
    // Only a verdict is shared: after a grader error (which is not cached either), reported by the request it answered
    // first, the others call the judge again, together.
    return this.judge(request, signal);
  }

  /** Calls the inner judge for `request`, stores its verdict, and lets later requests with the same inputs join it. */
  private start(key: string, request: JudgeRequest): SharedJudgeCall {
    this.missCount += 1;
    const shared = new SharedJudgeCall(async (signal) => {
      const outcome = await this.inner.judge(request, signal);
      if (outcome.kind !== "grader_error") await this.cache.set(key, outcome);
      return outcome;
    });
    this.inFlight.set(key, shared);
    const forget = () => {
      if (this.inFlight.get(key) === shared) this.inFlight.delete(key);
    };
    shared.outcome.then(forget, forget);
    return shared;
  }

  get hits(): number {
    return this.hitCount;
  }

  get misses(): number {
    return this.missCount;
  }
}
