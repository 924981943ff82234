/**
 * The address of one request's trace page. A case of a run sent again (after midnight UTC, from a renamed service)
 * keeps its Case Result id under each request, and the list shows each request: the trace id in `?trace=` opens that
 * request's trace (TraceReader.readTrace), where the id alone opens the newest request's.
 */
import type { TraceRequest } from "../../store/ports/trace-reader.js";

export const TRACE_PARAMETER = "trace";

/** `/traces/<id>?trace=<trace id>`; without the parameter when the request carried no trace id. */
export function traceAddress(caseResultId: string, traceId: string): string {
  const base = `/traces/${encodeURIComponent(caseResultId)}`;
  return traceId === "" ? base : `${base}?${TRACE_PARAMETER}=${encodeURIComponent(traceId)}`;
}

/** The request a trace page's or /api/traces/:id's address names, if any (`?trace=`, empty as absent). */
export function requestedTrace(parameters: URLSearchParams): TraceRequest | undefined {
  const traceId = parameters.get(TRACE_PARAMETER);
  return traceId === null || traceId === "" ? undefined : { traceId };
}

/** What a trace address that finds nothing is told (404). */
export function traceNotStored(caseResultId: string, request: TraceRequest | undefined): string {
  return request === undefined
    ? `no trace with case result id "${caseResultId}" is stored`
    : `no trace with case result id "${caseResultId}" and trace id "${request.traceId}" is stored: open /traces/${encodeURIComponent(caseResultId)} for its newest request`;
}
