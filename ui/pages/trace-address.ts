/**
 * The address of one request's trace page. A case of a run sent again (after midnight UTC, from a renamed service)
 * keeps its Case Result id under each request, and the list shows each request: the trace id in `?trace=` opens that
 * request's trace (TraceReader.readTrace), where the id alone opens the newest request's; its review page
 * (`/review/<id>?trace=`) likewise.
 */
import type { TraceRequest } from "../../store/ports/trace-reader.js";

export const TRACE_PARAMETER = "trace";

/** An OpenTelemetry trace id as applications log it: 16 bytes in hex, either case (W3C Trace Context). */
const TRACE_ID_PATTERN = /^[0-9a-f]{32}$/i;
/** A Case Result id as contracts/ids.ts makes it: `cr_` and 32 hex characters. */
const CASE_RESULT_ID_PATTERN = /^cr_[0-9a-f]{32}$/i;
/**
 * How many requests of one trace id an address lists. Usually one; two tenants may each send a request with the same
 * trace id, and the operator sees both. Past this many the list (`/traces?q=<trace id>`) pages through them.
 */
export const MOST_REQUESTS_OF_A_TRACE_ID = 20;

/** The text as a stored trace id (the collector stores lower-case hex: collector/00-otlp/hex-id.ts), or null when it is none. */
export function asTraceId(text: string): string | null {
  return TRACE_ID_PATTERN.test(text) ? text.toLowerCase() : null;
}

/** The text as a Case Result id (lower-case, as stored), or null when it is none. */
export function asCaseResultId(text: string): string | null {
  return CASE_RESULT_ID_PATTERN.test(text) ? text.toLowerCase() : null;
}

/** What an address of a trace id that finds no request is told (404): the same for a trace id another tenant sent. */
export function traceIdNotStored(traceId: string): string {
  return `no request with trace id "${traceId}" is stored where this token can read it: check the id in your application's log, that its spans reached the collector (a request is stored once the collector has evaluated it, shortly after its spans stop arriving), and that it was sent with this tenant's ingest token`;
}

/** What an address of a trace id that several stored requests have is told (300): each one's address. */
export function traceIdOfSeveralRequests(traceId: string, count: number): string {
  return `${count === MOST_REQUESTS_OF_A_TRACE_ID ? `at least ${count}` : count} stored requests have trace id "${traceId}" (each tenant that sent it has its own): open one of them below, or /traces?q=${traceId} for the list`;
}

/** `/traces/<id>?trace=<trace id>`; without the parameter when the request carried no trace id. */
export function traceAddress(caseResultId: string, traceId: string): string {
  return requestAddress("/traces", caseResultId, traceId);
}

/** `/review/<id>?trace=<trace id>`: the review of one request, as its trace page's address names it. */
export function reviewAddress(caseResultId: string, traceId: string): string {
  return requestAddress("/review", caseResultId, traceId);
}

function requestAddress(pages: "/traces" | "/review", caseResultId: string, traceId: string): string {
  const base = `${pages}/${encodeURIComponent(caseResultId)}`;
  return traceId === "" ? base : `${base}?${TRACE_PARAMETER}=${encodeURIComponent(traceId)}`;
}

/** The request a trace page's or /api/traces/:id's address names, if any (`?trace=`, empty as absent). */
export function requestedTrace(parameters: URLSearchParams): TraceRequest | undefined {
  const traceId = parameters.get(TRACE_PARAMETER);
  // Stored lower-case (collector/00-otlp/hex-id.ts); applications log either case, as /traces/<trace id> takes it.
  return traceId === null || traceId === "" ? undefined : { traceId: asTraceId(traceId) ?? traceId };
}

/** What a trace (or, with pages "/review", a review) address that finds nothing is told (404). */
export function traceNotStored(caseResultId: string, request: TraceRequest | undefined, pages: "/traces" | "/review" = "/traces"): string {
  return request === undefined
    ? `no trace with case result id "${caseResultId}" is stored`
    : `no trace with case result id "${caseResultId}" and trace id "${request.traceId}" is stored: open ${pages}/${encodeURIComponent(caseResultId)} for its newest request`;
}
