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
    // Idle calls are not ended by the clock while a test looks at them.
    RAGSCOPE_REQUEST_TIMEOUT_MS: "120000",
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
  test("calls that send their headers and then nothing hold no bytes: a large export and an OTLP/HTTP request are served while many of them are open", async () => {
    const before = { accepted: await grpcOutcome("accepted"), overBudget: await grpcOutcome("overBudget"), timedOut: await grpcOutcome("timedOut") };
    // Far more idle calls than the budget holds largest messages (two): were each to hold one's worth, the others would wait.
    const idle: http2.ClientHttp2Session[] = [];
    try {
      // 20 calls on 4 connections (the cap is 10, and later tests need their own).
      for (let connection = 0; connection < 4; connection += 1) {
        const session = await openConnection(serve.grpcUrl!);
        for (let call = 0; call < 5; call += 1) session.request({ ":method": "POST", ":path": EXPORT_PATH, "content-type": "application/grpc", te: "trailers" }).on("error", () => {});
        idle.push(session);
      }
      // A PING is answered after the frames before it: each idle call's headers have reached the server.
      await Promise.all(idle.map((session) => new Promise<void>((resolve, reject) => session.ping((error) => (error ? reject(error) : resolve())))));

      const large = await rawGrpcCall(serve.grpcUrl!, EXPORT_PATH, { headers: {}, message: { bytes: largeRequest(100), compressed: false } });
      assert.equal(large.status, grpc.status.OK, large.message);
      const overHttp = await fetch(`${serve.receiverUrl}/v1/traces`, { method: "POST", headers: { "content-type": "application/x-protobuf" }, body: largeRequest(101) });
      assert.equal(overHttp.status, 200, await overHttp.text());
      assert.equal(await grpcOutcome("accepted"), before.accepted + 1);
      assert.equal(await grpcOutcome("overBudget"), before.overBudget, "nothing refused for budget");
      assert.equal(await grpcOutcome("timedOut"), before.timedOut, "served while every idle call was still open (RAGSCOPE_REQUEST_TIMEOUT_MS is 120 s here)");
    } finally {
      for (const session of idle) session.destroy();
    }
  });

  test("many large calls at once take their bytes as they arrive: those past the byte budget are refused UNAVAILABLE (retried), counted, and the port serves again", async () => {
    const before = { accepted: await grpcOutcome("accepted"), overBudget: await grpcOutcome("overBudget") };
    let releaseLastBytes!: () => void;
    const lastBytes = new Promise<void>((resolve) => (releaseLastBytes = resolve));
    let settled = 0;
    const calls = Array.from({ length: LARGE_CALLS }, (_, index) =>
      rawGrpcCall(serve.grpcUrl!, EXPORT_PATH, {
        headers: {},
        message: { bytes: largeRequest(200 + index), compressed: false },
        // Every call holds all but its last byte; once the server has read or refused them all, they end.
        lastByteAfter: lastBytes,
        onAllButLastByteSent: () => {
          settled += 1;
          if (settled === LARGE_CALLS) releaseLastBytes();
        },
      }).finally(() => {
        // A call refused before its bytes were all taken ends early: it sends nothing more.
        settled += 1;
        if (settled >= LARGE_CALLS) releaseLastBytes();
      }),
    );
    const answers = await Promise.all(calls);
    const accepted = answers.filter((answer) => answer.status === grpc.status.OK).length;
    const refused = answers.filter((answer) => answer.status === grpc.status.UNAVAILABLE);
    assert.equal(accepted + refused.length, LARGE_CALLS, JSON.stringify(answers));
    for (const answer of refused) assert.match(answer.message, /RAGSCOPE_MAX_IN_FLIGHT_BYTES/);
    // Two of these messages fit the budget at once; each held all but its last byte until all were read or refused.
    assert.ok(accepted <= MAX_IN_FLIGHT_BYTES / MAX_BODY_BYTES, `${accepted} calls held their message at once`);
    assert.ok(refused.length >= LARGE_CALLS - MAX_IN_FLIGHT_BYTES / MAX_BODY_BYTES);
    assert.equal(await grpcOutcome("overBudget"), before.overBudget + refused.length);
    assert.equal(await grpcOutcome("accepted"), before.accepted + accepted);
    const again = await rawGrpcCall(serve.grpcUrl!, EXPORT_PATH, { headers: {}, message: { bytes: largeRequest(300), compressed: false } });
    assert.equal(again.status, grpc.status.OK, again.message);
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
