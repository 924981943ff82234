/**
 * A fake OpenAI-compatible chat-completions endpoint for judge tests: a real
 * node:http server on 127.0.0.1 (random port) that answers
 * `POST /v1/chat/completions` with scripted replies and records every request.
 *
 *   const server = await startFakeChatCompletionsServer();
 *   server.enqueue(reply.json({ ... }), reply.rateLimited(1), reply.hang());
 *   const judge = new OpenAiJudge({ baseUrl: server.baseUrl, apiKey: "test", model: "fake-judge" });
 *   …
 *   server.requests[0].user      // the user message the judge sent
 *   await server.close();
 *
 * Replies are served in the order enqueued; when the queue is empty the
 * responder given to `respondWith` decides (it sees the request), and without
 * one the server answers 500 "no scripted reply", so a test that makes an
 * unexpected call fails visibly.
 *
 * Reply kinds (`reply.*` builds them):
 * - json(value, usage?)        200, message content = JSON.stringify(value)
 * - text(content, usage?)      200, message content = the text as is (malformed JSON, prose)
 * - refusal(text)              200, message.refusal = text, content null
 * - hang()                     never answers (until close): a client timeout
 * - status(code, options?)     an error status with an OpenAI-style error body,
 *                              optional Retry-After / retry-after-ms headers
 * - rateLimited(seconds)       429 with `Retry-After: <seconds>`
 * - held(release, then)        answers `then` only once `release` resolves: a slow call
 *                              whose duration the test decides (no wall-clock wait)
 * Usage defaults to 100 prompt and 20 completion tokens; pass `null` to omit it.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface ScriptedUsage {
  promptTokens: number;
  completionTokens: number;
}

export type ScriptedReply =
  | { kind: "content"; content: string; usage: ScriptedUsage | null; finishReason: "stop" | "length" | "content_filter" }
  | { kind: "refusal"; refusal: string; usage: ScriptedUsage | null }
  | { kind: "hang" }
  | { kind: "status"; status: number; retryAfter: string | null; retryAfterMs: string | null; body: unknown }
  | { kind: "held"; release: Promise<void>; then: ScriptedReply };

export const DEFAULT_USAGE: ScriptedUsage = { promptTokens: 100, completionTokens: 20 };

export const reply = {
  json: (value: unknown, usage: ScriptedUsage | null = DEFAULT_USAGE): ScriptedReply => ({ kind: "content", content: JSON.stringify(value), usage, finishReason: "stop" }),
  text: (content: string, usage: ScriptedUsage | null = DEFAULT_USAGE, finishReason: "stop" | "length" | "content_filter" = "stop"): ScriptedReply => ({ kind: "content", content, usage, finishReason }),
  refusal: (refusal: string, usage: ScriptedUsage | null = DEFAULT_USAGE): ScriptedReply => ({ kind: "refusal", refusal, usage }),
  hang: (): ScriptedReply => ({ kind: "hang" }),
  status: (status: number, options: { retryAfter?: string; retryAfterMs?: string; body?: unknown } = {}): ScriptedReply => ({
    kind: "status",
    status,
    retryAfter: options.retryAfter ?? null,
    retryAfterMs: options.retryAfterMs ?? null,
    body: options.body ?? { error: { message: `scripted HTTP ${status}`, type: "scripted_error", code: null } },
  }),
  held: (release: Promise<void>, then: ScriptedReply): ScriptedReply => ({ kind: "held", release, then }),
  rateLimited: (retryAfterSeconds: number): ScriptedReply => reply.status(429, { retryAfter: String(retryAfterSeconds), body: { error: { message: "Rate limit reached", type: "requests", code: "rate_limit_exceeded" } } }),
};

export interface RecordedRequest {
  /** Date.now() when the request arrived. */
  receivedAt: number;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (model, messages, temperature, response_format, …). */
  body: Record<string, unknown>;
  /** The system and user messages' text, for assertions on prompts. */
  system: string;
  user: string;
}

export interface FakeChatCompletionsServer {
  /** Base URL to give the client, ending in /v1. */
  readonly baseUrl: string;
  readonly requests: RecordedRequest[];
  enqueue(...replies: ScriptedReply[]): void;
  respondWith(responder: (request: RecordedRequest) => ScriptedReply): void;
  close(): Promise<void>;
}

function messageText(body: Record<string, unknown>, role: string): string {
  const messages = Array.isArray(body.messages) ? (body.messages as Array<{ role?: unknown; content?: unknown }>) : [];
  return messages
    .filter((message) => message.role === role)
    .map((message) => (typeof message.content === "string" ? message.content : JSON.stringify(message.content)))
    .join("\n");
}

function sendJson(response: ServerResponse, status: number, payload: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(payload);
  response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  response.end(text);
}

export async function startFakeChatCompletionsServer(): Promise<FakeChatCompletionsServer> {
  const queue: ScriptedReply[] = [];
  const requests: RecordedRequest[] = [];
  let responder: ((request: RecordedRequest) => ScriptedReply) | null = null;
  let completionCount = 0;

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const path = request.url ?? "";
      if (request.method !== "POST" || !path.startsWith("/v1/chat/completions")) return sendJson(response, 404, { error: { message: `no route ${request.method} ${path}` } });
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
      } catch {
        return sendJson(response, 400, { error: { message: "request body is not JSON" } });
      }
      const recorded: RecordedRequest = { receivedAt: Date.now(), path, headers: request.headers, body, system: messageText(body, "system"), user: messageText(body, "user") };
      requests.push(recorded);
      const scripted = queue.shift() ?? responder?.(recorded) ?? null;
      if (scripted === null) return sendJson(response, 500, { error: { message: "no scripted reply", type: "fake_server" } });
      answer(response, body, scripted);
    });
  });

  function answer(response: ServerResponse, body: Record<string, unknown>, scripted: ScriptedReply): void {
    switch (scripted.kind) {
      case "hang":
        // Left open: the client's timeout fires; close() destroys the socket.
        return;
      case "held":
        void scripted.release.then(() => {
          if (!response.destroyed) answer(response, body, scripted.then);
        });
        return;
      case "status": {
        const headers: Record<string, string> = {};
        if (scripted.retryAfter !== null) headers["retry-after"] = scripted.retryAfter;
        if (scripted.retryAfterMs !== null) headers["retry-after-ms"] = scripted.retryAfterMs;
        return sendJson(response, scripted.status, scripted.body, headers);
      }
      case "content":
      case "refusal": {
        completionCount += 1;
        const usage = scripted.usage === null ? undefined : { prompt_tokens: scripted.usage.promptTokens, completion_tokens: scripted.usage.completionTokens, total_tokens: scripted.usage.promptTokens + scripted.usage.completionTokens };
        const message = scripted.kind === "content" ? { role: "assistant", content: scripted.content, refusal: null } : { role: "assistant", content: null, refusal: scripted.refusal };
        return sendJson(response, 200, {
          id: `chatcmpl-fake-${completionCount}`,
          object: "chat.completion",
          created: Math.floor(Date.now() / 1000),
          model: typeof body.model === "string" ? body.model : "fake",
          choices: [{ index: 0, message, finish_reason: scripted.kind === "content" ? scripted.finishReason : "stop", logprobs: null }],
          ...(usage === undefined ? {} : { usage }),
        });
      }
    }
  }
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    enqueue: (...replies) => void queue.push(...replies),
    respondWith: (next) => {
      responder = next;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
