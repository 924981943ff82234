import { after, before, beforeEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { SpanStatusCode } from "@opentelemetry/api";
import {
  instrumentationErrors,
  traceCite,
  traceContext,
  traceGenerate,
  traceQueryRewrite,
  traceRequest,
  traceRerank,
  traceRetrieve,
  type ChunkRecord,
} from "../../../instrumentation/index.js";
import { spanNamed, startInMemoryTracing, type InMemoryTracing } from "./in-memory-tracing.js";

describe("exceptions from the application", () => {
  let tracing: InMemoryTracing;
  before(() => {
    tracing = startInMemoryTracing();
  });
  beforeEach(() => tracing.reset());
  after(async () => tracing.stop());

  test("an async rejection is recorded on the span and rethrown as the same object", async () => {
    const error = new Error("index unavailable");
    await assert.rejects(
      traceRetrieve({ query: "q" }, async () => {
        throw error;
      }),
      (thrown) => thrown === error,
    );
    const span = spanNamed(tracing.spans(), "rag.retrieve");
    assert.equal(span.status.code, SpanStatusCode.ERROR);
    assert.equal(span.status.message, "index unavailable");
    const exception = span.events.find((event) => event.name === "exception");
    assert.equal(exception?.attributes?.["exception.message"], "index unavailable");
    assert.equal(exception?.attributes?.["exception.type"], "Error");
    assert.equal(span.ended, true);
  });

  test("a synchronous throw is recorded and rethrown; the request span records it too", async () => {
    class QuotaError extends Error {
      override name = "QuotaError";
    }
    const error = new QuotaError("quota exceeded");
    await assert.rejects(
      traceRequest({ query: "q" }, () =>
        traceGenerate({ model: "m" }, () => {
          throw error;
        }),
      ),
      (thrown) => thrown === error,
    );
    const spans = tracing.spans();
    assert.equal(spans.length, 2);
    for (const span of spans) {
      assert.equal(span.status.code, SpanStatusCode.ERROR, span.name);
      assert.equal(span.status.message, "quota exceeded");
    }
    const generate = spanNamed(spans, "rag.generate");
    assert.equal(generate.events[0]?.attributes?.["exception.type"], "QuotaError");
    assert.equal(generate.parentSpanContext?.spanId, spanNamed(spans, "rag.request").spanContext().spanId);
  });

  test("a thrown non-Error value is rethrown as is and described on the span", async () => {
    const thrownValue = { code: "E_BACKEND", retriable: false };
    await assert.rejects(
      traceCite(() => {
        throw thrownValue;
      }),
      (thrown) => thrown === thrownValue,
    );
    const span = spanNamed(tracing.spans(), "rag.cite");
    assert.equal(span.status.code, SpanStatusCode.ERROR);
    assert.equal(span.status.message, JSON.stringify(thrownValue));
    assert.equal(span.events.length, 1);
  });
});

describe("extractor failures never reach the application", () => {
  let tracing: InMemoryTracing;
  before(() => {
    tracing = startInMemoryTracing();
  });
  beforeEach(() => tracing.reset());
  after(async () => tracing.stop());

  test("a throwing toChunks: the value is returned unchanged, the problem counted, the span kept", async () => {
    const appValue = { results: [{ id: "c1" }] };
    const errorsBefore = instrumentationErrors();
    const returned = await traceRetrieve({ query: "q", topK: 1 }, async () => appValue, () => {
      throw new TypeError("cannot read results");
    });
    assert.equal(returned, appValue);
    assert.equal(instrumentationErrors(), errorsBefore + 1);
    const span = spanNamed(tracing.spans(), "rag.retrieve");
    assert.equal(span.status.code, SpanStatusCode.UNSET, "the application did not fail");
    assert.equal(span.attributes["ragscope.stage"], "retrieve");
    assert.equal(span.attributes["ragscope.retrieval.top_k"], 1, "attributes known before fn are kept");
    assert.equal(Object.keys(span.attributes).some((key) => key.startsWith("retrieval.documents.")), false);
  });

  test("extractors returning garbage: every stage returns the value and counts one problem", async () => {
    const cases: Array<[string, () => Promise<unknown>, unknown]> = [];
    const requestValue = { answer: 42 };
    cases.push(["toAnswer not a string", () => traceRequest({ query: "q" }, () => requestValue, (value) => value.answer as unknown as string), requestValue]);
    cases.push(["retrieve value not a list", () => traceRetrieve({ query: "q" }, () => "not chunks"), "not chunks"]);
    const rerankValue = { ranked: null };
    cases.push(["rerank toChunks null", () => traceRerank({ query: "q", input: [] }, () => rerankValue, (value) => value.ranked as unknown as ChunkRecord[]), rerankValue]);
    cases.push(["context without chunkIds", () => traceContext({}, () => ({ text: "t" })), undefined]);
    cases.push(["generation without text", () => traceGenerate({ model: "m" }, () => 7), 7]);
    cases.push(["citations not strings", () => traceCite(() => [1, 2]), undefined]);
    cases.push(["rewrite not a string", () => traceQueryRewrite({ query: "q" }, () => 5 as unknown as string), 5]);
    for (const [label, run, expected] of cases) {
      const errorsBefore = instrumentationErrors();
      const returned = await run();
      if (expected !== undefined) assert.equal(returned, expected, label);
      assert.equal(instrumentationErrors(), errorsBefore + 1, label);
    }
    assert.equal(tracing.spans().length, cases.length);
  });

  test("a list with one bad element keeps the good chunks at their original ranks", async () => {
    const errorsBefore = instrumentationErrors();
    const chunks = [{ chunkId: "a", score: 0.9 }, { text: "no id" }, { chunkId: "c", score: 0.5 }];
    const returned = await traceRetrieve({ query: "q" }, () => chunks as ChunkRecord[]);
    assert.equal(returned, chunks);
    assert.equal(instrumentationErrors(), errorsBefore + 1);
    const attributes = spanNamed(tracing.spans(), "rag.retrieve").attributes;
    assert.equal(attributes["retrieval.documents.0.document.id"], "a");
    assert.equal(attributes["ragscope.documents.0.rank"], 1);
    assert.equal(attributes["retrieval.documents.1.document.id"], undefined, "the bad element's place stays empty");
    assert.equal(attributes["retrieval.documents.2.document.id"], "c");
    assert.equal(attributes["ragscope.documents.2.rank"], 3);
    assert.equal(attributes["ragscope.retrieval.unrecorded_document_count"], 1);
  });

  test("values OTel cannot carry are skipped: NaN quietly, wrong types counted", async () => {
    const errorsBefore = instrumentationErrors();
    const chunks = [
      { chunkId: "a", score: Number.NaN, acl: ["staff", 3], documentVersion: { major: 1 } },
    ] as unknown as ChunkRecord[];
    await traceRetrieve({ query: "q" }, () => chunks);
    assert.equal(instrumentationErrors(), errorsBefore + 2, "acl and documentVersion");
    const attributes = spanNamed(tracing.spans(), "rag.retrieve").attributes;
    assert.equal(attributes["retrieval.documents.0.document.id"], "a");
    for (const key of ["retrieval.documents.0.document.score", "ragscope.documents.0.acl", "ragscope.documents.0.document_version"]) {
      assert.equal(key in attributes, false, key);
    }
  });

  test("garbage options do not stop the application function", async () => {
    const errorsBefore = instrumentationErrors();
    let calls = 0;
    const returned = await traceRetrieve(undefined as unknown as { query: string }, () => {
      calls += 1;
      return [{ chunkId: "a" }];
    });
    assert.equal(calls, 1);
    assert.deepEqual(returned, [{ chunkId: "a" }]);
    assert.equal(instrumentationErrors(), errorsBefore + 1);
    const span = spanNamed(tracing.spans(), "rag.retrieve");
    assert.equal(span.attributes["ragscope.stage"], "retrieve");
    assert.equal(span.attributes["retrieval.documents.0.document.id"], "a");
  });

  test("a throwing extractor is not called when the application fails, and the app error wins", async () => {
    const error = new Error("backend down");
    let extractorCalls = 0;
    await assert.rejects(
      traceGenerate({ model: "m" }, async (): Promise<{ text: string }> => {
        throw error;
      }, (value) => {
        extractorCalls += 1;
        return value;
      }),
      (thrown) => thrown === error,
    );
    assert.equal(extractorCalls, 0);
  });
});
