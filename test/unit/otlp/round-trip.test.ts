import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { decodeTraceRequest } from "../../../collector/00-otlp/decode-trace-request.js";
import { encodeTraceRequestJson } from "../../../collector/00-otlp/encode-json.js";
import { encodeTraceRequest } from "../../../collector/00-otlp/encode-protobuf.js";
import type { AnyValue, TracesDocument } from "../../../collector/00-otlp/traces-document.js";
import { sampleTracesDocument } from "./sample-traces-document.js";

function decodeOrFail(body: Uint8Array, encoding: "protobuf" | "json"): TracesDocument {
  const result = decodeTraceRequest(body, encoding);
  if (!result.ok) assert.fail(result.error.message);
  return result.value;
}

const utf8 = new TextEncoder();

describe("OTLP codec round trip", () => {
  test("protobuf: decoding what was encoded gives the same document", () => {
    const document = sampleTracesDocument();
    assert.deepEqual(decodeOrFail(encodeTraceRequest(document), "protobuf"), document);
  });

  test("JSON: decoding what was encoded gives the same document", () => {
    const document = sampleTracesDocument();
    assert.deepEqual(decodeOrFail(utf8.encode(encodeTraceRequestJson(document)), "json"), document);
  });

  test("protobuf bytes are stable through decode and encode", () => {
    const bytes = encodeTraceRequest(sampleTracesDocument());
    assert.deepEqual(encodeTraceRequest(decodeOrFail(bytes, "protobuf")), bytes);
  });

  test("JSON → protobuf → JSON gives the same text", () => {
    const json = encodeTraceRequestJson(sampleTracesDocument());
    const viaProtobuf = encodeTraceRequest(decodeOrFail(utf8.encode(json), "json"));
    assert.equal(encodeTraceRequestJson(decodeOrFail(viaProtobuf, "protobuf")), json);
  });

  test("JSON is written the OTLP/JSON way: hex ids, integer enums, int64 as strings, base64 bytes, no defaults", () => {
    const parsed = JSON.parse(encodeTraceRequestJson(sampleTracesDocument()));
    const span = parsed.resourceSpans[0].scopeSpans[0].spans[0];
    assert.equal(span.traceId, "0af7651916cd43dd8448eb211c80319c");
    assert.equal(span.spanId, "00f067aa0ba902b7");
    assert.equal(span.kind, 2);
    assert.equal(span.startTimeUnixNano, "1544712660000000001");
    assert.equal(span.status.code, 2);
    assert.equal("parentSpanId" in span, false);
    const attribute = (key: string) => span.attributes.find((item: { key: string }) => item.key === key).value;
    assert.deepEqual(attribute("count"), { intValue: "42" });
    assert.deepEqual(attribute("raw"), { bytesValue: Buffer.from([0, 1, 2, 250, 255]).toString("base64") });
    assert.deepEqual(attribute("not.a.number"), { doubleValue: "NaN" });
    assert.deepEqual(attribute("unset"), {});
    const secondScope = parsed.resourceSpans[0].scopeSpans[1];
    assert.deepEqual(secondScope.scope, {});
    assert.deepEqual(parsed.resourceSpans[1].resource, {});
  });

  test("the deepest nesting accepted survives both encodings; one level more is refused by both", () => {
    /** `levels` key-value lists inside each other, in an event attribute, with an unset value at the bottom. */
    function nested(levels: number): TracesDocument {
      let value: AnyValue | null = null;
      for (let level = 0; level < levels; level += 1) value = { kvlistValue: { values: [{ key: "k", value }] } };
      const document = sampleTracesDocument();
      const span = document.resourceSpans[0]!.scopeSpans[0]!.spans[0]!;
      span.events[0]!.attributes = [{ key: "deep", value }];
      return document;
    }
    const deepest = nested(31);
    assert.deepEqual(decodeOrFail(encodeTraceRequest(deepest), "protobuf"), deepest);
    assert.deepEqual(decodeOrFail(utf8.encode(encodeTraceRequestJson(deepest)), "json"), deepest);
    const tooDeep = nested(32);
    assert.equal(decodeTraceRequest(utf8.encode(encodeTraceRequestJson(tooDeep)), "json").ok, false);

    // Lists of lists take fewer protobuf message levels, so 32 of them can be
    // written; the decoder still refuses them.
    let list: AnyValue = { stringValue: "bottom" };
    for (let level = 1; level < 32; level += 1) list = { arrayValue: { values: [list] } };
    const document = sampleTracesDocument();
    document.resourceSpans[0]!.scopeSpans[0]!.spans[0]!.attributes = [{ key: "deep", value: list }];
    const refused = decodeTraceRequest(encodeTraceRequest(document), "protobuf");
    assert.equal(refused.ok, false);
    if (!refused.ok) assert.match(refused.error.message, /nested deeper than 31 levels$/);
  });

  test("empty requests: no bytes, and {}", () => {
    assert.deepEqual(decodeOrFail(new Uint8Array(0), "protobuf"), { resourceSpans: [] });
    assert.deepEqual(decodeOrFail(utf8.encode("{}"), "json"), { resourceSpans: [] });
    assert.equal(encodeTraceRequest({ resourceSpans: [] }).length, 0);
    assert.equal(encodeTraceRequestJson({ resourceSpans: [] }), "{}");
  });
});

describe("OTLP/JSON leniency that the specification asks for", () => {
  const traceId = "5B8EFFF798038103D269B633813FC60C";
  const body = `{
    "resource_spans": [{
      "resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "upper"}}]},
      "scopeSpans": [{
        "scope": null,
        "unknownField": {"anything": [1, 2, 3]},
        "spans": [{
          "traceId": "${traceId}",
          "spanId": "EEE19B7EC3C1B174",
          "parentSpanId": "",
          "name": "lenient",
          "kind": "SPAN_KIND_CLIENT",
          "startTimeUnixNano": 1544712660000000001,
          "end_time_unix_nano": "1544712661000000000",
          "attributes": [
            {"key": "big", "value": {"intValue": 9007199254740993}},
            {"key": "small", "value": {"intValue": 12}},
            {"key": "ratio", "value": {"doubleValue": "0.5"}},
            {"key": "precise.double", "value": {"doubleValue": 0.12345678901234567}},
            {"key": "digits.in.text", "value": {"stringValue": "id 12345678901234567890 \\" 98765432109876543210"}},
            {"key": "urlsafe", "value": {"bytesValue": "-_8"}}
          ],
          "status": {"code": "STATUS_CODE_OK"}
        }]
      }]
    }]
  }`;

  test("accepts snake_case keys, upper-case hex, enum names, int64 numbers beyond 2^53, null, unknown fields", () => {
    const document = decodeOrFail(utf8.encode(body), "json");
    const resourceSpans = document.resourceSpans[0]!;
    assert.deepEqual(resourceSpans.resource.attributes, [{ key: "service.name", value: { stringValue: "upper" } }]);
    const span = resourceSpans.scopeSpans[0]!.spans[0]!;
    assert.equal(span.traceId, traceId.toLowerCase());
    assert.equal(span.spanId, "eee19b7ec3c1b174");
    assert.equal(span.kind, 3);
    assert.equal(span.startTimeUnixNano, 1544712660000000001n);
    assert.equal(span.endTimeUnixNano, 1544712661000000000n);
    assert.deepEqual(span.status, { message: "", code: 1 });
    assert.deepEqual(span.attributes, [
      { key: "big", value: { intValue: 9007199254740993n } },
      { key: "small", value: { intValue: 12n } },
      { key: "ratio", value: { doubleValue: 0.5 } },
      { key: "precise.double", value: { doubleValue: 0.12345678901234567 } },
      { key: "digits.in.text", value: { stringValue: 'id 12345678901234567890 " 98765432109876543210' } },
      { key: "urlsafe", value: { bytesValue: new Uint8Array([0xfb, 0xff]) } },
    ]);
  });
});
