/**
 * The LLM judge's counters on /metrics, as a platform engineer meets them:
 * `ragscope serve` started as a process, its judge an OpenAI-compatible
 * endpoint (a local fake with scripted answers and usage), SDK spans sent as
 * OTLP/HTTP, /metrics scraped.
 *
 * - Before any traffic every judge series is there at 0, each grader error
 *   type included: rate() and absence alerts have a series to read.
 * - Four traces judged on faithfulness: a pass, a fail, an endpoint that
 *   answers 400, and a trace whose judge inputs equal the first's (a cache
 *   hit) — the calls, outcomes, errors by type, tokens, cost and cache hits
 *   are exactly what the scripted usage and the configured prices make.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { readSample } from "../../../collector/wiring/observe/metrics-registry.js";
import { traceContext, traceGenerate, traceRequest, traceRetrieve } from "../../../instrumentation/index.js";
import { startCollectorSubprocess, type CollectorSubprocess } from "../../support/collector-subprocess.js";
import { reply, startFakeChatCompletionsServer, type FakeChatCompletionsServer, type ScriptedReply } from "../../support/fake-chat-completions-server.js";
import { postTraces, startSpanRecorder, toOtlpProtobuf, type SpanRecorder } from "../../support/recorded-spans.js";

const ERROR_TYPES = ["timeout", "refusal", "unparseable", "rate_limited", "http_error", "budget_exhausted"];
const CONTEXT = "Employees have 10 days of annual leave per calendar year.";
const answers = {
  supported: "Employees get 10 days of annual leave a year.",
  unsupported: "Employees get 30 days of annual leave, granted by the Vienna office.",
  endpointFails: "Annual leave is 10 days, and the judge endpoint refuses this one.",
};

/** Prices per 1k tokens: 0.25 input, 0.5 output (binary fractions, so the sums below are exact). */
const PRICES = { RAGSCOPE_JUDGE_INPUT_PRICE_PER_1K: "0.25", RAGSCOPE_JUDGE_OUTPUT_PRICE_PER_1K: "0.5" };
const SUPPORTED_USAGE = { promptTokens: 2000, completionTokens: 500 };
const UNSUPPORTED_USAGE = { promptTokens: 4000, completionTokens: 1000 };

function judgeReply(user: string): ScriptedReply {
  if (user.includes(answers.endpointFails)) return reply.status(400);
  const supported = user.includes(answers.supported);
  return reply.json(
    { claims: [{ claim: supported ? "10 days of annual leave a year" : "30 days of annual leave", supported, documents: supported ? ["D1"] : [] }], reason: "scripted", confidence: "high" },
    supported ? SUPPORTED_USAGE : UNSUPPORTED_USAGE,
  );
}

async function tracedRequest(query: string, answer: string): Promise<void> {
  await traceRequest({ query }, async () => {
    await traceRetrieve({ query }, () => [{ chunkId: "leave_1", documentId: "handbook", text: CONTEXT }]);
    await traceContext({}, () => ({ text: CONTEXT, chunkIds: ["leave_1"] }));
    await traceGenerate({ model: "m" }, () => ({ text: answer }));
    return answer;
  });
}

/** Scrapes /metrics (bounded) until the judge has finished `count` judged metrics; returns that scrape. */
async function afterOutcomes(collector: CollectorSubprocess, count: number): Promise<string> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const text = await collector.metrics();
    const done = ["pass", "fail", "grader_error"].reduce((total, outcome) => total + (readSample(text, "ragscope_judge_outcomes_total", { outcome }) ?? 0), 0);
    if (done >= count) return text;
    if (Date.now() > deadline) throw new Error(`the judge finished ${done} of ${count} judged metrics:\n${collector.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("ragscope serve exports the judge's calls, errors, tokens, cost and cache hits on /metrics", () => {
  let server: FakeChatCompletionsServer;
  let recorder: SpanRecorder;
  let collector: CollectorSubprocess;
  let atStart: string;
  let afterThree: string;
  let afterFour: string;

  before(async () => {
    server = await startFakeChatCompletionsServer();
    server.respondWith((request) => judgeReply(request.user));
    recorder = startSpanRecorder("leave-bot");
    collector = await startCollectorSubprocess({
      RAGSCOPE_JUDGE_ENABLED: "true",
      RAGSCOPE_SAMPLE_RATE: "1",
      RAGSCOPE_JUDGE_BASE_URL: server.baseUrl,
      RAGSCOPE_JUDGE_MODEL: "fake-judge",
      RAGSCOPE_JUDGE_METRICS: "faithfulness",
      // One form: each judged metric is one HTTP request, none spent negotiating.
      RAGSCOPE_JUDGE_STRUCTURED_OUTPUT: "json_object",
      ...PRICES,
    });
    atStart = await collector.metrics();

    await tracedRequest("supported: how much annual leave?", answers.supported);
    await tracedRequest("unsupported: how much annual leave?", answers.unsupported);
    await tracedRequest("endpoint fails: how much annual leave?", answers.endpointFails);
    assert.equal(await postTraces(collector.receiverUrl, toOtlpProtobuf(recorder.spans())), 200);
    afterThree = await afterOutcomes(collector, 3);

    // The same question, context and answer as the first trace, in another trace, once the first verdict is cached.
    recorder.reset();
    await tracedRequest("supported: how much annual leave?", answers.supported);
    assert.equal(await postTraces(collector.receiverUrl, toOtlpProtobuf(recorder.spans())), 200);
    afterFour = await afterOutcomes(collector, 4);
  });

  after(async () => {
    await collector?.stop();
    await collector?.remove();
    await recorder?.shutdown();
    await server?.close();
  });

  test("every judge series exists from the start at 0", () => {
    for (const type of ERROR_TYPES) assert.equal(readSample(atStart, "ragscope_judge_grader_errors_total", { error_type: type }), 0, type);
    for (const outcome of ["pass", "fail", "grader_error"]) assert.equal(readSample(atStart, "ragscope_judge_outcomes_total", { outcome }), 0, outcome);
    assert.equal(readSample(atStart, "ragscope_judge_calls_total"), 0);
    assert.equal(readSample(atStart, "ragscope_judge_tokens_total", { type: "input" }), 0);
    assert.equal(readSample(atStart, "ragscope_judge_tokens_total", { type: "output" }), 0);
    assert.equal(readSample(atStart, "ragscope_judge_cost_usd_total"), 0);
    assert.equal(readSample(atStart, "ragscope_judge_cache_hits_total"), 0);
    assert.match(atStart, /^# TYPE ragscope_judge_grader_errors_total counter$/m);
  });

  test("a pass, a fail and an endpoint error: calls, outcomes, errors by type, tokens and cost", () => {
    assert.equal(server.requests.length, 3);
    assert.equal(readSample(afterThree, "ragscope_judge_calls_total"), 3);
    assert.equal(readSample(afterThree, "ragscope_judge_outcomes_total", { outcome: "pass" }), 1);
    assert.equal(readSample(afterThree, "ragscope_judge_outcomes_total", { outcome: "fail" }), 1);
    assert.equal(readSample(afterThree, "ragscope_judge_outcomes_total", { outcome: "grader_error" }), 1);
    for (const type of ERROR_TYPES) assert.equal(readSample(afterThree, "ragscope_judge_grader_errors_total", { error_type: type }), type === "http_error" ? 1 : 0, type);
    // The 400 reported no usage; the pass 2,000 + 500 tokens, the fail 4,000 + 1,000.
    assert.equal(readSample(afterThree, "ragscope_judge_tokens_total", { type: "input" }), 2000 + 4000);
    assert.equal(readSample(afterThree, "ragscope_judge_tokens_total", { type: "output" }), 500 + 1000);
    // (2,000 × 0.25 + 500 × 0.5) / 1k = 0.75; (4,000 × 0.25 + 1,000 × 0.5) / 1k = 1.5.
    assert.equal(readSample(afterThree, "ragscope_judge_cost_usd_total"), 0.75 + 1.5);
    assert.equal(readSample(afterThree, "ragscope_judge_cache_hits_total"), 0);
  });

  test("a cached verdict is counted as a hit and an outcome, with no call, tokens or cost", () => {
    assert.equal(server.requests.length, 3, "the cached verdict called nothing");
    assert.equal(readSample(afterFour, "ragscope_judge_cache_hits_total"), 1);
    assert.equal(readSample(afterFour, "ragscope_judge_outcomes_total", { outcome: "pass" }), 2);
    assert.equal(readSample(afterFour, "ragscope_judge_calls_total"), 3);
    assert.equal(readSample(afterFour, "ragscope_judge_tokens_total", { type: "input" }), 6000);
    assert.equal(readSample(afterFour, "ragscope_judge_cost_usd_total"), 2.25);
  });
});
