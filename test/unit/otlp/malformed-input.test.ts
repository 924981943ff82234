/**
 * Malformed bodies are refused with a message that says what is wrong and where.
 * Protobuf cases are built with protobufjs's generic Writer, so they are real
 * wire bytes that an encoder of our own types could never produce.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import protobuf from "protobufjs";
import { decodeTraceRequest } from "../../../collector/00-otlp/decode-trace-request.js";
import { encodeTraceRequestJson } from "../../../collector/00-otlp/encode-json.js";
import { encodeTraceRequest } from "../../../collector/00-otlp/encode-protobuf.js";
import { sampleTracesDocument } from "./sample-traces-document.js";

function decodeFailure(body: Uint8Array | string, encoding: "protobuf" | "json"): { path: string; message: string } {
  const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
  const result = decodeTraceRequest(bytes, encoding);
  if (result.ok) assert.fail("the body was accepted");
  return result.error;
}

/** Wire bytes of one length-delimited field. */
function field(number: number, content: Uint8Array): Uint8Array {
  const writer = protobuf.Writer.create();
  writer.uint32((number << 3) | 2).bytes(content);
  return writer.finish();
}

function concat(...parts: Uint8Array[]): Uint8Array {
  return Uint8Array.from(Buffer.concat(parts));
}

/** A request with one span whose fields are the given wire bytes. */
function requestWithSpan(spanBytes: Uint8Array): Uint8Array {
  return field(1, field(2, field(2, spanBytes)));
}

function spanBytes(options: { traceId?: Uint8Array; spanId?: Uint8Array; kind?: number; name?: Uint8Array }): Uint8Array {
  const writer = protobuf.Writer.create();
  writer.uint32((1 << 3) | 2).bytes(options.traceId ?? new Uint8Array(16).fill(0xab));
  writer.uint32((2 << 3) | 2).bytes(options.spanId ?? new Uint8Array(8).fill(0xcd));
  if (options.name) writer.uint32((5 << 3) | 2).bytes(options.name);
  if (options.kind !== undefined) writer.uint32((6 << 3) | 0).int32(options.kind);
  return writer.finish();
}

describe("malformed OTLP protobuf", () => {
  test("a well-formed span built by hand decodes (the helpers are right)", () => {
    const result = decodeTraceRequest(requestWithSpan(spanBytes({ name: new TextEncoder().encode("ok") })), "protobuf");
    assert.equal(result.ok, true);
    if (result.ok) assert.equal(result.value.resourceSpans[0]!.scopeSpans[0]!.spans[0]!.name, "ok");
  });

  test("a truncated body", () => {
    const bytes = encodeTraceRequest(sampleTracesDocument());
    const error = decodeFailure(bytes.subarray(0, bytes.length - 7), "protobuf");
    assert.equal(error.path, "");
    assert.match(error.message, /^invalid OTLP protobuf: /);
  });

  test("text that is not protobuf", () => {
    assert.match(decodeFailure("hello world, this is not protobuf", "protobuf").message, /^invalid OTLP protobuf/);
  });

  test("an OTLP/JSON body sent as protobuf", () => {
    const json = encodeTraceRequestJson(sampleTracesDocument());
    assert.match(decodeFailure(json, "protobuf").message, /^invalid OTLP protobuf/);
  });

  test("bytes that parse as unknown fields only are not a request", () => {
    const writer = protobuf.Writer.create();
    writer.uint32((7 << 3) | 0).uint32(150).uint32((9 << 3) | 2).string("unknown");
    const error = decodeFailure(writer.finish(), "protobuf");
    assert.match(error.message, /no resourceSpans \(field 1\) in a non-empty body/);
  });

  test("a trace id of 15 bytes", () => {
    const error = decodeFailure(requestWithSpan(spanBytes({ traceId: new Uint8Array(15).fill(1) })), "protobuf");
    assert.equal(error.path, "resourceSpans[0].scopeSpans[0].spans[0].traceId");
    assert.equal(error.message, "resourceSpans[0].scopeSpans[0].spans[0].traceId: expected 16 bytes, got 15");
  });

  test("a missing span id, in the second span of the second scope", () => {
    const good = field(2, spanBytes({}));
    const bad = field(2, spanBytes({ spanId: new Uint8Array(0) }));
    const body = field(1, concat(field(2, good), field(2, concat(good, bad))));
    assert.equal(
      decodeFailure(body, "protobuf").message,
      "resourceSpans[0].scopeSpans[1].spans[1].spanId: expected 8 bytes, got 0",
    );
  });

  test("a span kind outside the enum", () => {
    assert.equal(
      decodeFailure(requestWithSpan(spanBytes({ kind: 9 })), "protobuf").message,
      "resourceSpans[0].scopeSpans[0].spans[0].kind: expected a SpanKind from 0 to 5, got 9",
    );
  });

  test("a name that is not valid UTF-8", () => {
    const error = decodeFailure(requestWithSpan(spanBytes({ name: new Uint8Array([0x61, 0xff, 0xfe]) })), "protobuf");
    assert.match(error.message, /^invalid OTLP protobuf/);
  });
});

describe("malformed OTLP/JSON", () => {
  const spanPath = "resourceSpans[0].scopeSpans[1].spans[3]";

  /** A body whose fourth span of the second scope carries `fields`. */
  function bodyWithSpan(fields: Record<string, unknown>): string {
    const goodSpan = { traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "00f067aa0ba902b7", name: "ok" };
    return JSON.stringify({
      resourceSpans: [
        {
          scopeSpans: [{ spans: [goodSpan] }, { spans: [goodSpan, goodSpan, goodSpan, { ...goodSpan, ...fields }] }],
        },
      ],
    });
  }

  test("the helper body itself is valid", () => {
    assert.equal(decodeTraceRequest(new TextEncoder().encode(bodyWithSpan({})), "json").ok, true);
  });

  test("text that is not JSON", () => {
    const error = decodeFailure('{"resourceSpans": [', "json");
    assert.equal(error.path, "");
    assert.match(error.message, /^invalid OTLP\/JSON: /);
  });

  test("a body that is not valid UTF-8", () => {
    assert.equal(decodeFailure(new Uint8Array([0x7b, 0xff, 0x7d]), "json").message, "invalid OTLP/JSON: the body is not valid UTF-8");
  });

  test("a JSON value that is not an object", () => {
    assert.equal(decodeFailure("[1, 2]", "json").message, "expected an object as the body, got an array");
  });

  test("resourceSpans that is not an array", () => {
    assert.equal(decodeFailure('{"resourceSpans": {"a": 1}}', "json").message, "resourceSpans: expected an array, got an object");
  });

  test("a trace id of the wrong length, with its exact path", () => {
    const error = decodeFailure(bodyWithSpan({ traceId: "abc" }), "json");
    assert.equal(error.path, `${spanPath}.traceId`);
    assert.equal(error.message, `${spanPath}.traceId: expected 32 hex characters, got "abc"`);
  });

  test("a span id with characters that are not hex", () => {
    assert.equal(
      decodeFailure(bodyWithSpan({ spanId: "00f067aa0ba902bz" }), "json").message,
      `${spanPath}.spanId: expected 16 hex characters, got "00f067aa0ba902bz"`,
    );
  });

  test("a base64 trace id (proto3 JSON, not OTLP/JSON)", () => {
    const base64 = Buffer.from(new Uint8Array(16).fill(7)).toString("base64");
    assert.match(decodeFailure(bodyWithSpan({ traceId: base64 }), "json").message, /traceId: expected 32 hex characters/);
  });

  test("a missing span id", () => {
    assert.equal(
      decodeFailure(bodyWithSpan({ spanId: undefined }), "json").message,
      `${spanPath}.spanId: expected 16 hex characters, got nothing`,
    );
  });

  test("a parent span id of the wrong length", () => {
    assert.equal(
      decodeFailure(bodyWithSpan({ parentSpanId: "00f0" }), "json").message,
      `${spanPath}.parentSpanId: expected 16 hex characters, got "00f0"`,
    );
  });

  test("a time that is not an integer", () => {
    assert.match(
      decodeFailure(bodyWithSpan({ startTimeUnixNano: "12:00" }), "json").message,
      new RegExp(`^${escape(spanPath)}\\.startTimeUnixNano: expected an unsigned 64-bit integer`),
    );
    assert.match(decodeFailure(bodyWithSpan({ endTimeUnixNano: -5 }), "json").message, /endTimeUnixNano: expected an unsigned/);
  });

  test("a kind out of range and a status code of the wrong type", () => {
    assert.equal(decodeFailure(bodyWithSpan({ kind: 6 }), "json").message, `${spanPath}.kind: expected an integer from 0 to 5, got 6`);
    assert.equal(
      decodeFailure(bodyWithSpan({ status: { code: true } }), "json").message,
      `${spanPath}.status.code: expected an integer from 0 to 2, got true`,
    );
  });

  test("attribute values of the wrong shape", () => {
    const attribute = (value: unknown) => bodyWithSpan({ attributes: [{ key: "ok", value: { stringValue: "x" } }, { key: "k", value }] });
    const valuePath = `${spanPath}.attributes[1].value`;
    assert.equal(decodeFailure(attribute({ intValue: "1.5" }), "json").path, `${valuePath}.intValue`);
    assert.equal(decodeFailure(attribute({ intValue: "99999999999999999999" }), "json").path, `${valuePath}.intValue`);
    assert.equal(decodeFailure(attribute({ boolValue: "yes" }), "json").message, `${valuePath}.boolValue: expected true or false, got "yes"`);
    assert.equal(decodeFailure(attribute({ bytesValue: "not base64!" }), "json").path, `${valuePath}.bytesValue`);
    assert.equal(
      decodeFailure(attribute({ stringValue: "a", intValue: "1" }), "json").message,
      `${valuePath}: expected one of the AnyValue members, got stringValue and intValue`,
    );
    assert.equal(decodeFailure(attribute("plain"), "json").message, `${valuePath}: expected an object as value, got "plain"`);
    assert.equal(
      decodeFailure(attribute({ arrayValue: { values: [{ stringValue: 1 }] } }), "json").message,
      `${valuePath}.arrayValue.values[0].stringValue: expected a string, got 1`,
    );
  });

  test("values nested past the limit", () => {
    let value: unknown = { stringValue: "bottom" };
    for (let level = 0; level < 40; level += 1) value = { arrayValue: { values: [value] } };
    assert.match(decodeFailure(bodyWithSpan({ attributes: [{ key: "deep", value }] }), "json").message, /nested deeper than 31 levels/);
  });
});

function escape(text: string): string {
  return text.replace(/[.[\]]/g, "\\$&");
}
