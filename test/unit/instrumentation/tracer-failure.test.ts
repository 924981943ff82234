/**
 * When the tracing machinery itself fails (here: a registered tracer provider
 * whose tracer throws), the application function still runs exactly once and
 * its value or error is what the caller gets.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { trace, type Tracer, type TracerProvider } from "@opentelemetry/api";
import { instrumentationErrors, traceRequest, traceRetrieve } from "../../../instrumentation/index.js";

class ThrowingTracer implements Tracer {
  startSpan(): never {
    throw new Error("tracer is broken");
  }
  startActiveSpan(): never {
    throw new Error("tracer is broken");
  }
}

class ThrowingTracerProvider implements TracerProvider {
  getTracer(): Tracer {
    return new ThrowingTracer();
  }
}

describe("a failing tracer", () => {
  before(() => {
    assert.equal(trace.setGlobalTracerProvider(new ThrowingTracerProvider()), true);
  });
  after(() => trace.disable());

  test("the function runs once untraced and its value is returned", async () => {
    const errorsBefore = instrumentationErrors();
    let calls = 0;
    const value = { chunks: [] };
    const returned = await traceRequest({ query: "q" }, () => {
      calls += 1;
      return value;
    });
    assert.equal(returned, value);
    assert.equal(calls, 1);
    assert.equal(instrumentationErrors(), errorsBefore + 1);
  });

  test("the function's error still reaches the caller as the same object", async () => {
    const error = new Error("app failure");
    let calls = 0;
    await assert.rejects(
      traceRetrieve({ query: "q" }, async () => {
        calls += 1;
        throw error;
      }),
      (thrown) => thrown === error,
    );
    assert.equal(calls, 1);
  });
});
