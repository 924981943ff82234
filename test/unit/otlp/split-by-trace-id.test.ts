import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { countSpans } from "../../../collector/00-otlp/count-spans.js";
import { decodeTraceRequest } from "../../../collector/00-otlp/decode-trace-request.js";
import { encodeTraceRequest } from "../../../collector/00-otlp/encode-protobuf.js";
import { splitByTraceId } from "../../../collector/00-otlp/split-by-trace-id.js";
import type { TracesDocument } from "../../../collector/00-otlp/traces-document.js";
import { sampleTracesDocument, traceA, traceB, traceC } from "./sample-traces-document.js";

function spanIds(document: TracesDocument): string[] {
  return document.resourceSpans.flatMap((resourceSpans) =>
    resourceSpans.scopeSpans.flatMap((scopeSpans) => scopeSpans.spans.map((span) => span.spanId)),
  );
}

describe("splitByTraceId", () => {
  const document = sampleTracesDocument();
  const traces = splitByTraceId(document);

  test("one document per trace id, in order of first appearance", () => {
    assert.deepEqual([...traces.keys()], [traceA, traceB, traceC]);
  });

  test("every span lands in its trace's document, once, in input order", () => {
    assert.deepEqual(spanIds(traces.get(traceA)!), ["00f067aa0ba902b7", "1111111111111111", "2222222222222222"]);
    assert.deepEqual(spanIds(traces.get(traceB)!), ["b7ad6b7169203331", "4444444444444444"]);
    assert.deepEqual(spanIds(traces.get(traceC)!), ["3333333333333333"]);
    let total = 0;
    for (const [traceId, trace] of traces) {
      total += countSpans(trace);
      for (const resourceSpans of trace.resourceSpans) {
        for (const scopeSpans of resourceSpans.scopeSpans) {
          for (const span of scopeSpans.spans) assert.equal(span.traceId, traceId);
        }
      }
    }
    assert.equal(total, countSpans(document));
  });

  test("each trace keeps the resource and scope its spans came with", () => {
    const traceAResources = traces.get(traceA)!.resourceSpans;
    assert.equal(traceAResources.length, 1);
    assert.deepEqual(traceAResources[0]!.resource, document.resourceSpans[0]!.resource);
    assert.equal(traceAResources[0]!.schemaUrl, document.resourceSpans[0]!.schemaUrl);
    assert.deepEqual(
      traceAResources[0]!.scopeSpans.map((scopeSpans) => [scopeSpans.scope.name, scopeSpans.schemaUrl, scopeSpans.spans.length]),
      [
        ["ragscope", "https://opentelemetry.io/schemas/1.27.0", 2],
        ["", "", 1],
      ],
    );

    // Trace B has a span under each resource: both resources are kept apart.
    const traceBResources = traces.get(traceB)!.resourceSpans;
    assert.deepEqual(
      traceBResources.map((resourceSpans) => resourceSpans.resource),
      [document.resourceSpans[0]!.resource, document.resourceSpans[1]!.resource],
    );
    assert.deepEqual(
      traceBResources.map((resourceSpans) => resourceSpans.scopeSpans.map((scopeSpans) => scopeSpans.scope.name)),
      [["ragscope"], ["other-library"]],
    );
  });

  test("each piece encodes and decodes on its own", () => {
    for (const trace of traces.values()) {
      const decoded = decodeTraceRequest(encodeTraceRequest(trace), "protobuf");
      assert.ok(decoded.ok);
      assert.deepEqual(decoded.value, trace);
    }
  });

  test("an empty document gives no traces", () => {
    assert.equal(splitByTraceId({ resourceSpans: [] }).size, 0);
    const emptyScopes = { resourceSpans: [{ ...document.resourceSpans[0]!, scopeSpans: [] }] };
    assert.equal(splitByTraceId(emptyScopes).size, 0);
  });
});
