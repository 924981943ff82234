/**
 * The OTLP/gRPC receiver under HTTP/2 attacks, sent as raw frames over TCP on
 * 127.0.0.1 (test/support/raw-http2-frames.ts) to a receiver with real
 * sockets and a bus a test controls.
 *
 * HTTP/2 rapid reset (CVE-2023-44487): a client opens calls and resets each at
 * once, so the 100-calls-per-connection bound never applies. Node's nghttp2
 * answers ~1,000 resets on one connection with GOAWAY and stops reading it —
 * but never closes it, nor tells anyone: before the server's keepalive each
 * such connection held a place among RAGSCOPE_MAX_CONNECTIONS for good (even
 * once its client had gone), and a few of them closed the gRPC port until a
 * restart. And a reset call was counted as a malformed one, as if an exporter
 * were broken, rather than as a call its client abandoned.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import grpc from "@grpc/grpc-js";
import { startReceiver, type RunningReceiver } from "../../../collector/01-receive/start-receiver.js";
import { rawGrpcCall } from "../../support/raw-grpc-call.js";
import { connectRawHttp2, grpcCallHeaderBlock, openAndResetStream } from "../../support/raw-http2-frames.js";
import { syntheticRequestBody, syntheticSpan } from "../../support/synthetic-otlp-requests.js";
import { CollectingPublisher } from "./collecting-publisher.js";

const EXPORT_PATH = "/opentelemetry.proto.collector.trace.v1.TraceService/Export";
const MAX_CONNECTIONS = 2;
/** More than nghttp2 lets one connection reset (a burst of 1,000), so each attacking connection meets its limit. */
const RESETS_PER_CONNECTION = 1_500;

/** Settles with `promise`, or fails naming what did not happen within `ms`. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

describe("OTLP/gRPC receiver under HTTP/2 attacks", () => {
  const publisher = new CollectingPublisher();
  let receiver: RunningReceiver;

  before(async () => {
    receiver = await startReceiver({
      host: "127.0.0.1",
      port: 0,
      grpcPort: 0,
      publisher,
      maxConnections: MAX_CONNECTIONS,
      // Pinged after 200 ms, closed when not answered within 2 s (30 s and 20 s by default): time enough for a
      // live client on a loaded machine, and the attacking connections are closed within the test's wait.
      grpcKeepalive: { timeMs: 200, timeoutMs: 2_000 },
    });
  });
  after(async () => {
    await receiver?.close();
  });

  const validExport = (trace: number) =>
    rawGrpcCall(receiver.grpcUrl!, EXPORT_PATH, { headers: {}, message: { bytes: Buffer.from(syntheticRequestBody([syntheticSpan(trace, 0, [])], "grpc-attacks")), compressed: false } });
  const outcomesCounted = () => receiver.counters.grpc.accepted + Object.values(receiver.counters.grpc.rejected).reduce((sum, count) => sum + count, 0);
  /** Every call the receiver saw has its outcome counted (a reset call's is counted on the next turns of the event loop). */
  async function allOutcomesCounted(): Promise<void> {
    while (outcomesCounted() < receiver.counters.grpc.requests) await new Promise((resolve) => setTimeout(resolve, 10));
  }

  test("a call its client resets before its message is counted as abandoned by the client, not as malformed", async () => {
    const before = { ...receiver.counters.grpc.rejected, requests: receiver.counters.grpc.requests };
    const connection = await connectRawHttp2(receiver.grpcUrl!);
    try {
      connection.write(openAndResetStream(1, grpcCallHeaderBlock(EXPORT_PATH)));
      await within(
        (async () => {
          while (receiver.counters.grpc.requests === before.requests) await new Promise((resolve) => setTimeout(resolve, 10));
          await allOutcomesCounted();
        })(),
        5_000,
        "the reset call's outcome counted",
      );
    } finally {
      connection.destroy();
    }
    assert.equal(receiver.counters.grpc.requests, before.requests + 1);
    assert.equal(receiver.counters.grpc.rejected.clientAborted, before.clientAborted + 1);
    assert.equal(receiver.counters.grpc.rejected.malformed, before.malformed);
  });

  test(`rapid reset on every one of the ${MAX_CONNECTIONS} connections allowed: each is stopped and closed, the port serves again, every reset call counted`, async () => {
    const before = { ...receiver.counters.grpc.rejected, requests: receiver.counters.grpc.requests, accepted: receiver.counters.grpc.accepted };
    const headerBlock = grpcCallHeaderBlock(EXPORT_PATH);
    const attacks = await Promise.all(Array.from({ length: MAX_CONNECTIONS }, () => connectRawHttp2(receiver.grpcUrl!)));
    try {
      for (const attack of attacks) attack.write(Buffer.concat(Array.from({ length: RESETS_PER_CONNECTION }, (_, index) => openAndResetStream(1 + 2 * index, headerBlock))));
      // The attacker keeps its connections open: the server must close them itself.
      await within(Promise.all(attacks.map((attack) => attack.closed)), 10_000, "the server closing the attacking connections");
      for (const attack of attacks) assert.ok(attack.goaway() !== null, "the server sent GOAWAY");

      const answer = await validExport(1);
      assert.equal(answer.status, grpc.status.OK, answer.message);
      await within(allOutcomesCounted(), 5_000, "every call's outcome counted");
    } finally {
      for (const attack of attacks) attack.destroy();
    }
    const calls = receiver.counters.grpc.requests - before.requests;
    // nghttp2 stopped reading each connection at its limit: not every reset call reached the server.
    assert.ok(calls > MAX_CONNECTIONS && calls < MAX_CONNECTIONS * RESETS_PER_CONNECTION + 1, `${calls} calls`);
    assert.equal(receiver.counters.grpc.accepted, before.accepted + 1);
    assert.equal(receiver.counters.grpc.rejected.clientAborted, before.clientAborted + calls - 1, "every reset call counted as abandoned");
    assert.equal(receiver.counters.grpc.rejected.malformed, before.malformed);
    assert.equal(receiver.counters.connectionsDropped, 0, "no connection was turned away");
  });
});
