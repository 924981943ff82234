import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { encodeTraceRequestJson } from "../../../collector/00-otlp/encode-json.js";
import { encodeTraceRequest } from "../../../collector/00-otlp/encode-protobuf.js";
import { detectEncoding } from "../../../collector/00-otlp/otlp-encoding.js";
import { sampleTracesDocument } from "./sample-traces-document.js";

const utf8 = new TextEncoder();

describe("detectEncoding", () => {
  test("OTLP/JSON, with or without leading whitespace or a byte order mark", () => {
    const json = encodeTraceRequestJson(sampleTracesDocument());
    assert.equal(detectEncoding(utf8.encode(json)), "json");
    assert.equal(detectEncoding(utf8.encode(` \t\r\n${json}`)), "json");
    assert.equal(detectEncoding(utf8.encode(`\n\n{"resourceSpans":[]}`)), "json");
    assert.equal(detectEncoding(Uint8Array.from([0xef, 0xbb, 0xbf, ...utf8.encode("{}")])), "json");
  });

  test("OTLP protobuf, and bytes that are nothing in particular", () => {
    assert.equal(detectEncoding(encodeTraceRequest(sampleTracesDocument())), "protobuf");
    assert.equal(detectEncoding(new Uint8Array(0)), "protobuf");
    assert.equal(detectEncoding(utf8.encode("[1,2]")), "protobuf");
  });

  test("protobuf whose first resource_spans is 123 bytes long (0x0a 0x7b looks like a newline and a brace)", () => {
    // Grow a schema URL until the first ResourceSpans is exactly 123 bytes.
    for (let length = 0; length < 200; length += 1) {
      const document = sampleTracesDocument();
      const first = document.resourceSpans[0]!;
      document.resourceSpans = [{ ...first, scopeSpans: [], schemaUrl: "u".repeat(length) }, document.resourceSpans[1]!];
      const bytes = encodeTraceRequest(document);
      if (bytes[0] === 0x0a && bytes[1] === 0x7b) {
        assert.equal(detectEncoding(bytes), "protobuf");
        return;
      }
    }
    assert.fail("no schema URL length produced a 123-byte ResourceSpans");
  });
});
