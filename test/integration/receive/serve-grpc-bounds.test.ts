/**
 * The OTLP/gRPC receiver's memory bounds, as a client meets them on a running
 * `ragscope serve` (the built CLI as a child process, raw HTTP/2 clients on
 * 127.0.0.1): messages being read share the byte budget with OTLP/HTTP bodies
 * — a call waits for a reservation of the largest message before grpc-js
 * buffers its bytes, so many large calls at once are read a budget's worth at
 * a time and all accepted, none refused for want of budget after their bytes
 * were taken; connections are capped at RAGSCOPE_MAX_CONNECTIONS (one more is
 * closed on arrival: the client sees its call fail, and the metrics count it) and each connection
 * carries at most 100 calls at once (the SETTINGS the server sends); the
 * server serves again once a connection closes.
 */
import assert from "node:assert/strict";
import http2 from "node:http2";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import grpc from "@grpc/grpc-js";
import { readSample } from "../../../collector/wiring/observe/metrics-registry.js";
import { rawGrpcCall } from "../../support/raw-grpc-call.js";
import { startServeWithUi, type ServeWithUi } from "../../support/serve-with-ui.js";
import { syntheticRequestBody, syntheticSpan, text } from "../../support/synthetic-otlp-requests.js";

const EXPORT_PATH = "/opentelemetry.proto.collector.trace.v1.TraceService/Export";
const MAX_BODY_BYTES = 1024 * 1024;
/** Two of the largest messages: two calls may be read at once. */
const MAX_IN_FLIGHT_BYTES = 2 * MAX_BODY_BYTES;
const MAX_CONNECTIONS = 10;
const LARGE_CALLS = 8;

let folder: string;
let serve: ServeWithUi;
let metricsUrl: string;

before(async () => {
  folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-grpc-bounds-"));
  serve = await startServeWithUi(path.join(folder, "data"), {
    RAGSCOPE_MAX_BODY_BYTES: String(MAX_BODY_BYTES),
    RAGSCOPE_MAX_IN_FLIGHT_BYTES: String(MAX_IN_FLIGHT_BYTES),
    RAGSCOPE_MAX_CONNECTIONS: String(MAX_CONNECTIONS),
  });
  assert.ok(serve.grpcUrl, `serve printed no OTLP/gRPC address:\n${serve.output()}`);
  metricsUrl = /\/readyz on (http:\/\/[\d.:]+)/.exec(serve.output())![1]!;
});

after(async () => {
  if (serve !== undefined) await serve.stop();
  await rm(folder, { recursive: true, force: true });
});

async function grpcOutcome(outcome: string): Promise<number> {
  return readSample(await (await fetch(`${metricsUrl}/metrics`)).text(), "ragscope_receiver_grpc_requests_total", { outcome }) ?? 0;
}

async function connectionsDropped(): Promise<number> {
  return readSample(await (await fetch(`${metricsUrl}/metrics`)).text(), "ragscope_receiver_connections_dropped_total") ?? 0;
}

/** A valid export request of about 900 KiB (one span with a long attribute), under the 1 MiB bound. */
function largeRequest(trace: number): Buffer {
  return Buffer.from(syntheticRequestBody([syntheticSpan(trace, 0, [text("large.value", "x".repeat(900 * 1024))])], "grpc-bounds"));
}

/** An HTTP/2 connection the server took: it sent its SETTINGS, so it counts among the open ones. */
async function openConnection(url: string): Promise<http2.ClientHttp2Session> {
  const session = http2.connect(url);
  session.on("error", () => {});
  await new Promise<void>((resolve, reject) => {
    session.once("remoteSettings", () => resolve());
    session.once("close", () => reject(new Error("the server closed the connection")));
  });
  return session;
}

describe("OTLP/gRPC bounds on ragscope serve", () => {
  test("many large calls at once: read a byte budget's worth at a time, every one accepted, none refused for budget", async () => {
    const before = { accepted: await grpcOutcome("accepted"), overBudget: await grpcOutcome("overBudget") };
    let releaseLastBytes!: () => void;
    const lastBytes = new Promise<void>((resolve) => (releaseLastBytes = resolve));
    let sent = 0;
    const calls = Array.from({ length: LARGE_CALLS }, (_, index) =>
      rawGrpcCall(serve.grpcUrl!, EXPORT_PATH, {
        headers: {},
        message: { bytes: largeRequest(100 + index), compressed: false },
        lastByteAfter: lastBytes,
        onAllButLastByteSent: () => {
          // Once the calls the budget lets read hold their bytes, every call ends at once.
          sent += 1;
          if (sent === MAX_IN_FLIGHT_BYTES / MAX_BODY_BYTES) releaseLastBytes();
        },
      }),
    );
    const answers = await Promise.all(calls);
    for (const answer of answers) assert.equal(answer.status, grpc.status.OK, answer.message);
    assert.equal(await grpcOutcome("overBudget"), before.overBudget, "no call was refused for budget once its bytes were taken");
    assert.equal(await grpcOutcome("accepted"), before.accepted + LARGE_CALLS);
  });

  test("each connection carries at most 100 calls at once", async () => {
    const session = await openConnection(serve.grpcUrl!);
    try {
      assert.equal(session.remoteSettings.maxConcurrentStreams, 100);
    } finally {
      session.close();
    }
  });

  test(`at most RAGSCOPE_MAX_CONNECTIONS (${MAX_CONNECTIONS}) connections: one more is closed and its call fails; serving again once one closes`, async () => {
    const open: http2.ClientHttp2Session[] = [];
    try {
      for (let index = 0; index < MAX_CONNECTIONS; index += 1) open.push(await openConnection(serve.grpcUrl!));
      const valid = Buffer.from(syntheticRequestBody([syntheticSpan(200, 0, [])], "grpc-bounds"));
      const droppedBefore = await connectionsDropped();
      await assert.rejects(rawGrpcCall(serve.grpcUrl!, EXPORT_PATH, { headers: {}, message: { bytes: valid, compressed: false } }), "the connection past the cap is closed");
      // Turned away before any call could be read, so in no call's outcome: counted on its own.
      assert.ok((await connectionsDropped()) > droppedBefore, "the connection turned away is counted");

      const closed = open.pop()!;
      await new Promise<void>((resolve) => closed.close(() => resolve()));
      // The server notices the closed connection after the client does: a few tries, bounded.
      let answer: { status: number; message: string } | null = null;
      for (let attempt = 0; attempt < 50 && answer === null; attempt += 1) {
        answer = await rawGrpcCall(serve.grpcUrl!, EXPORT_PATH, { headers: {}, message: { bytes: valid, compressed: false } }).catch(async () => {
          await new Promise((resolve) => setTimeout(resolve, 100));
          return null;
        });
      }
      assert.ok(answer !== null, "a connection was taken again once one closed");
      assert.equal(answer.status, grpc.status.OK, answer.message);
    } finally {
      for (const session of open) session.close();
    }
  });
});
