/**
 * Shutdown with the export worker (export/worker-span-exporter.ts), told by
 * the order of events rather than by durations: the application's clock is
 * the test's (node:test's mock timers drive the processor's deadline), the
 * collector is real.
 *
 * - A collector that accepts connections and never answers (and an export
 *   timeout far beyond the test): shutdown has not ended while the exports
 *   hang, ends once its deadline passes on the application's clock, counts
 *   every span as lost, and every connection the worker opened is closed by
 *   the SDK.
 * - A collector that is down: shutdown ends without the clock moving at all.
 */
import { afterEach, describe, mock, test } from "node:test";
import assert from "node:assert/strict";
import net from "node:net";
import type { AddressInfo } from "node:net";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { createRagscopeSpanProcessor, type RagscopeSpanProcessor } from "../../../instrumentation/index.js";
import { closedEndpoint } from "./otlp-test-receiver.js";

const SHUTDOWN_TIMEOUT_MS = 1000;
const SPANS = 3000;

function endSpans(processor: RagscopeSpanProcessor, count: number): void {
  const provider = new BasicTracerProvider({ spanProcessors: [processor] });
  const tracer = provider.getTracer("export-worker-test");
  for (let index = 0; index < count; index += 1) tracer.startSpan(`span-${index}`, { attributes: { "input.value": `question ${index}` } }).end();
}

/** Real I/O turns (setImmediate is not mocked): time for anything already due to happen. */
async function ioTurns(count: number): Promise<void> {
  for (let turn = 0; turn < count; turn += 1) await new Promise((resolve) => setImmediate(resolve));
}

/** The real timer, kept before the test mocks the global one. */
const realSetTimeout = globalThis.setTimeout;

/** Polls every 20 ms of real time until `condition` holds; false if it never did (the bound is generous: the worker starts through tsx here). */
async function eventually(condition: () => boolean, polls = 1500): Promise<boolean> {
  for (let poll = 0; poll < polls && !condition(); poll += 1) await new Promise((resolve) => realSetTimeout(resolve, 20));
  return condition();
}

describe("shutdown with the export worker, in order of events", () => {
  afterEach(() => mock.timers.reset());

  test("collector accepting connections and never answering: shutdown ends at its deadline on the application's clock, and closes every connection", async () => {
    const events: string[] = [];
    const sockets = new Set<net.Socket>();
    let open = 0;
    let accepted = 0;
    const server = net.createServer((socket) => {
      accepted += 1;
      open += 1;
      sockets.add(socket);
      if (accepted === 1) events.push("collector accepted a connection");
      socket.on("data", () => undefined);
      socket.on("error", () => undefined);
      socket.on("close", () => {
        open -= 1;
        sockets.delete(socket);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const warnings: string[] = [];
      const processor = createRagscopeSpanProcessor(
        { endpoint: `http://127.0.0.1:${port}`, flushOnExit: false, exportInWorker: true },
        // An export timeout far beyond the test: only shutdown can end these requests.
        { shutdownTimeoutMillis: SHUTDOWN_TIMEOUT_MS, exportTimeoutMillis: 600_000, warn: (message) => warnings.push(message) },
      );
      endSpans(processor, SPANS);
      assert.ok(await eventually(() => accepted > 0), "the worker's exports reached the collector");

      // From here on the application's clock moves only when the test says so.
      mock.timers.enable({ apis: ["setTimeout"] });
      let ended = false;
      const shutdown = processor.shutdown().then(() => {
        ended = true;
        events.push("shutdown ended");
      });
      events.push("shutdown called");
      await ioTurns(200);
      assert.equal(ended, false, "shutdown waits while the exports are in flight");
      events.push("deadline reached");
      mock.timers.tick(SHUTDOWN_TIMEOUT_MS);
      // Bounded in real time: an SDK that waited for the (never reached) export timeout fails here instead of hanging.
      assert.ok(await eventually(() => ended), "shutdown ended once its deadline passed");
      await shutdown;

      assert.deepEqual(events, ["collector accepted a connection", "shutdown called", "deadline reached", "shutdown ended"]);
      const statistics = processor.statistics();
      assert.equal(statistics.exported, 0);
      assert.equal(statistics.failed, SPANS, "every span is counted as lost");
      const summary = warnings.find((message) => message.includes("at shutdown"));
      assert.ok(summary !== undefined, warnings.join("\n"));
      assert.match(summary, new RegExp(`${SPANS} spans could not be exported .* within ${SHUTDOWN_TIMEOUT_MS} ms`));
      // The worker was ended: the connections it held are closed from the SDK's side, not left for the collector to time out.
      assert.ok(await eventually(() => open === 0), `${open} of ${accepted} connections still open`);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  test("collector down: shutdown ends without the application's clock moving, every span counted as lost", async () => {
    const endpoint = await closedEndpoint();
    const warnings: string[] = [];
    const processor = createRagscopeSpanProcessor({ endpoint, flushOnExit: false, exportInWorker: true }, { shutdownTimeoutMillis: SHUTDOWN_TIMEOUT_MS, warn: (message) => warnings.push(message) });
    endSpans(processor, SPANS);
    mock.timers.enable({ apis: ["setTimeout"] });
    // The clock stays where it is: the deadline never passes, so only the refused connections can end this.
    let ended = false;
    const shutdown = processor.shutdown().then(() => {
      ended = true;
    });
    assert.ok(await eventually(() => ended), "shutdown ended without its deadline");
    await shutdown;
    const statistics = processor.statistics();
    assert.equal(statistics.exported, 0);
    assert.equal(statistics.failed, SPANS, "every span is counted as lost");
    const summary = warnings.find((message) => message.includes("at shutdown"));
    assert.ok(summary !== undefined, warnings.join("\n"));
    assert.match(summary, /ECONNREFUSED/);
  });
});
