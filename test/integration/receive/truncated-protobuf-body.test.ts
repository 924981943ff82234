/**
 * An OTLP protobuf body cut short in the middle of a message — what a proxy's body size limit, or a client that
 * stopped sending, leaves — was refused with "invalid OTLP protobuf: index out of range": nothing said the body was
 * cut, where, or what to do. As a client meets it: `ragscope serve` as a child process; a trace request and a log
 * request over HTTP and over gRPC, each cut in the middle of a span's (or log record's) attribute. Expected
 * (collector/00-otlp/protobuf-truncation.ts): 400 (gRPC INVALID_ARGUMENT) saying the body ends early, with its
 * length, the byte the request's top-level field declares it runs to, the field it ends inside, and to send the
 * whole request, naming a proxy's size limit.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { decodeRpcStatus } from "../../../collector/00-otlp/otlp-export-response.js";
import { exportLogsServiceRequestType } from "../../../collector/00-otlp/otlp-protobuf-types.js";
import { rawGrpcCall } from "../../support/raw-grpc-call.js";
import { startServeWithUi, type ServeWithUi } from "../../support/serve-with-ui.js";
import { syntheticRequestBody, syntheticSpan, text } from "../../support/synthetic-otlp-requests.js";

const INVALID_ARGUMENT = 3;
const TRACE_EXPORT_PATH = "/opentelemetry.proto.collector.trace.v1.TraceService/Export";
const LOGS_EXPORT_PATH = "/opentelemetry.proto.collector.logs.v1.LogsService/Export";
/** Long enough that cutting the body at its middle cuts inside this value. */
const LONG_VALUE = "v".repeat(400);

/** A trace request of one span whose only attribute is LONG_VALUE, and where its middle lies. */
const traceBody = Buffer.from(syntheticRequestBody([syntheticSpan(1, 0, [text("app.note", LONG_VALUE)])], "cut-body"));
const logBody = Buffer.from(exportLogsServiceRequestType.encode({ resourceLogs: [{ scopeLogs: [{ logRecords: [{ timeUnixNano: Date.now() * 1_000_000, body: { stringValue: LONG_VALUE } }] }] }] }).finish());
const half = (body: Buffer) => body.subarray(0, Math.floor(body.length / 2));

function assertSaysCut(message: string, body: Buffer, where: RegExp, requestName: string): void {
  assert.match(message, new RegExp(`body ends early, cut short: it has ${half(body).length} bytes, but resource(Spans|Logs)\\[0\\] declares content up to byte ${body.length}`), message);
  assert.match(message, where, message);
  assert.match(message, new RegExp(`Send the whole ${requestName}: a proxy or load balancer .* size limit`), message);
}

describe("a protobuf body cut short is refused saying so, where, and how to send it whole", () => {
  let folder: string;
  let serve: ServeWithUi | null = null;

  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-cut-body-"));
    serve = await startServeWithUi(path.join(folder, "data"), { RAGSCOPE_UI_TOKENS: "", RAGSCOPE_UI_TENANT_TOKENS: "" });
  });

  after(async () => {
    await serve?.stop();
    await rm(folder, { recursive: true, force: true });
  });

  const post = async (signal: "traces" | "logs", body: Buffer) => {
    const answer = await fetch(`${serve!.receiverUrl}/v1/${signal}`, { method: "POST", headers: { "content-type": "application/x-protobuf" }, body });
    return { status: answer.status, rpcStatus: decodeRpcStatus(new Uint8Array(await answer.arrayBuffer()), "protobuf") };
  };

  test("POST /v1/traces: names the span attribute's value the body ends inside", async () => {
    const { status, rpcStatus } = await post("traces", half(traceBody));
    assert.equal(status, 400);
    assert.equal(rpcStatus.code, INVALID_ARGUMENT);
    assertSaysCut(rpcStatus.message, traceBody, /ends inside resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[0\]\.attributes\[\d+\]\.value\.stringValue\./, "ExportTraceServiceRequest");
  });

  test("POST /v1/logs: names the log record's body", async () => {
    const { status, rpcStatus } = await post("logs", half(logBody));
    assert.equal(status, 400);
    assertSaysCut(rpcStatus.message, logBody, /ends inside resourceLogs\[0\]\.scopeLogs\[0\]\.logRecords\[0\]\.body\.stringValue\./, "ExportLogsServiceRequest");
  });

  test("gRPC Export of a whole frame holding a cut request: INVALID_ARGUMENT with the same words, traces and logs", async () => {
    assert.ok(serve!.grpcUrl !== null, serve!.output());
    const traces = await rawGrpcCall(serve!.grpcUrl, TRACE_EXPORT_PATH, { headers: {}, message: { bytes: half(traceBody), compressed: false } });
    assert.equal(traces.status, INVALID_ARGUMENT);
    assertSaysCut(traces.message, traceBody, /ends inside resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[0\]\.attributes\[\d+\]\.value\.stringValue\./, "ExportTraceServiceRequest");
    const logs = await rawGrpcCall(serve!.grpcUrl, LOGS_EXPORT_PATH, { headers: {}, message: { bytes: half(logBody), compressed: false } });
    assert.equal(logs.status, INVALID_ARGUMENT);
    assertSaysCut(logs.message, logBody, /ends inside resourceLogs\[0\]\.scopeLogs\[0\]\.logRecords\[0\]\.body\.stringValue\./, "ExportLogsServiceRequest");
  });
});
