/**
 * Shutdown ends within its configured timeout whatever the collector does, and
 * says how many spans it lost: with the collector down (connection refused),
 * the first export fails at once and the rest are counted as lost without
 * being tried; with a collector that accepts connections and never answers, the
 * exports in flight are aborted at the deadline (the connection is closed, so
 * nothing keeps the process alive). Before the export writer, shutdown took the
 * export timeout plus the exporter's retries: 10–21 s.
 *
 * The bounds are wide on purpose (timeout 1 s, asserted under 1 s + 6 s):
 * they separate "ends at its deadline" from "waits for the 10 s export
 * timeout", not one busy machine from another.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import net from "node:net";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { createRagscopeSpanProcessor, type RagscopeSpanProcessor } from "../../../instrumentation/index.js";
import { closedEndpoint } from "./otlp-test-receiver.js";

const SHUTDOWN_TIMEOUT_MS = 1000;
const MARGIN_MS = 6000;
const SPANS = 3000;

/** A collector that accepts connections, reads what comes and never answers; it sees when the client closes. */
async function startSilentCollector(): Promise<{ endpoint: string; connections: () => number; closedByClient: () => number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  let connections = 0;
  let closedByClient = 0;
  const server = net.createServer((socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on("data", () => undefined);
    socket.on("error", () => undefined);
    socket.on("close", () => {
      if (sockets.delete(socket)) closedByClient += 1;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    connections: () => connections,
    closedByClient: () => closedByClient,
    close: async () => {
      const open = [...sockets];
      sockets.clear();
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function endSpans(processor: RagscopeSpanProcessor, count: number): void {
  const provider = new BasicTracerProvider({ spanProcessors: [processor] });
  const tracer = provider.getTracer("shutdown-test");
  for (let index = 0; index < count; index += 1) tracer.startSpan(`span-${index}`, { attributes: { "input.value": `question ${index}` } }).end();
}

async function timedShutdown(processor: RagscopeSpanProcessor): Promise<number> {
  const started = process.hrtime.bigint();
  await processor.shutdown();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

describe("shutdown with the collector down or not answering", () => {
  let silent: Awaited<ReturnType<typeof startSilentCollector>>;
  before(async () => {
    silent = await startSilentCollector();
  });
  after(async () => silent.close());

  test("collector down (connection refused): shutdown ends within its timeout and reports every lost span with the count", async () => {
    const endpoint = await closedEndpoint();
    const warnings: string[] = [];
    const processor = createRagscopeSpanProcessor({ endpoint, flushOnExit: false }, { shutdownTimeoutMillis: SHUTDOWN_TIMEOUT_MS, warn: (message) => warnings.push(message) });
    endSpans(processor, SPANS);
    const milliseconds = await timedShutdown(processor);
    assert.ok(milliseconds < SHUTDOWN_TIMEOUT_MS + MARGIN_MS, `shutdown took ${Math.round(milliseconds)} ms`);
    const statistics = processor.statistics();
    assert.equal(statistics.exported, 0);
    assert.equal(statistics.failed, SPANS, "every span is counted as lost");
    assert.equal(statistics.queued, 0);
    const summary = warnings.find((message) => message.includes("at shutdown"));
    assert.ok(summary !== undefined, warnings.join("\n"));
    assert.match(summary, new RegExp(`${SPANS} spans could not be exported to ${endpoint}/v1/traces`));
  });

  test("collector that accepts connections and never answers: the exports in flight are aborted at the deadline, the lost spans reported", async () => {
    const warnings: string[] = [];
    // The export timeout stays at its default (10 s): only the shutdown deadline can end these exports in time.
    const processor = createRagscopeSpanProcessor({ endpoint: silent.endpoint, flushOnExit: false }, { shutdownTimeoutMillis: SHUTDOWN_TIMEOUT_MS, warn: (message) => warnings.push(message) });
    assert.equal(processor.limits.exportTimeoutMillis, 10_000);
    endSpans(processor, SPANS);
    // Full batches are sent at once, from the export worker once it has started: the exports are in flight before shutdown begins.
    for (let wait = 0; silent.connections() === 0 && wait < 500; wait += 1) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.ok(silent.connections() > 0, "the exports reached the collector");
    const milliseconds = await timedShutdown(processor);
    assert.ok(milliseconds < SHUTDOWN_TIMEOUT_MS + MARGIN_MS, `shutdown took ${Math.round(milliseconds)} ms`);
    assert.ok(milliseconds >= SHUTDOWN_TIMEOUT_MS - 50, `shutdown waited for its deadline (${Math.round(milliseconds)} ms)`);
    const statistics = processor.statistics();
    assert.equal(statistics.exported, 0);
    assert.equal(statistics.failed, SPANS, "every span is counted as lost");
    const summary = warnings.find((message) => message.includes("at shutdown"));
    assert.ok(summary !== undefined, warnings.join("\n"));
    assert.match(summary, new RegExp(`${SPANS} spans could not be exported to ${silent.endpoint}/v1/traces`));
    assert.match(summary, new RegExp(`within ${SHUTDOWN_TIMEOUT_MS} ms`));
    // The aborted requests' connections are closed by the SDK, not left open until the collector gives up.
    for (let wait = 0; silent.closedByClient() < silent.connections() && wait < 100; wait += 1) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(silent.closedByClient(), silent.connections(), "every connection was closed by the client");
  });

  test("a process whose collector never answers exits within the shutdown timeout once its work is done (RAGSCOPE_SHUTDOWN_TIMEOUT_MS)", async () => {
    const app = fileURLToPath(new URL("./fixtures/short-lived-app.ts", import.meta.url));
    const child = spawn(process.execPath, ["--import", "tsx", app], {
      env: { ...process.env, RAGSCOPE_ENDPOINT: silent.endpoint, REQUESTS: "50", EXIT_MODE: "drain", RAGSCOPE_SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS) },
    });
    let stdout = "";
    let stderr = "";
    let workDoneAt: bigint | undefined;
    child.stdout.on("data", (part: Buffer) => {
      stdout += part.toString();
      if (workDoneAt === undefined && stdout.includes("queued")) workDoneAt = process.hrtime.bigint();
    });
    child.stderr.on("data", (part: Buffer) => (stderr += part.toString()));
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    const exitedAt = process.hrtime.bigint();
    assert.equal(code, 0, stderr);
    assert.ok(workDoneAt !== undefined, stdout);
    const milliseconds = Number(exitedAt - workDoneAt) / 1e6;
    assert.ok(milliseconds < SHUTDOWN_TIMEOUT_MS + MARGIN_MS, `the process lived ${Math.round(milliseconds)} ms after its work`);
    assert.match(stderr, new RegExp(`100 spans could not be exported to ${silent.endpoint}/v1/traces`), "the loss is reported with its count");
  });
});
