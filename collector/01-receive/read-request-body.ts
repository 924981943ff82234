/**
 * Reads a request body, inflating gzip on the fly, with a limit on the
 * decompressed size.
 *
 * OTLP/HTTP servers MUST limit the body after decompression and answer 413
 * past it (shared/reference/interop.md §5). Inflating as a stream and counting
 * each output chunk stops a gzip bomb after at most one chunk (16 KiB) past the
 * limit, instead of allocating what it expands to. The compressed bytes are
 * capped too: a deflate stream of empty blocks produces no output however long
 * it runs.
 *
 * Every decompressed byte is also taken from a budget shared by all requests
 * (byte-budget.ts): when it runs out, reading stops at once — the rest of the
 * body is left unread and the connection closed after the answer — and the
 * client is told to retry later (503).
 *
 * An uncompressed body with a declared length is copied into a buffer of that
 * length as it arrives, so its end costs no 32 MiB copy on the event loop and
 * it is held once, not twice; a gzip body's size is known only at its end, so
 * its chunks are joined then.
 */
import type { IncomingMessage } from "node:http";
import zlib from "node:zlib";
import { failure, success, type Result } from "../../core/result.js";
import type { BudgetShare } from "./byte-budget.js";
import { joinChunks } from "./join-chunks.js";
import type { ContentEncoding } from "./request-encoding.js";

export type BodyFailure =
  | { kind: "tooLarge"; message: string }
  | { kind: "badCompression"; message: string }
  | { kind: "aborted"; message: string }
  | { kind: "overBudget"; message: string }
  | { kind: "timedOut"; message: string };

export interface BodyLimits {
  contentEncoding: ContentEncoding;
  /** The most bytes the body may have once decompressed. */
  maxBodyBytes: number;
  /** This request's share of the bytes all bodies may hold at once. */
  budget: BudgetShare;
  /**
   * Time the client has to send the whole body. Node's own requestTimeout does
   * not end a request whose handler is already reading the body, so the
   * receiver keeps its own clock.
   */
  timeoutMs: number;
}

/**
 * How many compressed bytes a body within the limit may take: deflate never
 * grows data by more than a few bytes per 16 KiB block, and gzip adds a header
 * and a trailer per member.
 */
export function compressedLimit(maxBodyBytes: number): number {
  return maxBodyBytes + Math.ceil(maxBodyBytes / 64) + 1024;
}

export function readRequestBody(request: IncomingMessage, limits: BodyLimits): Promise<Result<Uint8Array, BodyFailure>> {
  const { maxBodyBytes, contentEncoding, budget } = limits;
  // "After decompression" only of a body that was compressed: said of a plain one, it sent the sender looking for a
  // compression it never used.
  const tooLarge = (): { ok: false; error: BodyFailure } =>
    failure({ kind: "tooLarge", message: contentEncoding === "gzip" ? `request body larger than ${maxBodyBytes} bytes after decompression` : `request body larger than the ${maxBodyBytes}-byte limit` });

  const declaredLength = Number(request.headers["content-length"] ?? Number.NaN);
  const wireLimit = contentEncoding === "gzip" ? compressedLimit(maxBodyBytes) : maxBodyBytes;
  if (Number.isFinite(declaredLength) && declaredLength > wireLimit) return Promise.resolve(tooLarge());

  return new Promise((resolve) => {
    // Allocated, not yet written pages cost no memory: the budget counts what arrives.
    const body = contentEncoding !== "gzip" && Number.isFinite(declaredLength) ? new Uint8Array(declaredLength) : null;
    const chunks: Buffer[] = [];
    let bodyBytes = 0;
    let wireBytes = 0;
    let settled = false;
    const gunzip = contentEncoding === "gzip" ? zlib.createGunzip() : null;
    const output = gunzip ?? request;

    const overBudget = (): { ok: false; error: BodyFailure } =>
      failure({ kind: "overBudget", message: "the receiver holds as many request bytes as it may (RAGSCOPE_MAX_IN_FLIGHT_BYTES); retry later" });

    const timer = setTimeout(() => {
      settle(failure({ kind: "timedOut", message: `the request body did not arrive within ${limits.timeoutMs} ms (RAGSCOPE_REQUEST_TIMEOUT_MS)` }));
    }, limits.timeoutMs);
    timer.unref();

    const settle = (result: Result<Uint8Array, BodyFailure>): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.off("data", onWireData);
      request.off("close", onRequestClose);
      output.off("data", onBodyData);
      output.off("end", onBodyEnd);
      if (gunzip !== null) {
        request.unpipe(gunzip);
        gunzip.destroy();
      }
      // The rest of an unread body is discarded as it arrives, never kept; when the
      // budget ran out it is not even read (the connection closes after the answer).
      if (result.ok || (result.error.kind !== "overBudget" && result.error.kind !== "timedOut")) request.resume();
      else request.pause();
      resolve(result);
    };

    function onWireData(chunk: Buffer): void {
      wireBytes += chunk.length;
      if (wireBytes > wireLimit) settle(tooLarge());
    }
    function onBodyData(chunk: Buffer): void {
      if (bodyBytes + chunk.length > maxBodyBytes) return settle(tooLarge());
      if (!budget.take(chunk.length)) return settle(overBudget());
      // Node's parser never delivers more than the declared length.
      if (body !== null) body.set(chunk, bodyBytes);
      else chunks.push(chunk);
      bodyBytes += chunk.length;
    }
    function onBodyEnd(): void {
      // A buffer of its own, so it can be transferred to a decode thread.
      if (body !== null) return settle(success(bodyBytes === body.byteLength ? body : body.slice(0, bodyBytes)));
      settle(success(joinChunks(chunks.splice(0), bodyBytes)));
    }
    function onRequestClose(): void {
      // "close" before "end" means the client went away mid-body.
      if (!request.complete) settle(failure({ kind: "aborted", message: "the client closed the connection mid-body" }));
    }

    request.on("data", onWireData);
    request.on("close", onRequestClose);
    output.on("data", onBodyData);
    output.on("end", onBodyEnd);
    if (gunzip !== null) {
      gunzip.on("error", (error) => {
        settle(failure({ kind: "badCompression", message: `invalid gzip body: ${error.message}` }));
      });
      request.pipe(gunzip);
    }
  });
}
