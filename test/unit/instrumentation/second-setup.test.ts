/**
 * setupRagscope called twice in one process (two modules that each set up, no
 * preload): the running setup is kept and exported to, made as private as the
 * second call asks, never less private than the first. Spans are exported to an
 * OTLP receiver and read as stored.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { setupRagscope, traceRequest, type RagscopeSetupOptions } from "../../../instrumentation/index.js";
import { startTestReceiver, type TestReceiver } from "./otlp-test-receiver.js";

describe("a second setupRagscope call", () => {
  let receiver: TestReceiver;
  before(async () => {
    receiver = await startTestReceiver();
  });
  after(async () => receiver.close());

  /** The answer as exported, after a first setup with `first` and a second with `second`. */
  async function exportedAnswer(first: RagscopeSetupOptions, second: RagscopeSetupOptions, answer: string): Promise<unknown> {
    receiver.spans.length = 0;
    // The same start-time options in both calls: only the privacy options differ, nothing is reported as ignored.
    const common: RagscopeSetupOptions = { endpoint: receiver.endpoint, protocol: "http/json", flushOnExit: false, exportInWorker: false };
    const handle = setupRagscope({ ...common, ...first });
    try {
      assert.equal(setupRagscope({ ...common, ...second }), handle, "the running setup is returned");
      await traceRequest({ query: "q" }, () => answer);
      await handle.forceFlush();
    } finally {
      await handle.shutdown();
    }
    return receiver.spans.find((span) => span.name === "rag.request")!.attributes["ragscope.answer"];
  }

  test("captureText: false from the second call: the answer is not exported", async () => {
    assert.equal(await exportedAnswer({}, { captureText: false }, "Within 7 days."), undefined);
  });

  test("replace asked after a running hash: values are replaced, not hashed", async () => {
    assert.equal(await exportedAnswer({ redaction: { mode: "hash" } }, { redaction: { mode: "replace" } }, "Write to jane@example.com"), "Write to [REDACTED:email]");
  });

  test("redaction asked after a running setup without it: the answer is redacted", async () => {
    assert.equal(await exportedAnswer({ redaction: false }, {}, "Call 13812345678"), "Call [REDACTED:phone]");
  });

  test("a looser second call (redaction off, text on, a longer limit) keeps the running, stricter options", async () => {
    const answer = await exportedAnswer({ maxTextLength: 12 }, { redaction: false, captureText: true, maxTextLength: 1000 }, "Call 13812345678 today");
    assert.equal(answer, "Call ");
  });
});
