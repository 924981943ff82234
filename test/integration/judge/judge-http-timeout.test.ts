/**
 * The judge's HTTP timeout is the configured one (RAGSCOPE_JUDGE_TIMEOUT_MS),
 * not the 300 s after which Node's default fetch dispatcher gives up on
 * response headers (evaluators/judge/timeout-dispatcher.ts).
 *
 * Waiting 300 s is out of the question, so the default is shrunk instead: the
 * process's global dispatcher — the one Node's fetch uses unless told
 * otherwise — is replaced by one that gives up after 300 ms, a stand-in for
 * the real default scaled down 1,000 times. The endpoint holds the judge's
 * answer; a plain fetch to the same endpoint, started after the judge's
 * request arrived, fails on the short default; only then is the judge's answer
 * released, and it must arrive. Without the judge's own dispatcher its
 * request, which started first, would have failed first. The order, not a
 * duration, is asserted.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Agent, getGlobalDispatcher, setGlobalDispatcher, type Dispatcher } from "undici";
import { OpenAiJudge } from "../../../evaluators/judge/openai-judge.js";
import { StructuredOutputMemory } from "../../../evaluators/judge/structured-output.js";
import { DISPATCHER_TIMEOUT_MARGIN_MS, dispatcherTimeoutsFor } from "../../../evaluators/judge/timeout-dispatcher.js";
import { buildCase, buildCaseResult } from "../../support/case-results.js";
import { reply, startFakeChatCompletionsServer, type FakeChatCompletionsServer } from "../../support/fake-chat-completions-server.js";

const SHRUNK_DEFAULT_MS = 300;
let endpoint: FakeChatCompletionsServer;
let original: Dispatcher;

before(async () => {
  endpoint = await startFakeChatCompletionsServer();
  original = getGlobalDispatcher();
  setGlobalDispatcher(new Agent({ headersTimeout: SHRUNK_DEFAULT_MS, bodyTimeout: SHRUNK_DEFAULT_MS }));
});
after(async () => {
  setGlobalDispatcher(original);
  await endpoint.close();
});

async function until(condition: () => boolean, what: string): Promise<void> {
  // Bounds a broken run only; nothing is asserted about how long it took.
  const deadline = Date.now() + 30_000;
  while (!condition()) {
    assert.ok(Date.now() < deadline, `never happened: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

test("a judge answer held longer than the fetch default gives up arrives, because the configured timeout is longer", async () => {
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  // The answer is a structured decline: a refusal grader error proves the answer was read.
  endpoint.enqueue(reply.held(released, reply.json({ cannot_judge: true, reason: "held answer" })), reply.held(new Promise(() => {}), reply.json({})));
  const judge = new OpenAiJudge({
    baseUrl: endpoint.baseUrl,
    apiKey: "",
    model: "held-judge",
    requestTimeoutMs: 60_000,
    retryPolicy: { initialDelayMs: 10, maxDelayMs: 10, maxAttempts: 1, deadlineMs: 120_000 },
    structuredOutput: "json_schema",
    structuredOutputMemory: new StructuredOutputMemory(),
  });
  const judged = judge.judge({ metric: "faithfulness", caseResult: buildCaseResult({ output: "Employees get 10 days.", context: "Employees have 10 days of annual leave." }), evalCase: buildCase({ input: "How many days of leave?" }) });
  await until(() => endpoint.requests.length === 1, "the judge's request reached the endpoint");

  // The control: Node's fetch on the (shrunk) default dispatcher, to the same endpoint, started later.
  const control = await fetch(`${endpoint.baseUrl}/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "control", messages: [{ role: "user", content: "hello" }] }) }).then(
    () => "answered",
    (error: unknown) => ((error as { cause?: { code?: string } }).cause?.code ?? String(error)),
  );
  assert.equal(control, "UND_ERR_HEADERS_TIMEOUT", "the default dispatcher gave up on the held control request");

  release();
  const outcome = await judged;
  assert.equal(outcome.kind, "grader_error");
  assert.equal(outcome.kind === "grader_error" ? outcome.errorType : null, "refusal", `the held answer was read, not timed out: ${JSON.stringify(outcome)}`);
  assert.equal(outcome.usage.calls, 1);
});

test("the dispatcher's limits lie above the configured timeout, so the client's own timeout ends a slow call", () => {
  for (const configured of [1, 30_000, 300_000, 600_000, 3_600_000]) {
    const limits = dispatcherTimeoutsFor(configured);
    assert.deepEqual(limits, { headersTimeout: configured + DISPATCHER_TIMEOUT_MARGIN_MS, bodyTimeout: configured + DISPATCHER_TIMEOUT_MARGIN_MS });
  }
  assert.throws(() => dispatcherTimeoutsFor(0), /positive number of milliseconds/);
  assert.throws(() => dispatcherTimeoutsFor(Number.NaN), /positive number of milliseconds/);
});
