/**
 * What leaves the process is the same whether the export worker runs or not
 * (export/worker-span-exporter.ts): the default patterns are applied in the
 * worker, in replace and hash mode; custom patterns (with a `validate`
 * function, which cannot cross to a thread) on the application's thread
 * before the batch is posted. Read back from a real OTLP/HTTP endpoint.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { createRagscopeSpanProcessor, createRedactor, type RagscopeSetupOptions } from "../../../instrumentation/index.js";
import { startTestReceiver, type TestReceiver } from "./otlp-test-receiver.js";

const TEXT = "call 13812345678 or mail li.lei@example.com about order X-1234";

async function exportOneSpan(receiver: TestReceiver, options: RagscopeSetupOptions): Promise<Record<string, unknown>> {
  const before = receiver.spans.length;
  const processor = createRagscopeSpanProcessor({ endpoint: receiver.endpoint, flushOnExit: false, ...options });
  const provider = new BasicTracerProvider({ spanProcessors: [processor] });
  provider.getTracer("redaction-test").startSpan("answer", { attributes: { "output.value": TEXT, "retrieval.documents.0.document.id": "13812345678" } }).end();
  await processor.shutdown();
  assert.equal(processor.statistics().exported, 1);
  assert.equal(receiver.spans.length, before + 1);
  return receiver.spans.at(-1)!.attributes as Record<string, unknown>;
}

describe("redaction with and without the export worker", () => {
  let receiver: TestReceiver;
  before(async () => {
    receiver = await startTestReceiver();
  });
  after(async () => receiver.close());

  test("default patterns, replace mode: the same spans leave the process either way", async () => {
    const inWorker = await exportOneSpan(receiver, { exportInWorker: true });
    const inThread = await exportOneSpan(receiver, { exportInWorker: false });
    assert.equal(inWorker["output.value"], "call [REDACTED:phone] or mail [REDACTED:email] about order X-1234");
    assert.equal(inWorker["retrieval.documents.0.document.id"], "13812345678", "structural attributes are kept in the worker too");
    assert.deepEqual(inWorker, inThread);
  });

  test("hash mode with a key: the worker's hashes are the key's hashes", async () => {
    const redaction = { mode: "hash" as const, hashKey: "shared-key" };
    const inWorker = await exportOneSpan(receiver, { exportInWorker: true, redaction });
    assert.equal(inWorker["output.value"], createRedactor(redaction).redact(TEXT));
    assert.match(String(inWorker["output.value"]), /^call \[REDACTED:phone:[0-9a-f]{16}\] or mail \[REDACTED:email:[0-9a-f]{16}\]/);
  });

  test("custom patterns with a validate function run on the application's thread, then the batch goes to the worker", async () => {
    const redaction = { patterns: [{ name: "order", pattern: /X-\d+/g, validate: (match: string) => match.endsWith("4") }] };
    const inWorker = await exportOneSpan(receiver, { exportInWorker: true, redaction });
    const inThread = await exportOneSpan(receiver, { exportInWorker: false, redaction });
    assert.equal(inWorker["output.value"], "call 13812345678 or mail li.lei@example.com about order [REDACTED:order]");
    assert.deepEqual(inWorker, inThread);
  });

  test("redaction off: the text leaves as it was recorded", async () => {
    const inWorker = await exportOneSpan(receiver, { exportInWorker: true, redaction: false });
    assert.equal(inWorker["output.value"], TEXT);
  });
});
