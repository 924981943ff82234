import { encodeTraceRequest, encodeTraceRequestJson, decodeTraceRequest, splitByTraceId, toSpanRecords } from "/work/main/collector/otlp/index.js";
import type { SpanDocument } from "/work/main/collector/otlp/index.js";
const spans: SpanDocument[] = [];
for (let i = 0; i < 100000; i++) spans.push({ traceId: (i % 1000).toString(16).padStart(32, "0"), spanId: (i + 1).toString(16).padStart(16, "0"), traceState: "", parentSpanId: "", flags: 1, name: "span " + i, kind: 1, startTimeUnixNano: 1700000000000000000n + BigInt(i), endTimeUnixNano: 1700000000000000000n + BigInt(i) + 5n, attributes: Array.from({ length: 10 }, (_, k) => ({ key: "attr." + k, value: k % 2 ? { stringValue: "value " + k + " of span " + i } : { intValue: BigInt(k * i) } })), droppedAttributesCount: 0, events: [], droppedEventsCount: 0, links: [], droppedLinksCount: 0, status: { code: 0, message: "" } });
const doc = { resourceSpans: [{ resource: { attributes: [], droppedAttributesCount: 0 }, schemaUrl: "", scopeSpans: [{ scope: { name: "s", version: "", attributes: [], droppedAttributesCount: 0 }, schemaUrl: "", spans }] }] };
let t = performance.now();
const proto = encodeTraceRequest(doc); console.log("encode proto", proto.length, (performance.now() - t) | 0); t = performance.now();
const json = new TextEncoder().encode(encodeTraceRequestJson(doc)); console.log("encode json", json.length, (performance.now() - t) | 0); t = performance.now();
const d1 = decodeTraceRequest(proto, "protobuf"); console.log("decode proto", d1.ok, (performance.now() - t) | 0); t = performance.now();
const d2 = decodeTraceRequest(json, "json"); console.log("decode json", d2.ok, (performance.now() - t) | 0); t = performance.now();
const split = splitByTraceId(doc); console.log("split", split.size, (performance.now() - t) | 0); t = performance.now();
for (const d of split.values()) encodeTraceRequest(d); console.log("encode per trace", (performance.now() - t) | 0); t = performance.now();
const r = toSpanRecords(doc); console.log("records", r.length, (performance.now() - t) | 0);
// JSON with numbers for times (forces integer-preserving rewrite)
const jsonNumbers = new TextEncoder().encode(new TextDecoder().decode(json).replace(/"(\d{19})"/g, "$1")); t = performance.now();
const d3 = decodeTraceRequest(jsonNumbers, "json"); console.log("decode json numbers", d3.ok, (performance.now() - t) | 0);
