/**
 * OTLP/gRPC's trace service, `TraceService/Export`, on node:http2: one unary
 * call per HTTP/2 stream, answered through the same pipeline as OTLP/HTTP
 * (export-trace-request.ts): the same tokens and tenants, bounds, decode
 * threads, counters and acknowledgement only once the bus confirmed.
 *
 * gRPC over HTTP/2 is small enough to serve directly (the protocol: headers
 * with `content-type: application/grpc`, one length-prefixed message, an
 * answer of headers, one message and trailers carrying `grpc-status`), and
 * doing so keeps what a library server hides: the call's bytes are taken
 * from the byte budget as they arrive, its declared length is checked before
 * it is read, and every call ends accepted or under exactly one rejection
 * reason — including those a library ends itself.
 *
 * Statuses are OTLP's (shared/reference/interop.md §5): UNAUTHENTICATED for a
 * missing or unknown bearer token (the `authorization` metadata),
 * INVALID_ARGUMENT for a message that is not OTLP (not retried),
 * RESOURCE_EXHAUSTED without RetryInfo past the size bounds (not retried),
 * UNAVAILABLE while the bus or the byte budget takes nothing or when the
 * message did not arrive in time (retried), and OK with `partial_success`
 * when some spans were rejected.
 */
import http2, { type IncomingHttpHeaders, type ServerHttp2Stream } from "node:http2";
import { encodeExportPartialSuccess, encodeExportSuccess, RpcCode, type RpcCodeNumber } from "../00-otlp/otlp-export-response.js";
import { admitExport, authenticateExport, countRequest, exportTraceBody, overBudget, refuse, type ExportRefusal, type TraceExportContext } from "./export-trace-request.js";
import { exportLogBody } from "./export-log-request.js";
import { readGrpcMessage, type GrpcMessageFailure } from "./read-grpc-message.js";
import { parseContentEncoding } from "./request-encoding.js";

export const traceServicePath = "/opentelemetry.proto.collector.trace.v1.TraceService/Export";
/** OTLP logs (events of spans, export-log-request.ts). */
export const logsServicePath = "/opentelemetry.proto.collector.logs.v1.LogsService/Export";

/** What the server inflates: a client picks among these (grpc-accept-encoding). */
const ACCEPTED_ENCODINGS = "identity,gzip";

/**
 * `grpc-message` is percent-encoded (gRPC over HTTP/2): every byte of its UTF-8 outside printable ASCII, and `%`.
 */
export function percentEncodeGrpcMessage(message: string): string {
  let encoded = "";
  for (const byte of Buffer.from(message, "utf8")) {
    encoded += byte >= 0x20 && byte <= 0x7e && byte !== 0x25 ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return encoded;
}

/**
 * Answered before the client ended its side (refused while its message was still arriving, or before it was read):
 * it is told to stop sending (RST_STREAM NO_ERROR, after the answer, as gRPC over HTTP/2 says), so the stream's
 * place among the connection's calls is free at once.
 */
function stopClientSending(stream: ServerHttp2Stream): void {
  setImmediate(() => {
    if (!stream.closed && !stream.destroyed && !stream.readableEnded) stream.close(http2.constants.NGHTTP2_NO_ERROR);
  });
}

/** A status with no message: gRPC's "trailers-only" answer, the headers carrying the status. */
function answerStatus(stream: ServerHttp2Stream, code: RpcCodeNumber, message: string): void {
  if (stream.destroyed || stream.closed || stream.headersSent) return;
  stream.respond({ ":status": 200, "content-type": "application/grpc", "grpc-accept-encoding": ACCEPTED_ENCODINGS, "grpc-status": String(code), "grpc-message": percentEncodeGrpcMessage(message) }, { endStream: true });
  stopClientSending(stream);
}

/** OK with the response message, then the trailers. */
function answerMessage(stream: ServerHttp2Stream, message: Uint8Array): void {
  if (stream.destroyed || stream.closed || stream.headersSent) return;
  stream.respond({ ":status": 200, "content-type": "application/grpc", "grpc-accept-encoding": ACCEPTED_ENCODINGS }, { waitForTrailers: true });
  stream.once("wantTrailers", () => stream.sendTrailers({ "grpc-status": "0" }));
  const frame = Buffer.alloc(5 + message.byteLength);
  frame.writeUInt32BE(message.byteLength, 1);
  frame.set(message, 5);
  // Answered once the message was read to the end of the client's side: the stream closes with the trailers.
  stream.end(frame);
}

/** A failure to read the message, as the refusal both transports count. */
function refusalOfMessageFailure(context: TraceExportContext, failed: GrpcMessageFailure): ExportRefusal {
  switch (failed.kind) {
    case "tooLarge":
      return { reason: "payloadTooLarge", rpcCode: RpcCode.resourceExhausted, message: failed.message };
    case "badCompression":
    case "malformed":
      return { reason: "malformed", rpcCode: RpcCode.invalidArgument, message: failed.message };
    case "overBudget":
      return overBudget(context, failed.message);
    case "timedOut":
      return { reason: "timedOut", rpcCode: RpcCode.unavailable, message: failed.message };
    case "aborted":
      return { reason: "clientAborted", rpcCode: RpcCode.unavailable, message: failed.message };
  }
}

/** Serves one HTTP/2 stream of the gRPC port. */
export function serveGrpcStream(context: TraceExportContext, stream: ServerHttp2Stream, headers: IncomingHttpHeaders, onInternalError: (error: unknown) => void): void {
  // A stream the client resets is destroyed with an error the call's outcome already tells.
  stream.on("error", () => {});
  const contentType = String(headers["content-type"] ?? "");
  if (!/^application\/grpc($|[+;])/i.test(contentType)) {
    // Not a gRPC call (gRPC over HTTP/2: 415 for another content type); not an export request, so not counted.
    if (!stream.headersSent && !stream.destroyed) stream.respond({ ":status": 415, "content-type": "text/plain; charset=utf-8" });
    stream.end("this port serves OTLP/gRPC (content-type application/grpc); send OTLP/HTTP to the receiver's HTTP port\n");
    return;
  }
  const path = headers[":path"];
  if (headers[":method"] !== "POST" || (path !== traceServicePath && path !== logsServicePath)) {
    // Another service or method: gRPC's UNIMPLEMENTED; not an export request, so not counted.
    answerStatus(stream, RpcCode.unimplemented, `this server serves ${traceServicePath} and ${logsServicePath} (OTLP traces, and logs that are events of spans)`);
    stream.resume();
    return;
  }
  const exportBody = path === logsServicePath ? exportLogBody : exportTraceBody;
  countRequest(context, "grpc");
  const answerRefusal = (refusal: ExportRefusal) => {
    answerStatus(stream, refusal.rpcCode, refusal.message);
    stream.resume();
  };
  const authorization = headers.authorization;
  const credential = authenticateExport(context, "grpc", typeof authorization === "string" ? authorization : undefined);
  if (!credential.ok) return answerRefusal(credential.error);
  const encodingHeader = headers["grpc-encoding"];
  const encoding = parseContentEncoding(typeof encodingHeader === "string" ? encodingHeader : undefined);
  if (encoding === null) {
    return answerRefusal(
      refuse(context, "grpc", { reason: "unsupportedMediaType", rpcCode: RpcCode.unimplemented, message: `grpc-encoding ${String(encodingHeader)} is not supported: use gzip or no compression` }),
    );
  }
  const admission = admitExport(context, "grpc");
  if (admission !== null) return answerRefusal(admission);

  const share = context.budget.share();
  void (async () => {
    const message = await readGrpcMessage(stream, { encoding, maxBodyBytes: context.maxBodyBytes, budget: share, timeoutMs: context.requestTimeoutMs });
    if (!message.ok) {
      const refusal = refuse(context, "grpc", refusalOfMessageFailure(context, message.error));
      // A reset call is over: nothing can be sent on it.
      if (message.error.kind !== "aborted") answerStatus(stream, refusal.rpcCode, refusal.message);
      return;
    }
    const outcome = await exportBody(context, "grpc", { body: message.value, encoding: "protobuf", credential: credential.value });
    if (outcome.kind === "refused") return answerStatus(stream, outcome.refusal.rpcCode, outcome.refusal.message);
    answerMessage(stream, outcome.rejectedSpans === 0 ? encodeExportSuccess("protobuf") : encodeExportPartialSuccess("protobuf", outcome.rejectedSpans, outcome.message));
  })()
    .catch((error: unknown) => {
      refuse(context, "grpc", { reason: "internalError", rpcCode: RpcCode.internal, message: "internal error" });
      onInternalError(error);
      answerStatus(stream, RpcCode.internal, "internal error");
    })
    .finally(() => share.release());
}
