/**
 * Writes OTLP/HTTP answers (shared/reference/interop.md §5): the body of a
 * success is an ExportTraceServiceResponse and of a failure a google.rpc.Status,
 * in the encoding of the request.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import { encodeExportPartialSuccess, encodeExportSuccess, encodeRpcStatus, type RpcCodeNumber } from "../00-otlp/otlp-export-response.js";
import type { OtlpEncoding } from "../00-otlp/otlp-encoding.js";
import { contentTypeOf } from "./request-encoding.js";
import type { ExportRefusal } from "./export-trace-request.js";
import type { RejectionReason } from "./receiver-counters.js";

/** The HTTP status of each refusal (interop.md §5): 503 and 408 are retried by OTLP clients, the other 4xx and 500 are not. */
const httpStatusOf: Record<RejectionReason, number> = {
  notFound: 404,
  methodNotAllowed: 405,
  unauthorized: 401,
  unsupportedMediaType: 415,
  payloadTooLarge: 413,
  overBudget: 503,
  timedOut: 408,
  malformed: 400,
  publishUnavailable: 503,
  publishFailed: 500,
  clientAborted: 499,
  internalError: 500,
};

export interface FailureAnswer {
  httpStatus: number;
  rpcCode: RpcCodeNumber;
  message: string;
  headers?: OutgoingHttpHeaders;
}

export function sendSuccess(request: IncomingMessage, response: ServerResponse, encoding: OtlpEncoding, partial?: { rejectedSpans: number; message: string }): void {
  const body = partial === undefined || partial.rejectedSpans === 0 ? encodeExportSuccess(encoding) : encodeExportPartialSuccess(encoding, partial.rejectedSpans, partial.message);
  send(request, response, 200, encoding, body, {});
}

export function sendFailure(
  request: IncomingMessage,
  response: ServerResponse,
  encoding: OtlpEncoding,
  answer: FailureAnswer,
): void {
  const body = encodeRpcStatus({ code: answer.rpcCode, message: answer.message }, encoding);
  send(request, response, answer.httpStatus, encoding, body, answer.headers ?? {});
}

/** A refusal of the shared pipeline (export-trace-request.ts) as OTLP/HTTP words it. */
export function sendRefusal(request: IncomingMessage, response: ServerResponse, encoding: OtlpEncoding, refusal: ExportRefusal): void {
  const headers: OutgoingHttpHeaders = {};
  if (refusal.retryAfterSeconds !== undefined) headers["retry-after"] = String(refusal.retryAfterSeconds);
  if (refusal.reason === "unauthorized") headers["www-authenticate"] = 'Bearer realm="ragscope"';
  sendFailure(request, response, encoding, { httpStatus: httpStatusOf[refusal.reason], rpcCode: refusal.rpcCode, message: refusal.message, headers });
}

function send(
  request: IncomingMessage,
  response: ServerResponse,
  httpStatus: number,
  encoding: OtlpEncoding,
  body: Uint8Array,
  headers: OutgoingHttpHeaders,
): void {
  // The client may be gone already (it disconnected mid-body): nothing to tell.
  if (response.headersSent || response.destroyed) return;
  const allHeaders: OutgoingHttpHeaders = {
    ...headers,
    "content-type": contentTypeOf[encoding],
    "content-length": body.byteLength,
  };
  // A body left unread would have to be drained before the connection could
  // carry another request; closing is cheaper and bounds what a client can send.
  if (!request.complete) allHeaders["connection"] = "close";
  response.writeHead(httpStatus, allHeaders);
  response.end(body);
}
