/**
 * The bodies of OTLP/HTTP answers (shared/reference/interop.md §5): an
 * ExportTraceServiceResponse on success, a google.rpc.Status on every 4xx/5xx,
 * each in the encoding of the request.
 */
import type { OtlpEncoding } from "./otlp-encoding.js";
import { exportTraceServiceResponseType, rpcStatusType } from "./otlp-protobuf-types.js";

/** google.rpc.Code values used in OTLP answers. */
export const RpcCode = {
  invalidArgument: 3,
  notFound: 5,
  resourceExhausted: 8,
  unimplemented: 12,
  internal: 13,
  unavailable: 14,
  unauthenticated: 16,
} as const;

export type RpcCodeNumber = (typeof RpcCode)[keyof typeof RpcCode];

/** Full success: `partial_success` MUST be unset, so the message is empty. */
export function encodeExportSuccess(encoding: OtlpEncoding): Uint8Array {
  if (encoding === "json") return new TextEncoder().encode("{}");
  return exportTraceServiceResponseType.encode({}).finish();
}

/**
 * Part of the request refused (OTLP "partial success"): the count of rejected
 * spans and why, answered with 200 so the client does not retry the rest.
 */
export function encodeExportPartialSuccess(encoding: OtlpEncoding, rejectedSpans: number, errorMessage: string): Uint8Array {
  if (encoding === "json") return new TextEncoder().encode(JSON.stringify({ partialSuccess: { rejectedSpans: String(rejectedSpans), errorMessage } }));
  return exportTraceServiceResponseType.encode({ partialSuccess: { rejectedSpans, errorMessage } }).finish();
}

export function encodeRpcStatus(status: { code: RpcCodeNumber; message: string }, encoding: OtlpEncoding): Uint8Array {
  if (encoding === "json") return new TextEncoder().encode(JSON.stringify({ code: status.code, message: status.message }));
  return rpcStatusType.encode({ code: status.code, message: status.message }).finish();
}

/** Reads a google.rpc.Status body back (for clients and tests); throws when the body is not one. */
export function decodeRpcStatus(body: Uint8Array, encoding: OtlpEncoding): { code: number; message: string } {
  if (encoding === "json") {
    const parsed = JSON.parse(new TextDecoder().decode(body)) as { code?: number; message?: string };
    return { code: parsed.code ?? 0, message: parsed.message ?? "" };
  }
  const decoded = rpcStatusType.decode(body) as unknown as { code: number; message: string };
  return { code: decoded.code, message: decoded.message };
}
