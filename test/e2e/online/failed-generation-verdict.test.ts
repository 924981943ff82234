/**
 * A generation that fails while the request's handler goes on, as a user meets
 * it: `ragscope serve` as a subprocess, an application instrumented with the
 * SDK (the package resolved by name, exporting OTLP to serve) calling the real
 * Vercel AI SDK and LangChain.js over a fake model, the results read back
 * through serve's read API.
 *
 * - traceStreamText over a provider that fails mid-stream: the AI SDK's
 *   textStream ends normally after the error and `text` is the text before it,
 *   so the handler returns a truncated answer and its request span ends well.
 *   The generation that provides the answer failed: the request is failed
 *   (execution_status failed, execution_error system_error), its partial text
 *   kept as the output, and it is never judged a good completed answer.
 * - The same failure caught by the application, which retries with a second
 *   stream that answers: the later generation provides the answer, and the
 *   request completed.
 * - A non-streamed generation (traceGenerate) that throws, under a handler
 *   that catches it and returns an apology: failed, the apology its output.
 * - A LangChain chat model whose stream fails mid-way (the adapter's
 *   generation span ends in error), the application returning what it had
 *   streamed: failed.
 * - A chat title generated beside the answer, its call started after the
 *   answer's and ending before it, the handler returning an object (no answer
 *   on the request span): the output is the answer's text, from the generation
 *   that ended last, not the title from the one that started last.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { runApplication, writeApplication } from "../../support/application-beside-package.js";
import { startServeWithUi, type ServeWithUi } from "../../support/serve-with-ui.js";

/** A bound on waiting for serve to store the traces; generous for a shared machine, not an assertion on speed. */
const WAIT_MS = 60_000;

const APP = `
import { streamText } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessageChunk } from "@langchain/core/messages";
import { ChatGenerationChunk } from "@langchain/core/outputs";
import { setupRagscope, traceRequest, traceRetrieve, traceGenerate, traceStreamText } from "ragscope/instrumentation";
import { RagscopeCallbackHandler } from "ragscope/langchain";

const ragscope = setupRagscope({ serviceName: "stream-app" });
const refund = { chunkId: "refund-1", documentId: "refund-policy", text: "Refunds reach the original payment method within 7 days." };
const usage = { inputTokens: { total: 20, noCache: 20, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 6, text: 6, reasoning: undefined } };

/** A provider that streams the given parts: the AI SDK's own mock model, the fake LLM endpoint. */
function provider(parts) {
  return new MockLanguageModelV3({
    modelId: "toy-stream",
    doStream: async () => ({ stream: new ReadableStream({ start(controller) { for (const part of parts) controller.enqueue(part); controller.close(); } }) }),
  });
}
const failsMidStream = () => provider([
  { type: "stream-start", warnings: [] },
  { type: "text-start", id: "t" },
  { type: "text-delta", id: "t", delta: "Refunds reach the original " },
  { type: "error", error: new Error("provider overloaded (HTTP 529)") },
]);
const answers = () => provider([
  { type: "stream-start", warnings: [] },
  { type: "text-start", id: "t" },
  { type: "text-delta", id: "t", delta: "Refunds reach the original payment method " },
  { type: "text-delta", id: "t", delta: "within 7 days." },
  { type: "text-end", id: "t" },
  { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage },
]);

/** Streams an answer as an application does; whether the stream failed comes from its onError. */
async function streamAnswer(model, question) {
  let failed = false;
  const result = traceStreamText(streamText, { model, prompt: question, onError: ({ error }) => { failed = true; console.log("stream failed:", error.message); } });
  let text = "";
  for await (const delta of result.textStream) text += delta;
  return { text, failed };
}

async function retrieve(question) {
  return traceRetrieve({ query: question, topK: 1 }, () => [refund]);
}

await traceRequest({ query: "How fast is a refund, streamed?" }, async () => {
  await retrieve("How fast is a refund, streamed?");
  const streamed = await streamAnswer(failsMidStream(), "How fast is a refund?");
  return streamed.text;
});

await traceRequest({ query: "How fast is a refund, retried?" }, async () => {
  await retrieve("How fast is a refund, retried?");
  const first = await streamAnswer(failsMidStream(), "How fast is a refund?");
  if (!first.failed) return first.text;
  return (await streamAnswer(answers(), "How fast is a refund?")).text;
});

await traceRequest({ query: "How fast is a refund, not streamed?" }, async () => {
  await retrieve("How fast is a refund, not streamed?");
  try {
    return (await traceGenerate({ model: "toy-model" }, () => { throw new Error("model endpoint refused the connection"); })).text;
  } catch (error) {
    console.log("generation failed:", error.message);
    return "Sorry, I cannot answer right now.";
  }
});

/** A LangChain chat model whose provider fails after its first chunk. */
class FailingChatModel extends BaseChatModel {
  _llmType() { return "failing-chat"; }
  async _generate() { throw new Error("not called: the application streams"); }
  async *_streamResponseChunks(_messages, _options, runManager) {
    const text = "Refunds reach ";
    yield new ChatGenerationChunk({ text, message: new AIMessageChunk({ content: text }) });
    await runManager?.handleLLMNewToken(text);
    throw new Error("connection reset mid-stream");
  }
}

await traceRequest({ query: "How fast is a refund, LangChain?" }, async () => {
  await retrieve("How fast is a refund, LangChain?");
  let text = "";
  try {
    for await (const chunk of await new FailingChatModel({}).stream("How fast is a refund?", { callbacks: [new RagscopeCallbackHandler()] })) text += chunk.content;
  } catch (error) {
    console.log("LangChain stream failed:", error.message);
  }
  return text;
});

/** A provider whose stream begins only once \`ready\` resolves: the answer is still streaming while the application does something else. */
function answersAfter(ready) {
  return new MockLanguageModelV3({
    modelId: "toy-answer",
    doStream: async () => {
      await ready;
      const parts = [
        { type: "stream-start", warnings: [] },
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: "Refunds reach the original payment method within 7 days." },
        { type: "text-end", id: "t" },
        { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage },
      ];
      return { stream: new ReadableStream({ start(controller) { for (const part of parts) controller.enqueue(part); controller.close(); } }) };
    },
  });
}

// A chat title written beside the answer: its call starts after the answer's and ends before it. The handler returns
// an object, so the request span records no answer: the answer is the generation's that ended last, the answer's.
await traceRequest({ query: "How fast is a refund, titled?" }, async () => {
  await retrieve("How fast is a refund, titled?");
  let titled;
  const titleWritten = new Promise((resolve) => { titled = resolve; });
  const answering = streamAnswer(answersAfter(titleWritten), "How fast is a refund?");
  const title = await traceGenerate({ model: "toy-title" }, () => ({ text: "Refund timing" }));
  titled();
  const answer = await answering;
  return { title: title.text, answer: answer.text };
});

await ragscope.shutdown();
`;

interface Evaluation {
  evaluator_id: string;
  reason: string;
}

interface Detail {
  caseResult: { quality_status: string; execution_status: string; execution_error: { type: string; message: string | null }; output: string | null };
  evaluationResults: Evaluation[];
}

interface Listed {
  traces: { caseResultId: string; query: string }[];
}

let folder: string;
let serve: ServeWithUi | undefined;

before(async () => {
  folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-failed-generation-"));
  await writeApplication(folder, "app.mjs", APP, ["ai", "@langchain/core"]);
  serve = await startServeWithUi(path.join(folder, "data"), { RAGSCOPE_QUIET_PERIOD_MS: "200" });
});

after(async () => {
  if (serve !== undefined && serve.child.exitCode === null) {
    serve.child.kill("SIGTERM");
    await serve.exited;
  }
  await rm(folder, { recursive: true, force: true });
});

async function storedTraces(count: number): Promise<Listed["traces"]> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const listed = (await (await fetch(`${serve!.uiUrl}/api/traces?limit=10`)).json()) as Listed;
    if (listed.traces.length >= count || Date.now() > deadline) return listed.traces;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

test("a request whose answering generation failed is failed, its partial text kept as output; a retry that answered leaves it completed", async () => {
  const ran = await runApplication(folder, "app.mjs", serve!.receiverUrl);
  assert.equal(ran.code, 0, ran.output);
  assert.match(ran.output, /stream failed: provider overloaded \(HTTP 529\)/);
  assert.match(ran.output, /generation failed: model endpoint refused the connection/);
  assert.match(ran.output, /LangChain stream failed: connection reset mid-stream/);

  const traces = await storedTraces(5);
  const detail = async (query: string): Promise<Detail> => {
    const listed = traces.find((trace) => trace.query === query);
    assert.ok(listed, `${query} not stored: ${JSON.stringify(traces)}`);
    return (await (await fetch(`${serve!.uiUrl}/api/traces/${listed.caseResultId}`)).json()) as Detail;
  };
  const outcome = (result: Detail) => [result.caseResult.execution_status, result.caseResult.execution_error.type, result.caseResult.output];

  const streamed = await detail("How fast is a refund, streamed?");
  assert.deepEqual(outcome(streamed), ["failed", "system_error", "Refunds reach the original "], "the truncated answer stays visible as the output of a failed request");
  assert.equal(streamed.caseResult.quality_status, "failed");
  assert.match(streamed.caseResult.execution_error.message ?? "", /last generation, "rag\.generate" \(span [0-9a-f]{16}\), ended in error .*: provider overloaded \(HTTP 529\)$/);
  const rootCause = streamed.evaluationResults.find((item) => item.evaluator_id === "root_cause");
  assert.match(rootCause?.reason ?? "", /^SYSTEM_ERROR: the request did not complete \(system_error in rag\.generate\): /);

  const retried = await detail("How fast is a refund, retried?");
  assert.deepEqual(outcome(retried), ["completed", "none", "Refunds reach the original payment method within 7 days."], "the retry's answer is the request's");
  assert.notEqual(retried.caseResult.quality_status, "failed");

  const caught = await detail("How fast is a refund, not streamed?");
  assert.deepEqual(outcome(caught), ["failed", "system_error", "Sorry, I cannot answer right now."]);
  assert.match(caught.caseResult.execution_error.message ?? "", /: model endpoint refused the connection$/);

  const langchain = await detail("How fast is a refund, LangChain?");
  assert.deepEqual(outcome(langchain), ["failed", "system_error", "Refunds reach "]);
  assert.match(langchain.caseResult.execution_error.message ?? "", /: connection reset mid-stream$/);

  // The title's call started after the answer's and ended before it; the request span carries no answer.
  const titled = await detail("How fast is a refund, titled?");
  assert.deepEqual(outcome(titled), ["completed", "none", "Refunds reach the original payment method within 7 days."], "the answer's text, not the title's");

  assert.equal(await serve!.stop(), 0, serve!.output());
});
