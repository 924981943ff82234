/**
 * A fake OpenAI-compatible embeddings endpoint: a real node:http server on
 * 127.0.0.1 (random port) answering `POST /v1/embeddings` with vectors a test
 * chooses per text, and scripted failures first. Records every request.
 *
 *   const server = await startFakeEmbeddingsServer((text) => vectors[text]);
 *   server.failNext(503);   // the next request answers 503
 */
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeEmbeddingsServer {
  readonly baseUrl: string;
  /** The `input` texts of each request, in order. */
  readonly requests: Array<{ input: string[]; model: string; encodingFormat: unknown }>;
  failNext(status: number): void;
  close(): Promise<void>;
}

function sendJson(response: ServerResponse, status: number, payload: unknown): void {
  const text = JSON.stringify(payload);
  response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  response.end(text);
}

export async function startFakeEmbeddingsServer(vectorFor: (text: string) => number[]): Promise<FakeEmbeddingsServer> {
  const requests: FakeEmbeddingsServer["requests"] = [];
  const failures: number[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      if (request.method !== "POST" || request.url !== "/v1/embeddings") return sendJson(response, 404, { error: { message: `no route ${request.method} ${request.url}` } });
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { input: string | string[]; model: string; encoding_format?: unknown };
      const input = Array.isArray(body.input) ? body.input : [body.input];
      requests.push({ input, model: body.model, encodingFormat: body.encoding_format });
      const status = failures.shift();
      if (status !== undefined) return sendJson(response, status, { error: { message: `scripted HTTP ${status}`, type: "scripted_error", param: null, code: null } });
      sendJson(response, 200, {
        object: "list",
        model: body.model,
        data: input.map((text, index) => ({ object: "embedding", index, embedding: vectorFor(text) })),
        usage: { prompt_tokens: input.length * 7, total_tokens: input.length * 7 },
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    failNext: (status) => void failures.push(status),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
