/**
 * The OTLP/gRPC receiver against a bus a test controls (a real TracePublisher that keeps what it is given and
 * answers the failures queued for it), with a raw grpc-js client: nothing is acknowledged that the bus did not
 * take (UNAVAILABLE, which OTLP clients retry, while it refuses; INTERNAL when it refuses for good), a tenant
 * token stamps its tenant as over HTTP, a client that never sends its message is ended after the request
 * timeout, and every call ends accepted or under exactly one reason, in the gRPC share of the counters.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import grpc, { Metadata } from "@grpc/grpc-js";
import { tokenDigestHex } from "../../../collector/01-receive/bearer-authorization.js";
import { startReceiver, type RunningReceiver } from "../../../collector/01-receive/start-receiver.js";
import { decodeTraceRequest } from "../../../collector/00-otlp/decode-trace-request.js";
import { toSpanRecords } from "../../../collector/00-otlp/to-span-records.js";
import { rawGrpcCall } from "../../support/raw-grpc-call.js";
import { syntheticRequestBody, syntheticSpan } from "../../support/synthetic-otlp-requests.js";
import { CollectingPublisher } from "./collecting-publisher.js";

const EXPORT_PATH = "/opentelemetry.proto.collector.trace.v1.TraceService/Export";
const TENANT_TOKEN = "acme-token-0123456789";
const identity = (bytes: Buffer) => bytes;

describe("OTLP/gRPC receiver", () => {
  const publisher = new CollectingPublisher();
  let receiver: RunningReceiver;
  let client: grpc.Client;

  before(async () => {
    receiver = await startReceiver({
      host: "127.0.0.1",
      port: 0,
      grpcPort: 0,
      tenantTokens: { acme: tokenDigestHex(TENANT_TOKEN) },
      publisher,
      requestTimeoutMs: 300,
      headersTimeoutMs: 300,
    });
    assert.ok(receiver.grpcUrl);
    client = new grpc.Client(new URL(receiver.grpcUrl).host, grpc.credentials.createInsecure());
  });
  after(async () => {
    client.close();
    await receiver.close();
  });

  const body = (trace: number) => Buffer.from(syntheticRequestBody([syntheticSpan(trace, 0, []), syntheticSpan(trace, 1, [])], "grpc-receiver"));
  const exportCall = (message: Buffer): Promise<{ code: number; details: string }> => {
    const metadata = new Metadata();
    metadata.set("authorization", `Bearer ${TENANT_TOKEN}`);
    return new Promise((resolve) => {
      client.makeUnaryRequest(EXPORT_PATH, identity, identity, message, metadata, (error) => resolve(error ? { code: error.code, details: error.details } : { code: grpc.status.OK, details: "" }));
    });
  };

  test("a tenant's token stamps its tenant on every span, as over OTLP/HTTP", async () => {
    const answer = await exportCall(body(1));
    assert.equal(answer.code, grpc.status.OK, answer.details);
    const records = publisher.messages.flatMap((message) => {
      const decoded = decodeTraceRequest(message.value, "protobuf");
      assert.ok(decoded.ok);
      return toSpanRecords(decoded.value);
    });
    assert.equal(records.length, 2);
    for (const record of records) assert.equal(record.resource["ragscope.tenant.authenticated"], "acme");
  });

  test("the bus refuses for now: UNAVAILABLE and nothing acknowledged; for good: INTERNAL; then accepted again", async () => {
    const before = publisher.messages.length;
    publisher.queuedFailures.push({ retriable: true, message: "broker unavailable", retryAfterMs: 2500 });
    const unavailable = await exportCall(body(2));
    assert.equal(unavailable.code, grpc.status.UNAVAILABLE);
    assert.match(unavailable.details, /broker unavailable/);
    publisher.queuedFailures.push({ retriable: false, message: "topic deleted" });
    const refused = await exportCall(body(2));
    assert.equal(refused.code, grpc.status.INTERNAL);
    assert.match(refused.details, /topic deleted/);
    assert.equal(publisher.messages.length, before, "nothing was acknowledged");
    assert.equal((await exportCall(body(2))).code, grpc.status.OK);
    assert.equal(publisher.messages.length, before + 1);
  });

  test("a client that sends its headers and never its message is ended after the request timeout with UNAVAILABLE", async () => {
    const answer = await rawGrpcCall(receiver.grpcUrl!, EXPORT_PATH, { headers: { authorization: `Bearer ${TENANT_TOKEN}` }, message: null });
    assert.equal(answer.status, grpc.status.UNAVAILABLE, answer.message);
    assert.match(answer.message, /RAGSCOPE_REQUEST_TIMEOUT_MS/);
    assert.equal(receiver.counters.grpc.rejected.timedOut, 1);
  });

  test("a call that ends without its message: INVALID_ARGUMENT, counted as malformed", async () => {
    const answer = await rawGrpcCall(receiver.grpcUrl!, EXPORT_PATH, { headers: { authorization: `Bearer ${TENANT_TOKEN}` }, message: null, endWithoutMessage: true });
    assert.equal(answer.status, grpc.status.INVALID_ARGUMENT, answer.message);
    assert.equal(receiver.counters.grpc.rejected.malformed, 1);
  });

  test("counters add up: every gRPC call is accepted or rejected for one reason, and counted in the totals too", () => {
    const { counters } = receiver;
    const rejected = Object.values(counters.grpc.rejected).reduce((sum, count) => sum + count, 0);
    assert.equal(counters.grpc.requests, 6);
    assert.equal(counters.grpc.requests, counters.grpc.accepted + rejected);
    assert.equal(counters.grpc.accepted, 2);
    assert.equal(counters.grpc.rejected.publishUnavailable, 1);
    assert.equal(counters.grpc.rejected.publishFailed, 1);
    assert.equal(counters.requests, counters.grpc.requests, "no HTTP request was sent");
    assert.equal(counters.accepted, counters.grpc.accepted);
  });
});
