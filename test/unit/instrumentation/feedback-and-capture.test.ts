/**
 * recordFeedback (a span in the request's trace), per-stage text capture and
 * the cut of huge texts.
 */
import { after, before, beforeEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { trace } from "@opentelemetry/api";
import { configureRagscope, recordFeedback, traceGenerate, traceRequest, traceRetrieve } from "../../../instrumentation/index.js";
import { spanNamed, startInMemoryTracing, type InMemoryTracing } from "./in-memory-tracing.js";

describe("recordFeedback", () => {
  let tracing: InMemoryTracing;
  before(() => {
    tracing = startInMemoryTracing();
  });
  beforeEach(() => tracing.reset());
  after(async () => {
    configureRagscope({ sampleRate: 1 });
    await tracing.stop();
  });

  test("inside a request: a child of the active span, in the same trace", async () => {
    let outcome: ReturnType<typeof recordFeedback> | undefined;
    await traceRequest({ query: "q" }, () => {
      outcome = recordFeedback({ kind: "handoff", comment: "asked for a person" });
      return "a";
    });
    assert.ok(outcome?.ok);
    const request = spanNamed(tracing.spans(), "rag.request");
    const feedback = spanNamed(tracing.spans(), "rag.feedback");
    assert.equal(feedback.spanContext().traceId, request.spanContext().traceId);
    assert.equal(feedback.parentSpanContext?.spanId, request.spanContext().spanId);
    assert.deepEqual(outcome.value, { traceId: request.spanContext().traceId, spanId: feedback.spanContext().spanId });
    assert.equal(feedback.attributes["ragscope.stage"], "feedback");
    assert.equal(feedback.attributes["ragscope.feedback.kind"], "handoff");
    assert.equal(feedback.attributes["ragscope.feedback.comment"], "asked for a person");
  });

  test("later, by trace id (and root span id): a span of that trace", () => {
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const withRoot = recordFeedback({ kind: "thumbs_up", traceId, spanId: "00f067aa0ba902b7", value: 5 });
    const traceOnly = recordFeedback({ kind: "thumbs_down", traceId: traceId.toUpperCase() });
    assert.ok(withRoot.ok && traceOnly.ok);
    const spans = tracing.spans();
    assert.equal(spans.length, 2);
    for (const span of spans) assert.equal(span.spanContext().traceId, traceId);
    assert.equal(spans[0]!.parentSpanContext?.spanId, "00f067aa0ba902b7");
    assert.equal(spans[0]!.attributes["ragscope.feedback.value"], 5);
    assert.match(spans[1]!.parentSpanContext?.spanId ?? "", /^[0-9a-f]{16}$/);
  });

  test("follows the request's sampling decision", () => {
    configureRagscope({ sampleRate: 0.5 });
    try {
      // The rightmost 56 bits decide (sampling/trace-id-sampling.ts): all zeros is dropped at 0.5, all ones kept.
      assert.ok(recordFeedback({ kind: "thumbs_up", traceId: `${"a".repeat(18)}${"0".repeat(14)}` }).ok);
      assert.ok(recordFeedback({ kind: "thumbs_up", traceId: `${"a".repeat(18)}${"f".repeat(14)}` }).ok);
      const recorded = tracing.spans().map((span) => span.spanContext().traceId);
      assert.deepEqual(recorded, [`${"a".repeat(18)}${"f".repeat(14)}`]);
    } finally {
      configureRagscope({ sampleRate: 1 });
    }
  });

  test("says why when nothing can be recorded, and never throws", () => {
    assert.equal(trace.getActiveSpan(), undefined);
    const noTrace = recordFeedback({ kind: "thumbs_up" });
    assert.ok(!noTrace.ok && /no trace to link/.test(noTrace.error));
    const badKind = recordFeedback({ kind: "love" as "thumbs_up", traceId: "4bf92f3577b34da6a3ce929d0e0e4736" });
    assert.ok(!badKind.ok && /thumbs_up, thumbs_down, follow_up, handoff/.test(badKind.error));
    const badId = recordFeedback({ kind: "thumbs_up", traceId: "xyz" });
    assert.ok(!badId.ok && /32 hex digits/.test(badId.error));
    assert.equal(tracing.spans().length, 0);
  });
});

describe("text capture per stage and huge texts", () => {
  let tracing: InMemoryTracing;
  before(() => {
    tracing = startInMemoryTracing();
  });
  beforeEach(() => tracing.reset());
  after(async () => {
    configureRagscope({ captureText: true, captureTextByStage: {}, maxTextLength: 32_768 });
    await tracing.stop();
  });

  test("text off for one stage keeps that stage's ids, ranks and scores and the other stages' text", async () => {
    configureRagscope({ captureText: true, captureTextByStage: { retrieve: false } });
    await traceRequest({ query: "q" }, async () => {
      await traceRetrieve({ query: "q" }, () => [{ chunkId: "c1", text: "secret chunk", score: 0.7 }]);
      await traceGenerate({ model: "m", prompt: "the prompt" }, () => ({ text: "the answer" }));
      return "the answer";
    });
    const retrieve = spanNamed(tracing.spans(), "rag.retrieve").attributes;
    assert.equal("retrieval.documents.0.document.content" in retrieve, false);
    assert.equal(retrieve["retrieval.documents.0.document.id"], "c1");
    assert.equal(retrieve["retrieval.documents.0.document.score"], 0.7);
    assert.equal(retrieve["ragscope.documents.0.rank"], 1);
    assert.equal(spanNamed(tracing.spans(), "rag.generate").attributes["ragscope.answer"], "the answer");
    assert.equal(spanNamed(tracing.spans(), "rag.request").attributes["ragscope.answer"], "the answer");
  });

  test("text on for one stage while off by default", async () => {
    configureRagscope({ captureText: false, captureTextByStage: { generate: true } });
    await traceRequest({ query: "q" }, () => traceGenerate({ model: "m" }, () => ({ text: "kept" })).then((generation) => generation.text));
    assert.equal(spanNamed(tracing.spans(), "rag.generate").attributes["ragscope.answer"], "kept");
    assert.equal("ragscope.answer" in spanNamed(tracing.spans(), "rag.request").attributes, false);
  });

  test("a huge document is cut to maxTextLength; the application gets it whole", async () => {
    configureRagscope({ captureText: true, captureTextByStage: {}, maxTextLength: 1000 });
    const huge = "条".repeat(5_000_000);
    const returned = await traceRetrieve({ query: "q" }, () => [{ chunkId: "big", text: huge }]);
    assert.equal(returned[0]!.text, huge);
    const content = spanNamed(tracing.spans(), "rag.retrieve").attributes["retrieval.documents.0.document.content"] as string;
    assert.equal(content.length, 1000);
  });
});
