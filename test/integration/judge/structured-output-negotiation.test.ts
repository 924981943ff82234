/**
 * Structured-output negotiation (issue 18) against a real local HTTP server
 * that behaves like each OpenAI-compatible server users point the judge at
 * (test/support/structured-output-servers.ts): the judge ends in the strongest
 * form the server accepts, remembers it per endpoint, never steps down for an
 * error that is not a refusal of the form, and in the plain-instructions form
 * reads JSON out of prose and a `<think>` preamble and spends one repair turn
 * on a truncated answer — ending in a validated verdict or a recorded
 * `unparseable`, never a pass by default.
 */
import { after, before, beforeEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { RetryPolicy } from "../../../core/retry.js";
import type { JudgeOutcome } from "../../../evaluators/judge/judge.js";
import { OpenAiJudge, type OpenAiJudgeOptions } from "../../../evaluators/judge/openai-judge.js";
import { StructuredOutputMemory } from "../../../evaluators/judge/structured-output.js";
import { buildCase, buildCaseResult } from "../../support/case-results.js";
import { reply, startFakeChatCompletionsServer, type FakeChatCompletionsServer, type RecordedRequest } from "../../support/fake-chat-completions-server.js";
import { behaveAs, requestedForm, SERVER_BEHAVIOURS } from "../../support/structured-output-servers.js";

const FAST_RETRIES: RetryPolicy = { initialDelayMs: 5, maxDelayMs: 10, maxAttempts: 3, deadlineMs: 10_000 };

const request = {
  metric: "faithfulness" as const,
  caseResult: buildCaseResult({ output: "员工每年享有5天年假，且未使用的年假可折现。", context: "员工每年享有5天年假。" }),
  evalCase: buildCase({ input: "员工每年有几天年假？" }),
};

const allSupported = { claims: [{ claim: "员工每年享有5天年假", supported: true, documents: ["D1"] }], reason: "stated by D1" };
const oneOfTwo = {
  claims: [
    { claim: "员工每年享有5天年假", supported: true, documents: ["D1"] },
    { claim: "未使用的年假可折现", supported: false, documents: [] },
  ],
  reason: "the second statement is not in the context",
};

function assertGraderError(outcome: JudgeOutcome, errorType: string): void {
  assert.ok(outcome.kind === "grader_error" && outcome.errorType === errorType, `expected ${errorType}, got ${JSON.stringify(outcome)}`);
  assert.equal("value" in outcome, false, "a grader error carries no value");
}

describe("structured-output negotiation against recorded server behaviours", () => {
  let server: FakeChatCompletionsServer;
  let memory: StructuredOutputMemory;
  const forms = () => server.requests.map(requestedForm);
  const judgeWith = (options: Partial<OpenAiJudgeOptions> = {}) =>
    new OpenAiJudge({ baseUrl: server.baseUrl, apiKey: "test-key", model: "local-model", requestTimeoutMs: 2_000, retryPolicy: FAST_RETRIES, structuredOutputMemory: memory, ...options });

  before(async () => {
    server = await startFakeChatCompletionsServer();
  });
  after(async () => {
    await server.close();
  });
  beforeEach(() => {
    server.requests.length = 0;
    server.respondWith(() => reply.status(500, { body: { error: { message: "no responder", type: "fake_server" } } }));
    memory = new StructuredOutputMemory();
  });

  for (const behaviour of SERVER_BEHAVIOURS) {
    test(`${behaviour.name}: negotiation ends in ${behaviour.accepts}, is remembered, and the verdict is validated`, async () => {
      server.respondWith(behaveAs(behaviour, () => reply.json(oneOfTwo)));
      const judge = judgeWith();
      const first = await judge.judge(request);
      assert.equal(first.kind, "fail", JSON.stringify(first));
      assert.ok(first.kind === "fail" && first.value === 0.5);
      const expected = ["json_schema", "json_object", "instructions"];
      assert.deepEqual(forms(), expected.slice(0, expected.indexOf(behaviour.accepts) + 1), "strongest form first, one step per refusal");
      // Every HTTP request is a call, refused ones included (their tokens: none reported).
      assert.equal(first.usage.calls, forms().length);
      assert.equal(judge.client.structuredOutputMode, behaviour.accepts);

      // Remembered per endpoint: a second judge on the same endpoint asks once, in the accepted form.
      server.requests.length = 0;
      const second = await judgeWith().judge(request);
      assert.equal(second.kind, "fail");
      assert.deepEqual(forms(), [behaviour.accepts]);
    });
  }

  test("calls started together negotiate once: one refused request per form, whatever the concurrency", async () => {
    const vllm = SERVER_BEHAVIOURS.find((behaviour) => behaviour.accepts === "instructions");
    assert.ok(vllm);
    server.respondWith(behaveAs(vllm, () => reply.json(allSupported)));
    // Four judges on one endpoint, as four concurrent judge workers: each stepped down on its own (eight refusals).
    const outcomes = await Promise.all([0, 1, 2, 3].map(() => judgeWith().judge(request)));
    assert.deepEqual(outcomes.map((outcome) => outcome.kind), ["pass", "pass", "pass", "pass"]);
    const refusedForms = forms().filter((form) => form !== "instructions");
    assert.deepEqual(refusedForms, ["json_schema", "json_object"], "each form refused once");
    assert.equal(forms().length, 2 + 4);
  });

  test("the json_object form carries the schema; the instructions form carries it in the prompt and no response_format", async () => {
    const vllm = SERVER_BEHAVIOURS.find((behaviour) => behaviour.accepts === "instructions");
    assert.ok(vllm);
    server.respondWith(behaveAs(vllm, () => reply.json(allSupported)));
    assert.equal((await judgeWith().judge(request)).kind, "pass");
    const [schemaForm, objectForm, instructionsForm] = server.requests;
    assert.ok(schemaForm && objectForm && instructionsForm);
    assert.equal((schemaForm.body.response_format as { json_schema: { name: string } }).json_schema.name, "faithfulness");
    assert.ok("claims" in (objectForm.body.response_format as { schema: { properties: object } }).schema.properties);
    assert.equal(instructionsForm.body.response_format, undefined);
    assert.match(instructionsForm.user, /<<<END ANSWER>>>[\s\S]*must match this JSON Schema:\n\{.*"claims"/s);
    assert.equal(instructionsForm.system, schemaForm.system, "the same system prompt: a server's prompt cache reuses it");
  });

  test("a memory is per endpoint and model: another model on the same server negotiates afresh", async () => {
    const python = SERVER_BEHAVIOURS.find((behaviour) => behaviour.name.startsWith("llama-cpp-python"));
    assert.ok(python);
    server.respondWith(behaveAs(python, () => reply.json(allSupported)));
    await judgeWith().judge(request);
    server.requests.length = 0;
    await judgeWith({ model: "another-model" }).judge(request);
    assert.deepEqual(forms(), ["json_schema", "json_object"]);
    assert.deepEqual(
      memory.entries().map((entry) => entry.mode),
      ["json_object", "json_object"],
    );
  });

  test("an error naming another parameter is not a refusal of the form: no step down, and a 400 is final", async () => {
    server.enqueue(reply.status(400, { body: { error: { message: "Invalid 'messages[1].content': string too long.", type: "invalid_request_error", param: "messages[1].content", code: "string_above_max_length" } } }));
    const outcome = await judgeWith().judge(request);
    assertGraderError(outcome, "http_error");
    assert.deepEqual(forms(), ["json_schema"]);
    assert.equal(memory.entries().length, 0, "nothing accepted, nothing remembered");
  });

  test("a gateway's 503 is not a refusal of the form: retried in the same form", async () => {
    server.enqueue(reply.status(503), reply.json(allSupported));
    assert.equal((await judgeWith().judge(request)).kind, "pass");
    assert.deepEqual(forms(), ["json_schema", "json_schema"]);
  });

  test("an endpoint that accepted a form is not renegotiated: its later 500 is an error, retried in that form", async () => {
    memory.record(server.baseUrl, "local-model", "json_schema");
    server.enqueue(reply.status(500), reply.json(allSupported));
    assert.equal((await judgeWith().judge(request)).kind, "pass");
    assert.deepEqual(forms(), ["json_schema", "json_schema"]);
  });

  test("an endpoint that is down (every request 500) is not stepped down: one request per attempt, nothing remembered", async () => {
    const outage = () => reply.status(500, { body: { error: { message: "scripted 500", type: "server_error" } } });
    server.respondWith(outage);
    const outcome = await judgeWith().judge(request);
    assertGraderError(outcome, "http_error");
    // 3 attempts × 1 form — not 3 attempts × 3 forms.
    assert.deepEqual(forms(), ["json_schema", "json_schema", "json_schema"]);
    assert.equal(outcome.usage.calls, 3);
    assert.equal(memory.entries().length, 0);
    // A second call during the outage costs the same, and the endpoint is still asked for its strongest form.
    server.requests.length = 0;
    assertGraderError(await judgeWith().judge(request), "http_error");
    assert.deepEqual(forms(), ["json_schema", "json_schema", "json_schema"]);
    // When the endpoint is back, it answers in json_schema: the outage was not taken for a refusal.
    server.respondWith(() => reply.json(allSupported));
    server.requests.length = 0;
    assert.equal((await judgeWith().judge(request)).kind, "pass");
    assert.deepEqual(forms(), ["json_schema"]);
  });

  test("a form is refused at most once per endpoint and process, even when every later request fails", async () => {
    const refusal = reply.status(400, { body: { error: { message: "invalid response_format", type: "invalid_request_error", param: "response_format", code: null } } });
    const outage = reply.status(500, { body: { error: { message: "scripted 500", type: "server_error" } } });
    server.respondWith((recorded) => (requestedForm(recorded) === "json_schema" ? refusal : outage));
    const first = await judgeWith().judge(request);
    assertGraderError(first, "http_error");
    assert.deepEqual(forms(), ["json_schema", "json_object", "json_object", "json_object"], "one refusal, then the outage retried in the next form");
    assert.match(first.kind === "grader_error" ? first.message : "", /forms refused: json_schema: .*HTTP 400/);
    server.requests.length = 0;
    assertGraderError(await judgeWith().judge(request), "http_error");
    assert.deepEqual(forms(), ["json_object", "json_object", "json_object"], "the refused form is not asked again");
  });

  test("llama-cpp-python's 500 that names the form is a refusal; a 500 that does not is not", async () => {
    server.enqueue(reply.status(500, { body: { error: { message: "'json_schema'", type: "internal_server_error", param: null, code: null } } }), reply.json(allSupported));
    assert.equal((await judgeWith().judge(request)).kind, "pass");
    assert.deepEqual(forms(), ["json_schema", "json_object"]);
    memory = new StructuredOutputMemory();
    server.requests.length = 0;
    server.enqueue(reply.status(500, { body: { error: { message: "CUDA out of memory", type: "internal_server_error", param: null, code: null } } }), reply.json(allSupported));
    assert.equal((await judgeWith().judge(request)).kind, "pass");
    assert.deepEqual(forms(), ["json_schema", "json_schema"]);
  });

  test("a fixed form never steps down", async () => {
    server.enqueue(reply.status(400, { body: { error: { message: "invalid response_format", type: "invalid_request_error", param: null, code: null } } }));
    const outcome = await judgeWith({ structuredOutput: "json_object" }).judge(request);
    assertGraderError(outcome, "http_error");
    assert.deepEqual(forms(), ["json_object"]);
  });

  describe("the instructions form", () => {
    const instructionsOnly = (answer: (request: RecordedRequest) => ReturnType<typeof reply.json>) => {
      const vllm = SERVER_BEHAVIOURS.find((behaviour) => behaviour.accepts === "instructions");
      assert.ok(vllm);
      memory.record(server.baseUrl, "local-model", "instructions");
      server.respondWith(behaveAs(vllm, answer));
    };

    test("a reasoning model's <think> preamble and prose around the object are dropped; the object is validated", async () => {
      instructionsOnly(() => reply.text(`<think>\nThe answer says 5 days; D1 says 5 days. {not the answer}\n</think>\nHere is my evaluation:\n${JSON.stringify(oneOfTwo)}\nHope this helps.`));
      const outcome = await judgeWith().judge(request);
      assert.ok(outcome.kind === "fail" && outcome.value === 0.5, JSON.stringify(outcome));
      assert.equal(server.requests.length, 1, "no repair turn needed");
    });

    test("a truncated object gets one repair turn that shows the model its answer and the problem; the repaired answer is validated", async () => {
      const truncated = JSON.stringify(oneOfTwo).slice(0, 60);
      let turn = 0;
      instructionsOnly(() => (++turn === 1 ? reply.text(truncated, { promptTokens: 300, completionTokens: 64 }, "length") : reply.json(oneOfTwo, { promptTokens: 400, completionTokens: 50 })));
      const outcome = await judgeWith().judge(request);
      assert.ok(outcome.kind === "fail" && outcome.value === 0.5, JSON.stringify(outcome));
      assert.equal(server.requests.length, 2);
      const repair = server.requests[1];
      assert.ok(repair);
      const messages = repair.body.messages as Array<{ role: string; content: string }>;
      assert.deepEqual(
        messages.map((message) => message.role),
        ["system", "user", "assistant", "user"],
      );
      assert.equal(messages[2]?.content, truncated);
      assert.match(messages[3]?.content ?? "", /stops before it closes.*cut at the output token limit/);
      // Both turns are paid for, with the usage the server reported (no pricing given: the cost is not known).
      assert.deepEqual(outcome.usage, { inputTokens: 700, outputTokens: 114, cost: null, calls: 2, cached: false });
    });

    test("an answer still unusable after the repair turn is a recorded unparseable, not a verdict; the repair is spent once", async () => {
      instructionsOnly(() => reply.text("I think the answer is mostly faithful."));
      const outcome = await judgeWith({ retryPolicy: { ...FAST_RETRIES, maxAttempts: 2 } }).judge(request);
      assertGraderError(outcome, "unparseable");
      // Attempt 1: the answer and its repair turn; attempt 2: the answer alone.
      assert.equal(server.requests.length, 3);
      assert.equal(outcome.usage.calls, 3);
      assert.match(outcome.kind === "grader_error" ? outcome.message : "", /not JSON/);
    });

    test("JSON that does not match the rubric's schema is repaired the same way", async () => {
      let turn = 0;
      instructionsOnly(() => (++turn === 1 ? reply.json({ claims: [{ claim: "x", supported: "yes" }], reason: "r" }) : reply.json(allSupported)));
      const outcome = await judgeWith().judge(request);
      assert.equal(outcome.kind, "pass");
      assert.equal(server.requests.length, 2);
    });

    test("a reasoning preamble that never ends (cut at max_tokens) is unparseable, not an empty verdict, and not retried", async () => {
      instructionsOnly(() => reply.text("<think>\nLet me check each claim. The first claim", undefined, "length"));
      const outcome = await judgeWith().judge(request);
      assertGraderError(outcome, "unparseable");
      assert.match(outcome.kind === "grader_error" ? outcome.message : "", /reasoning preamble that never ends.*not retried: raise RAGSCOPE_JUDGE_MAX_OUTPUT_TOKENS/);
      // The answer and its repair turn; three attempts (the retry policy's) sent six.
      assert.equal(server.requests.length, 2);
    });
  });

  test("in the constrained forms a <think> preamble is dropped too, but prose around the object is not accepted", async () => {
    server.enqueue(reply.text(`<think>checking</think>${JSON.stringify(allSupported)}`));
    assert.equal((await judgeWith().judge(request)).kind, "pass");
    server.enqueue(reply.text(`Here you go: ${JSON.stringify(allSupported)}`));
    const outcome = await judgeWith({ retryPolicy: { ...FAST_RETRIES, maxAttempts: 1 } }).judge(request);
    assertGraderError(outcome, "unparseable");
  });
});
