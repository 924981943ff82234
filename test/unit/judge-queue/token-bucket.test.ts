/**
 * The judge workers' rate limit, on a virtual clock: a burst of `capacity`,
 * then one call per 1/rate seconds; and the rate-limited judge waits for its
 * token before every call.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { RateLimitedJudge } from "../../../collector/09-judge/rate-limited-judge.js";
import { TokenBucket } from "../../../collector/09-judge/token-bucket.js";
import { onlineCaseResult } from "../../support/online-case-results.js";
import { ScriptedJudge } from "../../support/scripted-judge.js";

function virtualClock() {
  let now = 0;
  return { now: () => now, sleep: async (ms: number) => void (now += ms) };
}

describe("token bucket", () => {
  test("a burst of capacity, then the refill rate", async () => {
    const clock = virtualClock();
    const bucket = new TokenBucket({ ratePerSecond: 2, capacity: 3, ...clock });
    const times: number[] = [];
    for (let call = 0; call < 7; call += 1) {
      await bucket.acquire();
      times.push(clock.now());
    }
    // 3 at once, then every 500 ms.
    assert.deepEqual(times, [0, 0, 0, 500, 1000, 1500, 2000]);
  });

  test("concurrent acquisitions are served in order, each with its own token", async () => {
    const clock = virtualClock();
    const bucket = new TokenBucket({ ratePerSecond: 10, capacity: 1, ...clock });
    const order: number[] = [];
    await Promise.all([0, 1, 2, 3].map(async (index) => {
      await bucket.acquire();
      order.push(index);
    }));
    assert.deepEqual(order, [0, 1, 2, 3]);
    assert.equal(clock.now(), 300);
  });

  test("the rate-limited judge takes a token per call and keeps the judge's identity", async () => {
    const clock = virtualClock();
    const inner = new ScriptedJudge();
    const judge = new RateLimitedJudge(inner, new TokenBucket({ ratePerSecond: 1, capacity: 1, ...clock }));
    assert.deepEqual([judge.id, judge.model, judge.promptVersion], [inner.id, inner.model, inner.promptVersion]);
    const caseResult = onlineCaseResult({ output: "a", context: "b" });
    await judge.judge({ metric: "faithfulness", caseResult, evalCase: null });
    await judge.judge({ metric: "answer_relevance", caseResult, evalCase: null });
    assert.equal(inner.calls.length, 2);
    assert.equal(clock.now(), 1000);
  });
});
