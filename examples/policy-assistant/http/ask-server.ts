/**
 * A tiny HTTP front for the assistant (node:http, no framework):
 *   POST /ask  {"question": "...", ...linkage}  → 200 answer JSON
 *   GET  /healthz                               → 200 {"status":"ok"}
 * Bad input is a 400 with a message that says what to fix; a body over 64 KiB
 * is a 413.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { PolicyAssistant } from "../create-policy-assistant.js";
import { parseAskRequest, toAskResponse } from "./ask-request.js";

export const MAX_BODY_BYTES = 64 * 1024;

class BodyTooLarge extends Error {}

async function readBody(request: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of request) {
    const buffer = part as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) throw new BodyTooLarge();
    parts.push(buffer);
  }
  return Buffer.concat(parts).toString("utf8");
}

function send(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(text) });
  response.end(text);
}

async function handle(assistant: PolicyAssistant, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const url = new URL(request.url ?? "/", "http://localhost");
  if (url.pathname === "/healthz" && request.method === "GET") return send(response, 200, { status: "ok" });
  if (url.pathname !== "/ask") return send(response, 404, { error: "not found; use POST /ask" });
  if (request.method !== "POST") return send(response, 405, { error: "use POST /ask with a JSON body {\"question\": \"...\"}" });

  let text: string;
  try {
    text = await readBody(request);
  } catch (error) {
    if (error instanceof BodyTooLarge) return send(response, 413, { error: `the body is larger than ${MAX_BODY_BYTES} bytes` });
    throw error;
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return send(response, 400, { error: "the body is not valid JSON; send {\"question\": \"...\"}" });
  }
  const call = parseAskRequest(body);
  if (!call.ok) return send(response, 400, { error: call.error });
  const answer = await assistant.answer(call.value.question, call.value.request);
  return send(response, 200, toAskResponse(answer));
}

export function createAskServer(assistant: PolicyAssistant): Server {
  return createServer((request, response) => {
    handle(assistant, request, response).catch((error: unknown) => {
      // A bug in the assistant: answer 500 rather than leave the client hanging.
      if (!response.headersSent) send(response, 500, { error: "internal error" });
      else response.destroy();
      console.error(error);
    });
  });
}
