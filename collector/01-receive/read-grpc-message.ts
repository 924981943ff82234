/**
 * Reads a unary gRPC call's one request message from its HTTP/2 stream: the
 * 5-byte prefix (compressed flag, big-endian length), then the message,
 * inflating gzip on the fly, then the end of the stream.
 *
 * Its bytes are taken from the receiver's byte budget as they arrive, as an
 * OTLP/HTTP body's are (read-request-body.ts), so a call holds only what its
 * client has sent: a call that sends its headers and nothing else holds
 * nothing, however many are open. A library server (grpc-js) buffers the
 * whole message out of sight first, so a call could only reserve the largest
 * message before it was read, and two idle calls held the whole budget.
 *
 * The declared length is checked before any byte of the message is read; a
 * compressed message's is capped as an OTLP/HTTP gzip body's is, and its
 * inflated size counted chunk by chunk, so a gzip bomb stops after at most
 * one chunk (16 KiB) past the limit.
 */
import type { ServerHttp2Stream } from "node:http2";
import zlib from "node:zlib";
import { failure, success, type Result } from "../../core/result.js";
import type { BudgetShare } from "./byte-budget.js";
import { overBudgetMessage } from "./export-trace-request.js";
import { compressedLimit, type BodyFailure } from "./read-request-body.js";
import { joinChunks } from "./join-chunks.js";
import type { ContentEncoding } from "./request-encoding.js";

export type GrpcMessageFailure = BodyFailure | { kind: "malformed"; message: string };

export interface GrpcMessageLimits {
  /** The call's grpc-encoding: a message flagged compressed is inflated with it. */
  encoding: ContentEncoding;
  /** The most bytes the message may have, decompressed. */
  maxBodyBytes: number;
  /** This call's share of the bytes all requests may hold at once. */
  budget: BudgetShare;
  /** Time the client has to send its whole message and end its side of the call. */
  timeoutMs: number;
}

const PREFIX_BYTES = 5;

export function readGrpcMessage(stream: ServerHttp2Stream, limits: GrpcMessageLimits): Promise<Result<Uint8Array, GrpcMessageFailure>> {
  const { maxBodyBytes, budget } = limits;
  return new Promise((resolve) => {
    const prefix = Buffer.alloc(PREFIX_BYTES);
    let prefixBytes = 0;
    /** The message's bytes on the wire, once the prefix declared how many. */
    let wireLength = -1;
    let wireBytes = 0;
    let compressed = false;
    /** An uncompressed message is copied into a buffer of its declared length as it arrives: held once, not twice. */
    let body: Uint8Array | null = null;
    const chunks: Buffer[] = [];
    let bodyBytes = 0;
    let gunzip: zlib.Gunzip | null = null;
    let inflated = false;
    let ended = false;
    let settled = false;

    const timer = setTimeout(() => {
      settle(failure({ kind: "timedOut", message: `the request message did not arrive within ${limits.timeoutMs} ms (RAGSCOPE_REQUEST_TIMEOUT_MS)` }));
    }, limits.timeoutMs);
    timer.unref();

    // "After decompression" only of a message flagged compressed, as for OTLP/HTTP (read-request-body.ts).
    const tooLarge = (): Result<never, GrpcMessageFailure> =>
      failure({ kind: "tooLarge", message: compressed ? `the request message is larger than ${maxBodyBytes} bytes, after decompression (RAGSCOPE_MAX_BODY_BYTES); send smaller batches` : `the request message is larger than the ${maxBodyBytes}-byte limit (RAGSCOPE_MAX_BODY_BYTES); send smaller batches` });
    const malformed = (message: string): Result<never, GrpcMessageFailure> => failure({ kind: "malformed", message });

    function settle(result: Result<Uint8Array, GrpcMessageFailure>): void {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      stream.off("data", onWireData);
      stream.off("end", onStreamEnd);
      stream.off("close", onStreamClose);
      if (gunzip !== null) gunzip.destroy();
      // What the client still sends is neither kept nor counted; HTTP/2 flow control needs it read.
      stream.resume();
      resolve(result);
    }

    /** The message's body bytes (after inflating): counted against the limit and the budget, then kept. */
    function onBodyData(chunk: Buffer): void {
      if (settled) return;
      if (bodyBytes + chunk.length > maxBodyBytes) return settle(tooLarge());
      if (!budget.take(chunk.length)) return settle(failure({ kind: "overBudget", message: overBudgetMessage }));
      if (body !== null) body.set(chunk, bodyBytes);
      else chunks.push(chunk);
      bodyBytes += chunk.length;
    }

    function finishIfComplete(): void {
      if (!ended || wireLength < 0 || wireBytes < wireLength || (compressed && !inflated)) return;
      if (body !== null) return settle(success(body));
      settle(success(joinChunks(chunks.splice(0), bodyBytes)));
    }

    function startMessage(): void {
      const flag = prefix[0]!;
      wireLength = prefix.readUInt32BE(1);
      if (flag > 1) return settle(malformed(`the message's compressed flag is ${flag}, not 0 or 1: send an ExportTraceServiceRequest in gRPC's length-prefixed framing`));
      compressed = flag === 1;
      if (!compressed) {
        if (wireLength > maxBodyBytes) return settle(tooLarge());
        // Allocated, not yet written pages cost no memory: the budget counts what arrives.
        body = new Uint8Array(wireLength);
        return;
      }
      if (limits.encoding !== "gzip") return settle(malformed("the message is flagged compressed but the call declared no grpc-encoding: send grpc-encoding gzip with it, or send it uncompressed"));
      if (wireLength > compressedLimit(maxBodyBytes)) return settle(tooLarge());
      gunzip = zlib.createGunzip();
      gunzip.on("data", onBodyData);
      gunzip.on("end", () => {
        inflated = true;
        finishIfComplete();
      });
      gunzip.on("error", (error) => settle(malformed(`the message could not be inflated (invalid gzip: ${error.message}): send an ExportTraceServiceRequest, gzip-compressed or not`)));
    }

    function onWireData(data: Buffer): void {
      let offset = 0;
      while (offset < data.length && !settled) {
        if (prefixBytes < PREFIX_BYTES) {
          const taken = Math.min(PREFIX_BYTES - prefixBytes, data.length - offset);
          data.copy(prefix, prefixBytes, offset, offset + taken);
          prefixBytes += taken;
          offset += taken;
          if (prefixBytes === PREFIX_BYTES) startMessage();
          continue;
        }
        if (wireBytes === wireLength) return settle(malformed("the call carried more than one message: send exactly one ExportTraceServiceRequest"));
        const part = data.subarray(offset, offset + Math.min(wireLength - wireBytes, data.length - offset));
        offset += part.length;
        wireBytes += part.length;
        if (gunzip === null) onBodyData(part);
        else {
          gunzip.write(part);
          if (wireBytes === wireLength) gunzip.end();
        }
      }
      // An empty message (length 0) is complete as soon as its prefix is.
      if (!settled && compressed && wireLength === 0 && gunzip !== null && !gunzip.writableEnded) gunzip.end();
    }

    function onStreamEnd(): void {
      // A stream its client reset (RST_STREAM) ends too, already aborted: the client went away, it sent nothing malformed.
      if (stream.aborted) return onStreamClose();
      ended = true;
      if (prefixBytes === 0) return settle(malformed("the call ended without its request message: send exactly one ExportTraceServiceRequest"));
      if (prefixBytes < PREFIX_BYTES || wireBytes < wireLength) return settle(malformed("the call ended in the middle of its request message"));
      finishIfComplete();
    }

    function onStreamClose(): void {
      // Closed before its end: the client reset the call (RST_STREAM) or the connection went away.
      if (!ended) settle(failure({ kind: "aborted", message: "the client reset the call before its message arrived" }));
    }

    stream.on("data", onWireData);
    stream.on("end", onStreamEnd);
    stream.on("close", onStreamClose);
  });
}
