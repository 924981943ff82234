/**
 * The OTLP/HTTP receiver over real HTTP on 127.0.0.1: answers, limits, auth,
 * publish outcomes, and that it keeps serving after every bad request.
 */
import assert from "node:assert/strict";
import net from "node:net";
import { after, before, describe, test } from "node:test";
import { gzipSync } from "node:zlib";
import { decodeTraceRequest } from "../../../collector/00-otlp/decode-trace-request.js";
import { encodeTraceRequestJson } from "../../../collector/00-otlp/encode-json.js";
import { encodeTraceRequest } from "../../../collector/00-otlp/encode-protobuf.js";
import { decodeRpcStatus } from "../../../collector/00-otlp/otlp-export-response.js";
import { toSpanRecords } from "../../../collector/00-otlp/to-span-records.js";
import type { TracesDocument } from "../../../collector/00-otlp/traces-document.js";
import { startReceiver, type RunningReceiver } from "../../../collector/01-receive/start-receiver.js";
import { sampleTracesDocument, traceA, traceB, traceC } from "../../unit/otlp/sample-traces-document.js";
import { CollectingPublisher } from "./collecting-publisher.js";
import { sendRequest, type HttpAnswer } from "./http-client.js";

const protobufType = "application/x-protobuf";
const jsonType = "application/json";

function decodeOrFail(body: Uint8Array): TracesDocument {
  const decoded = decodeTraceRequest(body, "protobuf");
  if (!decoded.ok) assert.fail(decoded.error.message);
  return decoded.value;
}

function spanIdsOf(messages: { value: Uint8Array }[]): string[] {
  return messages.flatMap((message) => toSpanRecords(decodeOrFail(message.value)).map((record) => record.spanId)).sort();
}

const sampleSpanIds = toSpanRecords(sampleTracesDocument())
  .map((record) => record.spanId)
  .sort();

async function postProtobuf(receiver: RunningReceiver, headers: Record<string, string> = {}): Promise<HttpAnswer> {
  return sendRequest(`${receiver.url}/v1/traces`, {
    headers: { "content-type": protobufType, ...headers },
    body: encodeTraceRequest(sampleTracesDocument()),
  });
}

/**
 * The sample request's edge-case span is stamped at the end of OTLP's time range (2554), which a receiver on the real
 * clock rejects (reject-future-spans.ts, tested in test/security/receiver-span-times.test.ts); these receivers' clock
 * is set after it, so they take the whole sample.
 */
const AFTER_THE_SAMPLE = () => Date.parse("2600-01-01T00:00:00.000Z");

describe("OTLP/HTTP receiver", () => {
  const maxBodyBytes = 64 * 1024;
  const publisher = new CollectingPublisher();
  let receiver: RunningReceiver;

  before(async () => {
    receiver = await startReceiver({ host: "127.0.0.1", port: 0, maxBodyBytes, publisher, now: AFTER_THE_SAMPLE });
  });
  after(async () => {
    await receiver.close();
  });

  /** After each bad request: a good one still gets through. */
  async function assertStillServing(): Promise<void> {
    const before = publisher.messages.length;
    const answer = await postProtobuf(receiver);
    assert.equal(answer.status, 200);
    assert.equal(publisher.messages.length, before + 3);
  }

  test("valid protobuf: 200 with an empty ExportTraceServiceResponse, one message per trace, keyed by trace id", async () => {
    const before = publisher.messages.length;
    const answer = await postProtobuf(receiver);
    assert.equal(answer.status, 200);
    assert.equal(answer.headers["content-type"], protobufType);
    assert.equal(answer.body.length, 0, "an empty protobuf message: partial_success unset");
    const published = publisher.messages.slice(before);
    assert.deepEqual(
      published.map((message) => message.key),
      [traceA, traceB, traceC],
    );
    for (const message of published) {
      const records = toSpanRecords(decodeOrFail(message.value));
      assert.ok(records.length > 0);
      for (const record of records) assert.equal(record.traceId, message.key);
    }
    assert.deepEqual(spanIdsOf(published), sampleSpanIds);
  });

  test("valid JSON (with a charset): 200 with {} in JSON", async () => {
    const before = publisher.messages.length;
    const answer = await sendRequest(`${receiver.url}/v1/traces`, {
      headers: { "content-type": "application/json; charset=utf-8" },
      body: encodeTraceRequestJson(sampleTracesDocument()),
    });
    assert.equal(answer.status, 200);
    assert.equal(answer.headers["content-type"], jsonType);
    assert.deepEqual(JSON.parse(Buffer.from(answer.body).toString("utf8")), {});
    const published = publisher.messages.slice(before);
    assert.deepEqual(spanIdsOf(published), sampleSpanIds);
    // What was published is the same document the protobuf path publishes.
    assert.deepEqual(decodeOrFail(published[0]!.value), decodeOrFail(publisher.messages[0]!.value));
  });

  test("gzip bodies, protobuf and JSON", async () => {
    const before = publisher.messages.length;
    const protobufAnswer = await sendRequest(`${receiver.url}/v1/traces`, {
      headers: { "content-type": protobufType, "content-encoding": "gzip" },
      body: gzipSync(encodeTraceRequest(sampleTracesDocument())),
    });
    assert.equal(protobufAnswer.status, 200);
    const jsonAnswer = await sendRequest(`${receiver.url}/v1/traces`, {
      headers: { "content-type": jsonType, "content-encoding": "GZIP" },
      body: gzipSync(encodeTraceRequestJson(sampleTracesDocument())),
    });
    assert.equal(jsonAnswer.status, 200);
    assert.deepEqual(spanIdsOf(publisher.messages.slice(before)), [...sampleSpanIds, ...sampleSpanIds].sort());
  });

  test("an empty request succeeds without publishing", async () => {
    const calls = publisher.calls;
    const protobufAnswer = await sendRequest(`${receiver.url}/v1/traces`, { headers: { "content-type": protobufType } });
    assert.equal(protobufAnswer.status, 200);
    const jsonAnswer = await sendRequest(`${receiver.url}/v1/traces`, { headers: { "content-type": jsonType }, body: "{}" });
    assert.equal(jsonAnswer.status, 200);
    assert.equal(publisher.calls, calls);
  });

  test("malformed protobuf: 400 with a protobuf google.rpc.Status", async () => {
    const answer = await sendRequest(`${receiver.url}/v1/traces`, {
      headers: { "content-type": protobufType },
      body: "this is not protobuf at all",
    });
    assert.equal(answer.status, 400);
    assert.equal(answer.headers["content-type"], protobufType);
    const status = decodeRpcStatus(answer.body, "protobuf");
    assert.equal(status.code, 3);
    assert.match(status.message, /^invalid OTLP protobuf/);
    await assertStillServing();
  });

  test("malformed JSON: 400 with a JSON google.rpc.Status that names the path", async () => {
    const broken = JSON.parse(encodeTraceRequestJson(sampleTracesDocument()));
    broken.resourceSpans[0].scopeSpans[0].spans[2].traceId = "not-hex";
    const answer = await sendRequest(`${receiver.url}/v1/traces`, {
      headers: { "content-type": jsonType },
      body: JSON.stringify(broken),
    });
    assert.equal(answer.status, 400);
    assert.equal(answer.headers["content-type"], jsonType);
    assert.deepEqual(JSON.parse(Buffer.from(answer.body).toString("utf8")), {
      code: 3,
      message: 'resourceSpans[0].scopeSpans[0].spans[2].traceId: expected 32 hex characters, got "not-hex"',
    });
    const invalidJson = await sendRequest(`${receiver.url}/v1/traces`, { headers: { "content-type": jsonType }, body: "{oops" });
    assert.equal(invalidJson.status, 400);
    await assertStillServing();
  });

  test("a body that is not gzip though it says so: 400", async () => {
    const answer = await sendRequest(`${receiver.url}/v1/traces`, {
      headers: { "content-type": protobufType, "content-encoding": "gzip" },
      body: encodeTraceRequest(sampleTracesDocument()),
    });
    assert.equal(answer.status, 400);
    assert.match(decodeRpcStatus(answer.body, "protobuf").message, /^invalid gzip body/);
    await assertStillServing();
  });

  test("unsupported content type or encoding: 415 with a JSON status", async () => {
    const cases: Array<Record<string, string>> = [
      { "content-type": "text/plain" },
      { "content-type": "application/protobuf-ish" },
      {},
      { "content-type": protobufType, "content-encoding": "br" },
    ];
    for (const headers of cases) {
      const answer = await sendRequest(`${receiver.url}/v1/traces`, { headers, body: encodeTraceRequest(sampleTracesDocument()) });
      assert.equal(answer.status, 415, JSON.stringify(headers));
      assert.equal(answer.headers["content-type"], jsonType);
      assert.equal(JSON.parse(Buffer.from(answer.body).toString("utf8")).code, 3);
    }
    await assertStillServing();
  });

  test("a small gzip body that inflates past the limit: 413, and the server lives on", async () => {
    const bomb = gzipSync(Buffer.alloc(10 * 1024 * 1024));
    assert.ok(bomb.length < maxBodyBytes, "the compressed body itself is under the limit");
    const answer = await sendRequest(`${receiver.url}/v1/traces`, {
      headers: { "content-type": protobufType, "content-encoding": "gzip" },
      body: bomb,
    });
    assert.equal(answer.status, 413);
    const status = decodeRpcStatus(answer.body, "protobuf");
    assert.equal(status.code, 8);
    assert.match(status.message, /larger than 65536 bytes after decompression/);
    await assertStillServing();
  });

  test("an uncompressed body over the limit: 413 saying the limit, and nothing of decompression", async () => {
    const answer = await sendRequest(`${receiver.url}/v1/traces`, {
      headers: { "content-type": jsonType },
      body: `{"resourceSpans":[],"padding":"${"x".repeat(maxBodyBytes)}"}`,
    });
    assert.equal(answer.status, 413);
    const status = JSON.parse(Buffer.from(answer.body).toString("utf8")) as { code: number; message: string };
    assert.equal(status.code, 8);
    assert.match(status.message, /larger than the 65536-byte limit/);
    assert.doesNotMatch(status.message, /decompression/);
    await assertStillServing();
  });

  test("a declared Content-Length over the limit is refused before the body: 413 naming the limit, 'after decompression' only when gzip was declared", async () => {
    for (const [encoding, expected, unexpected] of [
      [null, /larger than the 65536-byte limit/, /decompression/],
      ["gzip", /larger than 65536 bytes after decompression/, /byte limit/],
    ] as const) {
      const answer = await sendRequest(`${receiver.url}/v1/traces`, {
        headers: { "content-type": jsonType, "content-length": "1000000000000", ...(encoding === null ? {} : { "content-encoding": encoding }) },
      });
      assert.equal(answer.status, 413, `${encoding ?? "uncompressed"}`);
      const status = JSON.parse(Buffer.from(answer.body).toString("utf8")) as { code: number; message: string };
      assert.match(status.message, expected, `${encoding ?? "uncompressed"}`);
      assert.doesNotMatch(status.message, unexpected, `${encoding ?? "uncompressed"}`);
    }
    await assertStillServing();
  });

  test("a retriable publish failure: 503 with Retry-After in seconds; then success", async () => {
    publisher.queuedFailures.push({ retriable: true, message: "broker unavailable", retryAfterMs: 2500 });
    const before = publisher.messages.length;
    const answer = await postProtobuf(receiver);
    assert.equal(answer.status, 503);
    assert.equal(answer.headers["retry-after"], "3");
    assert.match(decodeRpcStatus(answer.body, "protobuf").message, /broker unavailable/);
    assert.equal(publisher.messages.length, before, "nothing was acknowledged");

    publisher.queuedFailures.push({ retriable: true, message: "queue full" });
    const withoutDelay = await postProtobuf(receiver);
    assert.equal(withoutDelay.status, 503);
    assert.equal(withoutDelay.headers["retry-after"], "1");
    await assertStillServing();
  });

  test("a publish failure that is not retriable: 500", async () => {
    publisher.queuedFailures.push({ retriable: false, message: "message too large for the topic" });
    const answer = await postProtobuf(receiver);
    assert.equal(answer.status, 500);
    assert.equal(answer.headers["retry-after"], undefined);
    assert.equal(decodeRpcStatus(answer.body, "protobuf").code, 13);
    await assertStillServing();
  });

  test("other paths: 404; other methods: 405 with Allow", async () => {
    const notFound = await sendRequest(`${receiver.url}/v1/metrics`, { headers: { "content-type": protobufType }, body: "" });
    assert.equal(notFound.status, 404);
    assert.equal(decodeRpcStatus(notFound.body, "protobuf").code, 5);
    for (const method of ["GET", "PUT", "DELETE"]) {
      const answer = await sendRequest(`${receiver.url}/v1/traces`, { method });
      assert.equal(answer.status, 405, method);
      assert.equal(answer.headers["allow"], "POST");
    }
    const withQuery = await sendRequest(`${receiver.url}/v1/traces?tenant=a`, {
      headers: { "content-type": jsonType },
      body: "{}",
    });
    assert.equal(withQuery.status, 200);
  });

  test("a client that disconnects mid-body does not hurt the server", async () => {
    const aborted = receiver.counters.rejected.clientAborted;
    const { port } = receiver;
    await new Promise<void>((resolve, reject) => {
      const socket = net.connect(port, "127.0.0.1", () => {
        socket.write(
          "POST /v1/traces HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-protobuf\r\nContent-Length: 50000\r\n\r\n",
        );
        socket.write(Buffer.alloc(1000, 0x0a), () => {
          socket.destroy();
          resolve();
        });
      });
      socket.on("error", reject);
    });
    const deadline = Date.now() + 5000;
    while (receiver.counters.rejected.clientAborted === aborted && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal(receiver.counters.rejected.clientAborted, aborted + 1);
    await assertStillServing();
  });

  test("counters add up: every request is accepted or rejected for one reason", () => {
    const { counters } = receiver;
    const rejected = Object.values(counters.rejected).reduce((sum, count) => sum + count, 0);
    assert.equal(counters.requests, counters.accepted + rejected);
    assert.ok(counters.rejected.malformed >= 3);
    assert.ok(counters.rejected.payloadTooLarge >= 2);
    assert.ok(counters.rejected.unsupportedMediaType >= 4);
    assert.equal(counters.rejected.publishUnavailable, 2);
    assert.equal(counters.rejected.publishFailed, 1);
    assert.equal(counters.tracesPublished, publisher.messages.length);
    assert.equal(counters.spansAccepted, spanIdsOf(publisher.messages).length);
    assert.equal(counters.spansReceived, counters.spansAccepted + 3 * sampleSpanIds.length);
  });
});

describe("OTLP/HTTP receiver with bearer tokens", () => {
  const publisher = new CollectingPublisher();
  let receiver: RunningReceiver;

  before(async () => {
    receiver = await startReceiver({ host: "127.0.0.1", port: 0, authTokens: ["first-token", "second-token"], publisher, now: AFTER_THE_SAMPLE });
  });
  after(async () => {
    await receiver.close();
  });

  test("no token or a wrong one: 401 and nothing published", async () => {
    const missing = await postProtobuf(receiver);
    assert.equal(missing.status, 401);
    assert.match(String(missing.headers["www-authenticate"]), /^Bearer/);
    assert.equal(decodeRpcStatus(missing.body, "protobuf").code, 16);
    const wrong = await postProtobuf(receiver, { authorization: "Bearer first-token-but-longer" });
    assert.equal(wrong.status, 401);
    const basic = await postProtobuf(receiver, { authorization: "Basic Zmlyc3QtdG9rZW4=" });
    assert.equal(basic.status, 401);
    assert.equal(publisher.messages.length, 0);
    assert.equal(receiver.counters.rejected.unauthorized, 3);
  });

  test("any configured token: 200", async () => {
    assert.equal((await postProtobuf(receiver, { authorization: "Bearer first-token" })).status, 200);
    assert.equal((await postProtobuf(receiver, { authorization: "bearer second-token" })).status, 200);
    assert.equal(publisher.messages.length, 6);
  });
});

describe("receiver lifecycle", () => {
  test("close() resolves, and the port stops answering", async () => {
    const receiver = await startReceiver({ host: "127.0.0.1", port: 0, publisher: new CollectingPublisher(), now: AFTER_THE_SAMPLE });
    assert.equal((await postProtobuf(receiver)).status, 200);
    await receiver.close();
    await assert.rejects(postProtobuf(receiver), /ECONNREFUSED/);
  });

  test("a publisher that throws is a bug: 500, reported, and the server goes on", async () => {
    const reported: unknown[] = [];
    let shouldThrow = true;
    const receiver = await startReceiver({
      host: "127.0.0.1",
      port: 0,
      now: AFTER_THE_SAMPLE,
      publisher: {
        async publish() {
          if (shouldThrow) throw new Error("publisher bug");
          return { ok: true, value: undefined };
        },
      },
      onInternalError: (error) => reported.push(error),
    });
    try {
      const answer = await postProtobuf(receiver);
      assert.equal(answer.status, 500);
      assert.equal(reported.length, 1);
      assert.equal(receiver.counters.rejected.internalError, 1);
      shouldThrow = false;
      assert.equal((await postProtobuf(receiver)).status, 200);
    } finally {
      await receiver.close();
    }
  });
});
