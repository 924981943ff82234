/**
 * Pairwise comparison with the A/B order swapped, against the fake endpoint: a
 * judge that always prefers the answer shown first (position bias) yields
 * "inconsistent", a judge that prefers the same content in both orders yields
 * that answer.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { comparePairwise } from "../../../evaluators/judge/pairwise/pairwise-comparison.js";
import { OpenAiPreferenceSource } from "../../../evaluators/judge/pairwise/openai-preference-source.js";
import { ChatJudgeClient } from "../../../evaluators/judge/chat-judge-client.js";
import { reply, startFakeChatCompletionsServer, type FakeChatCompletionsServer } from "../../support/fake-chat-completions-server.js";

const request = { question: "How long is the refund window?", answerA: "15 days from delivery.", answerB: "30 days.", documents: [{ id: "refund_15", text: "Refunds within 15 days of delivery." }] };

function firstShown(user: string): string {
  return /<<<FIRST ANSWER>>>\n([\s\S]*?)\n<<<END FIRST ANSWER>>>/.exec(user)?.[1] ?? "";
}

describe("pairwise comparison over the fake endpoint", () => {
  let server: FakeChatCompletionsServer;
  let source: OpenAiPreferenceSource;
  before(async () => {
    server = await startFakeChatCompletionsServer();
    source = new OpenAiPreferenceSource("openai:fake-judge", new ChatJudgeClient({ baseUrl: server.baseUrl, apiKey: "k", model: "fake-judge" }));
  });
  after(async () => {
    await server.close();
  });

  test("both orders asked, A first then B first", async () => {
    server.requests.length = 0;
    server.respondWith(() => reply.json({ preferred: "tie", reason: "same" }));
    const outcome = await comparePairwise(source, request);
    assert.equal(server.requests.length, 2);
    assert.equal(firstShown(server.requests[0]?.user ?? ""), request.answerA);
    assert.equal(firstShown(server.requests[1]?.user ?? ""), request.answerB);
    assert.equal(outcome.kind, "verdict");
    assert.ok(outcome.kind === "verdict" && outcome.verdict === "tie" && outcome.consistent);
    assert.equal(outcome.usage.calls, 2);
  });

  test("a judge that always prefers the first position is inconsistent: the verdict counts for neither", async () => {
    server.respondWith(() => reply.json({ preferred: "first", reason: "the first one is better" }));
    const outcome = await comparePairwise(source, request);
    assert.ok(outcome.kind === "verdict");
    assert.equal(outcome.verdict, "inconsistent");
    assert.equal(outcome.consistent, false);
    assert.deepEqual(outcome.orders.map((order) => order.preferred), ["A", "B"]);
  });

  test("a judge that prefers the same content in both orders gives that answer", async () => {
    server.respondWith((recorded) => reply.json({ preferred: firstShown(recorded.user) === request.answerA ? "first" : "second", reason: "15 days is what the document says" }));
    const outcome = await comparePairwise(source, request);
    assert.ok(outcome.kind === "verdict");
    assert.equal(outcome.verdict, "A");
    assert.equal(outcome.consistent, true);
  });

  test("a grader error in either order is a grader error of the comparison", async () => {
    server.respondWith(() => reply.text("A is better"));
    const outcome = await comparePairwise(new OpenAiPreferenceSource("openai:fake-judge", new ChatJudgeClient({ baseUrl: server.baseUrl, apiKey: "k", model: "fake-judge", retryPolicy: { initialDelayMs: 1, maxDelayMs: 1, maxAttempts: 1, deadlineMs: 100 } })), request);
    assert.equal(outcome.kind, "grader_error");
    assert.ok(outcome.kind === "grader_error" && outcome.errorType === "unparseable");
  });
});
