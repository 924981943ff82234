/**
 * A collector answering 503 with a Retry-After longer than the export has left
 * (the SDK's processor and exporter as an application gets them, a real HTTP
 * server on 127.0.0.1): the export ends at once, and the warning says it in
 * plain words — waiting as the server asked would pass the export's deadline,
 * so the batch is dropped and counted — and which setting to change.
 *
 * No timing in the assertions: the Retry-After (600 s) is far beyond the
 * export timeout (1 s) however slow the machine is.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { createRagscopeSpanProcessor } from "../../../instrumentation/index.js";

let server: Server;
let endpoint: string;

before(async () => {
  server = createServer((request, response) => {
    request.resume();
    request.on("end", () => response.writeHead(503, { "retry-after": "600", "content-type": "text/plain" }).end("queue full"));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

test("a Retry-After past the export's deadline: the batch is dropped and counted, in plain words, naming the timeout setting", async () => {
  const warnings: string[] = [];
  const processor = createRagscopeSpanProcessor({ endpoint, flushOnExit: false }, { exportTimeoutMillis: 1_000, shutdownTimeoutMillis: 5_000, warn: (message) => warnings.push(message) });
  const tracer = new BasicTracerProvider({ spanProcessors: [processor] }).getTracer("retry-after-test");
  tracer.startSpan("one span").end();
  // The flush reports the loss as a rejection (its spans could not be exported); the warning says why.
  await assert.rejects(processor.forceFlush(), /1 spans could not be exported/);
  await processor.shutdown();

  assert.equal(processor.statistics().failed, 1, warnings.join("\n"));
  const warning = warnings.find((message) => message.includes("Retry-After"));
  assert.ok(warning, `no warning about the Retry-After in:\n${warnings.join("\n")}`);
  assert.match(warning, /retrying after the server's Retry-After of 600 s would pass this export's deadline \(1000 ms after it started\)/);
  assert.match(warning, /so the batch is dropped and counted as failed/);
  assert.match(warning, /raise OTEL_BSP_EXPORT_TIMEOUT \(exportTimeoutMillis\)/);
  // The old wording said where the Retry-After fell, not what happened to the spans.
  assert.doesNotMatch(warning, /falls past/);
});
