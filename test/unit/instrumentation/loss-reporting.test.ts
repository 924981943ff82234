/**
 * Every span the process lost is said on stderr. Warnings come at most once every ten seconds, each with the loss so
 * far; what a window left unsaid is in the next warning, and shutdown says the process's whole loss by cause — it used
 * to say only what shutdown itself lost: with the collector down, statistics() counted 20 failed spans while stderr
 * said 4. The warning clock is injected: the test steps it instead of waiting ten seconds.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { createRagscopeSpanProcessor, type RagscopeSpanProcessor } from "../../../instrumentation/index.js";
import { closedEndpoint } from "./otlp-test-receiver.js";

const BATCH = 4;
const WARNING_INTERVAL_MS = 10_000;

function endSpans(processor: RagscopeSpanProcessor, count: number): void {
  const tracer = new BasicTracerProvider({ spanProcessors: [processor] }).getTracer("loss-reporting-test");
  for (let index = 0; index < count; index += 1) tracer.startSpan(`span-${index}`).end();
}

/** Ends one batch of spans and exports it; the collector is down, so it fails. */
async function failOneBatch(processor: RagscopeSpanProcessor): Promise<void> {
  endSpans(processor, BATCH);
  await assert.rejects(processor.forceFlush(), /could not be exported/);
}

async function processorToDeadCollector() {
  const endpoint = await closedEndpoint();
  const warnings: string[] = [];
  const clock = { now: 1_000_000 };
  const processor = createRagscopeSpanProcessor(
    { endpoint, flushOnExit: false },
    { exportTimeoutMillis: 1000, maxExportBatchSize: BATCH, warn: (message) => warnings.push(message), now: () => clock.now },
  );
  return { endpoint, warnings, clock, processor };
}

describe("spans lost to a collector that is down", () => {
  test("lost within one warning window are all said at shutdown, with the process's whole loss", async () => {
    const { endpoint, warnings, processor } = await processorToDeadCollector();
    for (let batch = 0; batch < 5; batch += 1) await failOneBatch(processor);
    assert.equal(processor.statistics().failed, 20);
    assert.equal(warnings.length, 1, `one warning within the window:\n${warnings.join("\n")}`);
    assert.match(warnings[0]!, /; 4 spans lost so far$/);
    await processor.shutdown();
    assert.equal(warnings.length, 2, warnings.join("\n"));
    assert.match(warnings[1]!, new RegExp(`^ragscope: this process lost 20 spans bound for ${endpoint}/v1/traces in all: 20 in exports that failed or were refused, or left unexported at shutdown \\(last: .*ECONNREFUSED`));
  });

  test("lost within a window are in the next warning after it", async () => {
    const { warnings, clock, processor } = await processorToDeadCollector();
    await failOneBatch(processor);
    clock.now += WARNING_INTERVAL_MS / 2;
    await failOneBatch(processor);
    clock.now += WARNING_INTERVAL_MS / 2;
    await failOneBatch(processor);
    assert.deepEqual(
      warnings.map((warning) => /; (\d+) spans lost so far$/.exec(warning)?.[1]),
      ["4", "12"],
    );
    await processor.shutdown();
  });

  test("still unsaid when the process exits without shutdown are said by the exit line", async () => {
    const { warnings, processor } = await processorToDeadCollector();
    for (let batch = 0; batch < 3; batch += 1) await failOneBatch(processor);
    assert.match(processor.lossAtExit() ?? "no exit line", /^ragscope: in all this process lost 12 spans: 12 in exports that failed/);
    await processor.shutdown();
    assert.equal(processor.lossAtExit(), null, `said at shutdown, not again at exit:\n${warnings.join("\n")}`);
  });
});
