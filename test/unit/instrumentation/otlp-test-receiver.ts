/**
 * Test fixture: a tiny OTLP/HTTP endpoint on 127.0.0.1 that records what it
 * receives (decoded to SpanRecords with the collector's own codec), or one
 * that never answers (a slow collector), or the address of a closed port (a
 * collector that is down).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { decodeTraceRequest, detectEncoding, toSpanRecords, type SpanRecord } from "../../../collector/00-otlp/index.js";

export interface TestReceiver {
  readonly endpoint: string;
  readonly spans: SpanRecord[];
  requests(): number;
  close(): Promise<void>;
}

export async function startTestReceiver(mode: "answer" | "never-answer" = "answer"): Promise<TestReceiver> {
  const spans: SpanRecord[] = [];
  let requests = 0;
  const server: Server = createServer((request, response) => {
    const parts: Buffer[] = [];
    request.on("data", (part: Buffer) => parts.push(part));
    request.on("end", () => {
      requests += 1;
      if (mode === "never-answer") return;
      const body = new Uint8Array(Buffer.concat(parts));
      const decoded = decodeTraceRequest(body, detectEncoding(body));
      if (decoded.ok) spans.push(...toSpanRecords(decoded.value));
      const json = request.headers["content-type"] === "application/json";
      response.writeHead(decoded.ok ? 200 : 400, { "content-type": json ? "application/json" : "application/x-protobuf" }).end(json ? "{}" : undefined);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    requests: () => requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An address nothing listens on: a port that was just free. */
export async function closedEndpoint(): Promise<string> {
  const receiver = await startTestReceiver();
  const endpoint = receiver.endpoint;
  await receiver.close();
  return endpoint;
}
