/** A trace cut into parts of at most n spans: every span once, in order, each with its own resource and scope. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { splitIntoParts } from "../../../collector/00-otlp/split-into-parts.js";
import type { SpanDocument, TracesDocument } from "../../../collector/00-otlp/traces-document.js";

function span(name: string): SpanDocument {
  return { traceId: "ab".repeat(16), spanId: "cd".repeat(8), traceState: "", parentSpanId: "", flags: 0, name, kind: 1, startTimeUnixNano: 1n, endTimeUnixNano: 2n, attributes: [], droppedAttributesCount: 0, events: [], droppedEventsCount: 0, links: [], droppedLinksCount: 0, status: { message: "", code: 0 } };
}

const resource = (service: string) => ({ attributes: [{ key: "service.name", value: { stringValue: service } }], droppedAttributesCount: 0 });
const scope = (name: string) => ({ name, version: "1", attributes: [], droppedAttributesCount: 0 });

const trace: TracesDocument = {
  resourceSpans: [
    { resource: resource("a"), schemaUrl: "", scopeSpans: [{ scope: scope("s1"), schemaUrl: "", spans: [span("1"), span("2"), span("3")] }, { scope: scope("s2"), schemaUrl: "", spans: [span("4")] }] },
    { resource: resource("b"), schemaUrl: "", scopeSpans: [{ scope: scope("s3"), schemaUrl: "", spans: [span("5"), span("6")] }] },
  ],
};

const flatten = (document: TracesDocument) => document.resourceSpans.flatMap((resourceSpans) => resourceSpans.scopeSpans.flatMap((scopeSpans) => scopeSpans.spans.map((item) => `${String((resourceSpans.resource?.attributes[0]?.value as { stringValue?: string } | undefined)?.stringValue)}/${scopeSpans.scope?.name}/${item.name}`)));

test("parts of at most 2 spans keep every span once, in order, with its resource and scope", () => {
  const parts = splitIntoParts(trace, 2);
  assert.deepEqual(parts.map(flatten), [["a/s1/1", "a/s1/2"], ["a/s1/3", "a/s2/4"], ["b/s3/5", "b/s3/6"]]);
});

test("a trace within the bound stays one part; an empty one gives none", () => {
  assert.deepEqual(splitIntoParts(trace, 6).map(flatten), [flatten(trace)]);
  assert.deepEqual(splitIntoParts({ resourceSpans: [] }, 2), []);
});
