/**
 * The judge's spending limit holds under concurrent judging, as an operator
 * runs it: `ragscope serve` as a process with RAGSCOPE_JUDGE_SPENDING_LIMIT_PER_HOUR,
 * eight judge workers, eight sampled traces sent at once as OTLP/HTTP, and an
 * OpenAI-compatible endpoint (a local fake) that holds every answer until the
 * test has seen each call either arrive or be refused — so all of them are in
 * flight together, the case that used to overshoot (a limit of 0.05 ended at
 * 0.098).
 *
 * Input tokens are free and output costs 0.01 per 1k with at most 1,000
 * output tokens: a call costs at most 0.01, and every scripted answer uses all
 * 1,000. So the limit of 0.05 has room for exactly five calls; the expected
 * numbers below follow from that, not from the judge's code.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { readSample } from "../../../collector/wiring/observe/metrics-registry.js";
import { startCollectorSubprocess, type CollectorSubprocess } from "../../support/collector-subprocess.js";
import { recordLeaveRequests } from "../../support/leave-requests.js";
import { reply, startFakeChatCompletionsServer, type FakeChatCompletionsServer } from "../../support/fake-chat-completions-server.js";
import { postTraces, startSpanRecorder, toOtlpProtobuf, type SpanRecorder } from "../../support/recorded-spans.js";

const LIMIT = 0.05;
const TRACES = 8;

/** Scrapes /metrics (bounded) until `done` holds for it; returns that scrape. */
async function scrapeUntil(collector: CollectorSubprocess, description: string, done: (text: string) => boolean): Promise<string> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const text = await collector.metrics();
    if (done(text)) return text;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${description}:\n${collector.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const refusedIn = (text: string) => readSample(text, "ragscope_judge_grader_errors_total", { error_type: "budget_exhausted" }) ?? 0;
const outcomesIn = (text: string) => ["pass", "fail", "grader_error"].reduce((total, outcome) => total + (readSample(text, "ragscope_judge_outcomes_total", { outcome }) ?? 0), 0);

describe("ragscope serve: concurrent judge calls never spend past the hourly limit", () => {
  let server: FakeChatCompletionsServer;
  let recorder: SpanRecorder;
  let collector: CollectorSubprocess;
  let release: () => void = () => {};
  let final: string;

  before(async () => {
    server = await startFakeChatCompletionsServer();
    const released = new Promise<void>((resolve) => (release = resolve));
    server.respondWith(() =>
      reply.held(released, reply.json({ claims: [{ claim: "10 days of annual leave", supported: true, documents: ["D1"] }], reason: "scripted", confidence: "high" }, { promptTokens: 800, completionTokens: 1000 })),
    );
    recorder = startSpanRecorder("leave-bot");
    collector = await startCollectorSubprocess({
      RAGSCOPE_JUDGE_ENABLED: "true",
      RAGSCOPE_SAMPLE_RATE: "1",
      RAGSCOPE_JUDGE_BASE_URL: server.baseUrl,
      RAGSCOPE_JUDGE_MODEL: "fake-judge",
      RAGSCOPE_JUDGE_METRICS: "faithfulness",
      RAGSCOPE_JUDGE_STRUCTURED_OUTPUT: "json_object",
      RAGSCOPE_JUDGE_CONCURRENCY: String(TRACES),
      RAGSCOPE_JUDGE_SPENDING_LIMIT_PER_HOUR: String(LIMIT),
      RAGSCOPE_JUDGE_INPUT_PRICE_PER_1K: "0",
      RAGSCOPE_JUDGE_OUTPUT_PRICE_PER_1K: "0.01",
      RAGSCOPE_JUDGE_MAX_OUTPUT_TOKENS: "1000",
    });
    await recordLeaveRequests(TRACES);
    assert.equal(await postTraces(collector.receiverUrl, toOtlpProtobuf(recorder.spans())), 200);
    // Every call is at the endpoint (held) or refused before the first answer is released.
    await scrapeUntil(collector, `${TRACES} judge calls to be sent or refused`, (text) => server.requests.length + refusedIn(text) >= TRACES);
    release();
    final = await scrapeUntil(collector, `${TRACES} judged traces`, (text) => outcomesIn(text) >= TRACES);
  });

  after(async () => {
    release();
    await collector?.stop();
    await collector?.remove();
    await recorder?.shutdown();
    await server?.close();
  });

  test("five calls fit the limit and were sent; the other three were refused without a request", () => {
    assert.equal(server.requests.length, 5);
    assert.equal(readSample(final, "ragscope_judge_calls_total"), 5);
    assert.equal(readSample(final, "ragscope_judge_outcomes_total", { outcome: "pass" }), 5);
    assert.equal(refusedIn(final), 3);
  });

  test("the start line says the limit is this process's: N replicas can spend N times it", () => {
    assert.match(collector.output(), new RegExp(`limit ${LIMIT} per hour in this process \\(N replicas can spend N times it: set the group's budget ÷ replicas\\)`));
  });

  test("the spending ends at the limit, never past it", () => {
    const spent = readSample(final, "ragscope_judge_cost_usd_total");
    // Five answers of 1,000 output tokens at 0.01 per 1k.
    assert.equal(spent, 5 * 0.01);
    assert.ok(spent !== null && spent <= LIMIT, `spent ${spent}, limit ${LIMIT}`);
    assert.equal(readSample(final, "ragscope_judge_tokens_total", { type: "output" }), 5 * 1000);
  });
});
