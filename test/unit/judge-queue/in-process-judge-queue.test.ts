/**
 * The in-process judge queue's contract: acknowledged only on success,
 * redelivered after a failure, a newer request for a waiting Case Result
 * replaces the older one, and a full queue refuses instead of blocking.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { failure, success } from "../../../core/result.js";
import { InProcessJudgeQueue } from "../../../collector/09-judge/in-process-judge-queue.js";
import type { JudgeRequestMessage } from "../../../collector/09-judge/judge-request-message.js";
import { decodeJudgeRequest, encodeJudgeRequest } from "../../../collector/09-judge/judge-request-message.js";
import { onlineCaseResult } from "../../support/online-case-results.js";

function request(traceId: string, output = "answer"): JudgeRequestMessage {
  const caseResult = onlineCaseResult({ traceId, output });
  return { case_result_id: caseResult.case_result_id, case_result: caseResult, case_ref: null, sample_reason: "rate", enqueued_at: "2026-07-08T10:00:00.000Z" };
}

async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not reached");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe("in-process judge queue", () => {
  test("a failed batch is delivered again; only success acknowledges", async () => {
    const queue = new InProcessJudgeQueue({ maxQueued: 10, batchSize: 10, retryDelayMs: 5, maxRetryDelayMs: 10 });
    const deliveries: string[][] = [];
    await queue.start(async (batch) => {
      deliveries.push(batch.map((message) => message.case_result_id));
      return deliveries.length === 1 ? failure({ retriable: true, message: "sink down" }) : success(undefined);
    });
    await queue.enqueue([request("a1"), request("a2")]);
    await until(() => queue.isIdle() && deliveries.length === 2);
    await queue.close();
    assert.deepEqual(deliveries, [["cr_a1", "cr_a2"], ["cr_a1", "cr_a2"]]);
    assert.deepEqual([queue.counters.acknowledged, queue.counters.redelivered], [2, 2]);
  });

  test("a newer request replaces a waiting one; a full queue refuses at once", async () => {
    const queue = new InProcessJudgeQueue({ maxQueued: 2, batchSize: 10, retryDelayMs: 5, maxRetryDelayMs: 10 });
    assert.ok((await queue.enqueue([request("b1", "first version"), request("b2")])).ok);
    assert.ok((await queue.enqueue([request("b1", "re-opened trace, more spans")])).ok);
    const full = await queue.enqueue([request("b3")]);
    assert.ok(!full.ok);
    assert.equal(full.error.retriable, false);
    const seen: JudgeRequestMessage[] = [];
    await queue.start(async (batch) => {
      seen.push(...batch);
      return success(undefined);
    });
    await until(() => queue.isIdle());
    await queue.close();
    assert.deepEqual(seen.map((message) => [message.case_result_id, message.case_result.output]), [["cr_b1", "re-opened trace, more spans"], ["cr_b2", "answer"]]);
    assert.deepEqual([queue.counters.replaced, queue.counters.rejectedFull], [1, 1]);
  });

  test("messages round-trip through JSON and are validated at the boundary", () => {
    const message = request("c1");
    const decoded = decodeJudgeRequest(encodeJudgeRequest(message));
    assert.ok(decoded.ok);
    assert.deepEqual(decoded.value, message);
    const broken = decodeJudgeRequest(JSON.stringify({ ...message, case_result: { case_result_id: "" } }));
    assert.ok(!broken.ok);
    assert.match(broken.error, /case_result/);
    assert.ok(!decodeJudgeRequest("{not json").ok);
  });
});
