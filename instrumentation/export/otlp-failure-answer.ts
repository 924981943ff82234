/**
 * What the SDK says when a collector refuses an export: the HTTP status, the
 * collector's own message, and what the application's owner can do about it.
 *
 * An OTLP/HTTP receiver answers a failure with a google.rpc.Status in the
 * request's encoding (OTLP specification, "Failures"): for the protobuf the
 * SDK sends by default that is binary, and printed as text it read
 * "HTTP 404: Ano such path …" (the length byte of the message showed as "A").
 * The Status is decoded here with protobufjs's minimal reader (already a
 * dependency) — field 2 is the message — and a JSON Status by its `message`;
 * an HTML page (a proxy's, or a web UI's) by its title; any other body as
 * its printable text.
 */
import protobuf from "protobufjs/minimal.js";

/** google.rpc.Status field 2 (`message`), wire type 2 (length-delimited). */
const STATUS_MESSAGE_TAG = (2 << 3) | 2;
const MAX_SHOWN_CHARACTERS = 300;

/** The collector's message in a failure answer's body, or "" when it has none. */
export function failureMessage(body: Uint8Array, contentType: string | undefined): string {
  if (body.byteLength === 0) return "";
  const type = (contentType ?? "").toLowerCase();
  const decoded = type.includes("protobuf") ? protobufStatusMessage(body) : type.includes("json") ? jsonStatusMessage(body) : type.includes("html") ? htmlTitle(body) : null;
  const text = decoded ?? Buffer.from(body).toString("utf8");
  return text.replace(/[\u0000-\u001f\u007f]+/g, " ").trim().slice(0, MAX_SHOWN_CHARACTERS);
}

function protobufStatusMessage(body: Uint8Array): string | null {
  try {
    const reader = protobuf.Reader.create(body);
    while (reader.pos < reader.len) {
      const tag = reader.uint32();
      if (tag === STATUS_MESSAGE_TAG) return reader.string();
      reader.skipType(tag & 7);
    }
    return "";
  } catch {
    return null; // not a Status: shown as text
  }
}

/** A web page (a proxy's error page, a web UI) by its title: its markup says nothing to the reader of a log line. */
function htmlTitle(body: Uint8Array): string {
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(Buffer.from(body).toString("utf8"))?.[1]?.trim();
  return title ? `an HTML page: ${title}` : "an HTML page";
}

function jsonStatusMessage(body: Uint8Array): string | null {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(body).toString("utf8"));
    if (typeof parsed === "object" && parsed !== null && typeof (parsed as { message?: unknown }).message === "string") return (parsed as { message: string }).message;
    return null;
  } catch {
    return null;
  }
}

/** What to do about an answer with this HTTP status: one clause, or "" when there is nothing specific to say. */
export function adviceForStatus(status: number): string {
  switch (status) {
    case 400:
      return "the collector could not read the request: check that RAGSCOPE_ENDPOINT names an OTLP/HTTP traces receiver";
    case 401:
    case 403:
      return "the collector requires a bearer token: set RAGSCOPE_HEADERS=authorization=Bearer <token> (or the headers option)";
    case 404:
    case 405:
      return "nothing takes OTLP traces at this URL: RAGSCOPE_ENDPOINT (or the endpoint option) is the collector's OTLP/HTTP address, e.g. http://127.0.0.1:4318 — the address `ragscope serve` prints for OTLP/HTTP, not its web UI or metrics port";
    case 413:
      return "the batch is larger than the collector takes: lower OTEL_BSP_MAX_EXPORT_BATCH_SIZE or RAGSCOPE_MAX_EXPORT_BATCH_BYTES, or raise the collector's limits";
    case 429:
      return "the collector is limiting this client's rate: send fewer spans (RAGSCOPE_SAMPLE_RATE) or give the collector more capacity";
    case 502:
    case 504:
      return "a proxy in front of the collector could not reach it: check that the collector runs behind it";
    case 503:
      return "the collector cannot take spans now (its queue is full, or its Kafka is unreachable): check its /readyz and its log; spans are retried only within OTEL_BSP_EXPORT_TIMEOUT, so raise it to ride out longer outages";
    default:
      return "";
  }
}

/** What to do about a connection that failed with this error code; "" when there is nothing specific to say. */
export function adviceForConnectionError(code: string | undefined): string {
  switch (code) {
    case "ECONNREFUSED":
      return "nothing listens there: start the collector (npx ragscope serve) or point RAGSCOPE_ENDPOINT (or the endpoint option) at it";
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return "the host name does not resolve: check RAGSCOPE_ENDPOINT (or the endpoint option)";
    default:
      return "";
  }
}

/**
 * Spans a collector refused in a request it otherwise accepted (OTLP "partial
 * success": 200 with `partial_success.rejected_spans`, e.g. ragscope's
 * receiver for spans dated too far in the future). Carried as the error of a
 * successful export result, so the processor counts them as lost and says why
 * instead of counting the whole batch as exported.
 */
export class PartialSuccess extends Error {
  constructor(
    readonly rejectedSpans: number,
    message: string,
  ) {
    super(message);
    this.name = "PartialSuccess";
  }
}

/** ExportTraceServiceResponse field 1 (`partial_success`), and in it field 1 (`rejected_spans`) and 2 (`error_message`). */
const PARTIAL_SUCCESS_TAG = (1 << 3) | 2;
const REJECTED_SPANS_TAG = (1 << 3) | 0;
const ERROR_MESSAGE_TAG = (2 << 3) | 2;

/** The partial success in a 2xx answer's body, or null when every span was taken (or the body says nothing). */
export function partialSuccess(body: Uint8Array, contentType: string | undefined): PartialSuccess | null {
  if (body.byteLength === 0) return null;
  const found = (contentType ?? "").toLowerCase().includes("json") ? jsonPartialSuccess(body) : protobufPartialSuccess(body);
  if (found === null || !(found.rejectedSpans > 0)) return null;
  return new PartialSuccess(found.rejectedSpans, found.message.replace(/[\u0000-\u001f\u007f]+/g, " ").trim().slice(0, MAX_SHOWN_CHARACTERS));
}

function protobufPartialSuccess(body: Uint8Array): { rejectedSpans: number; message: string } | null {
  try {
    const reader = protobuf.Reader.create(body);
    while (reader.pos < reader.len) {
      const tag = reader.uint32();
      if (tag !== PARTIAL_SUCCESS_TAG) {
        reader.skipType(tag & 7);
        continue;
      }
      const inner = protobuf.Reader.create(reader.bytes());
      let rejectedSpans = 0;
      let message = "";
      while (inner.pos < inner.len) {
        const field = inner.uint32();
        if (field === REJECTED_SPANS_TAG) rejectedSpans = Number(inner.int64());
        else if (field === ERROR_MESSAGE_TAG) message = inner.string();
        else inner.skipType(field & 7);
      }
      return { rejectedSpans, message };
    }
    return null;
  } catch {
    return null;
  }
}

function jsonPartialSuccess(body: Uint8Array): { rejectedSpans: number; message: string } | null {
  try {
    const parsed = JSON.parse(Buffer.from(body).toString("utf8")) as { partialSuccess?: { rejectedSpans?: unknown; errorMessage?: unknown } };
    const partial = parsed.partialSuccess;
    if (partial === undefined) return null;
    return { rejectedSpans: Number(partial.rejectedSpans ?? 0), message: typeof partial.errorMessage === "string" ? partial.errorMessage : "" };
  } catch {
    return null;
  }
}
