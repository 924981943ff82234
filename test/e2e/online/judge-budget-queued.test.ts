/**
 * Traces sampled in a burst, still in the judge queue when the spending limit is reached, are left unjudged and
 * counted, as sampling stops then: they were each turned into a budget_exhausted grader error, and every one became a
 * review item. `ragscope serve` as a process with RAGSCOPE_JUDGE_SPENDING_LIMIT_PER_HOUR and one judge worker, ten
 * sampled traces in one OTLP/HTTP request, an OpenAI-compatible endpoint (a local fake).
 *
 * Input tokens are free, output costs 0.01 per 1k, at most 100 output tokens: a call costs at most 0.001, and every
 * scripted answer uses all 100. A limit of 0.0015 has room for one call; the second is refused (its worst case no
 * longer fits), and from then the budget is exhausted: the other eight wait in the queue and are left unjudged.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { readSample } from "../../../collector/wiring/observe/metrics-registry.js";
import { startCollectorSubprocess, type CollectorSubprocess } from "../../support/collector-subprocess.js";
import { recordLeaveRequests } from "../../support/leave-requests.js";
import { reply, startFakeChatCompletionsServer, type FakeChatCompletionsServer } from "../../support/fake-chat-completions-server.js";
import { postTraces, startSpanRecorder, toOtlpProtobuf, type SpanRecorder } from "../../support/recorded-spans.js";

const TRACES = 10;
/** Sent once the limit is reached: the sampler decides them while it is, so none is queued. */
const LATER_TRACES = 3;

describe("ragscope serve: traces queued when the spending limit is reached are left unjudged, not grader errors", () => {
  let server: FakeChatCompletionsServer;
  let recorder: SpanRecorder;
  let collector: CollectorSubprocess;
  let final: string;

  before(async () => {
    server = await startFakeChatCompletionsServer();
    server.respondWith(() => reply.json({ claims: [{ claim: "10 days of annual leave", supported: true, documents: ["D1"] }], reason: "scripted", confidence: "high" }, { promptTokens: 800, completionTokens: 100 }));
    recorder = startSpanRecorder("leave-bot");
    collector = await startCollectorSubprocess({
      RAGSCOPE_JUDGE_ENABLED: "true",
      RAGSCOPE_SAMPLE_RATE: "1",
      RAGSCOPE_JUDGE_BASE_URL: server.baseUrl,
      RAGSCOPE_JUDGE_MODEL: "fake-judge",
      RAGSCOPE_JUDGE_METRICS: "faithfulness",
      RAGSCOPE_JUDGE_STRUCTURED_OUTPUT: "json_object",
      RAGSCOPE_JUDGE_CONCURRENCY: "1",
      RAGSCOPE_JUDGE_SPENDING_LIMIT_PER_HOUR: "0.0015",
      RAGSCOPE_JUDGE_INPUT_PRICE_PER_1K: "0",
      RAGSCOPE_JUDGE_OUTPUT_PRICE_PER_1K: "0.01",
      RAGSCOPE_JUDGE_MAX_OUTPUT_TOKENS: "100",
    });
    await recordLeaveRequests(TRACES);
    assert.equal(await postTraces(collector.receiverUrl, toOtlpProtobuf(recorder.spans())), 200);
    const deadline = Date.now() + 60_000;
    for (;;) {
      final = await collector.metrics();
      const outcomes = ["pass", "fail", "grader_error"].reduce((total, outcome) => total + (readSample(final, "ragscope_judge_outcomes_total", { outcome }) ?? 0), 0);
      if (outcomes + (readSample(final, "ragscope_judge_skipped_for_budget_total", { when: "queued" }) ?? 0) >= TRACES) break;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${TRACES} traces judged or skipped:\n${collector.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });

  after(async () => {
    await collector?.stop();
    await collector?.remove();
    await recorder?.shutdown();
    await server?.close();
  });

  test("one call sent, one refused by the limit, the other eight left unjudged and counted; the stop is said", () => {
    assert.equal(server.requests.length, 1);
    assert.equal(readSample(final, "ragscope_judge_outcomes_total", { outcome: "pass" }), 1);
    assert.equal(readSample(final, "ragscope_judge_grader_errors_total", { error_type: "budget_exhausted" }), 1, "it was 9");
    assert.equal(readSample(final, "ragscope_judge_skipped_for_budget_total", { when: "queued" }), 8);
    assert.equal(readSample(final, "ragscope_judge_skipped_for_budget_total", { when: "sampling" }), 0);
    assert.match(collector.output(), /ragscope sampler: judge sampling stopped: /);
  });

  test("traces that arrive while the limit is reached are skipped at sampling and counted apart from the queued ones", async () => {
    recorder.reset();
    await recordLeaveRequests(LATER_TRACES);
    assert.equal(await postTraces(collector.receiverUrl, toOtlpProtobuf(recorder.spans())), 200);
    const deadline = Date.now() + 60_000;
    let metrics = await collector.metrics();
    while ((readSample(metrics, "ragscope_judge_skipped_for_budget_total", { when: "sampling" }) ?? 0) < LATER_TRACES) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${LATER_TRACES} traces skipped at sampling:\n${collector.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
      metrics = await collector.metrics();
    }
    assert.equal(readSample(metrics, "ragscope_judge_skipped_for_budget_total", { when: "sampling" }), LATER_TRACES);
    assert.equal(readSample(metrics, "ragscope_judge_skipped_for_budget_total", { when: "queued" }), 8);
    assert.equal(server.requests.length, 1, "nothing more was sent to the judge");
  });
});
