/** The traces list's URL parameters ↔ a TraceFilter and a cursor, with errors that say which parameter is wrong. */
import { qualityStatus } from "../../contracts/case-result.js";
import { ROOT_CAUSE_LABEL_NAMES, UNATTRIBUTED } from "../../evaluators/root-cause/root-cause-labels.js";
import { failure, success, type Result } from "../../core/result.js";
import { parseDecimalNumber, parseQueryTime, parseWholeNumber, queryText } from "../routing/query-parameters.js";
import { cursorOfStartAndId, type TraceCursor, type TraceFilter } from "../../store/ports/trace-reader.js";
import { closestTraceMetricNames, isTraceMetricName } from "./trace-metric-names.js";
import { asCaseResultId, asTraceId } from "./trace-address.js";
import { identifierFilterProblem } from "./identifier-filter.js";

export const FILTER_PARAMETERS = ["service", "tenant", "route", "run", "dataset", "verdict", "root_cause", "from", "to", "q", "metric", "below", "above"] as const;
const METRIC_PATTERN = /^[A-Za-z0-9_.@-]{1,120}$/;
/**
 * The largest magnitude of a metric bound (below=, above=), written in plain decimal (a minus and a fraction
 * allowed: 0.5, 250, -1; ui/routing/query-parameters.ts). Stored metric values are rates and scores in
 * [0, 1], milliseconds, token counts and costs: far inside it. Past ±2^53 an integer-valued number cannot be
 * sent to the engine as a Float64 query parameter without losing digits (the embedded engine's client refuses
 * it, which answered 500), and no metric value is that large, so such a bound is refused up front.
 */
export const MAXIMUM_METRIC_BOUND = 1_000_000_000_000;
/**
 * What root_cause= takes: a label, or UNATTRIBUTED — the failed requests without one, which the Failures page counts
 * "without a root-cause label" and links to (store/ports/trace-reader.ts TraceFilter.rootCause).
 */
export const ROOT_CAUSE_FILTER_VALUES: readonly string[] = [...ROOT_CAUSE_LABEL_NAMES, UNATTRIBUTED];
export const DEFAULT_PAGE_SIZE = 50;
export const MAXIMUM_PAGE_SIZE = 200;
const MAXIMUM_PARAMETER_LENGTH = 500;

export interface TraceQuery {
  filter: TraceFilter;
  after: TraceCursor | null;
  limit: number;
}

/**
 * The longest after= taken. A cursor names the last row's start, Case Result id, trace id, tenant and service
 * (TraceCursor), as JSON in base64url: the collector stores tenants and services of at most 128 characters
 * (contracts/identifiers.ts, up to 384 UTF-8 bytes each) and trace ids of 32 hex digits, so one it gives out is at most
 * ~1,300 characters; the rest is room for the longer ids other writers (`ragscope eval`, an import) may store.
 */
export const MAXIMUM_CURSOR_LENGTH = 4_000;

/** The list's `next` (after=): the last row's place in the list's order, as JSON [start ms, id, trace id, tenant, service], base64url. */
export function encodeCursor(cursor: TraceCursor): string {
  return Buffer.from(JSON.stringify([cursor.startedAtMs, cursor.caseResultId, cursor.traceId, cursor.tenantId, cursor.serviceName])).toString("base64url");
}

function decodeCursor(text: string): Result<TraceCursor, string> {
  try {
    const value: unknown = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
    if (Array.isArray(value) && Number.isSafeInteger(value[0]) && value.slice(1).every((item) => typeof item === "string")) {
      const [startedAtMs, caseResultId, traceId, tenantId, serviceName] = value as [number, string, string, string, string];
      if (value.length === 5) return success({ startedAtMs, caseResultId, traceId, tenantId, serviceName });
      // A link given out before the cursor named the row's trace, tenant and service (a bookmark, a shared address):
      // read as it was read then, the rows strictly older than its start and id.
      if (value.length === 2) return success(cursorOfStartAndId(startedAtMs, caseResultId));
    }
  } catch {
    // Reported below.
  }
  return failure("after= is not a cursor this server gave out; start again from the first page");
}

export function parseTraceQuery(parameters: URLSearchParams): Result<TraceQuery, string> {
  const filter: TraceFilter = {};
  const text = (name: string) => queryText(parameters, name);
  for (const name of [...FILTER_PARAMETERS, "limit"]) if ((parameters.get(name) ?? "").length > MAXIMUM_PARAMETER_LENGTH) return failure(`${name} is longer than ${MAXIMUM_PARAMETER_LENGTH} characters`);
  if ((parameters.get("after") ?? "").length > MAXIMUM_CURSOR_LENGTH) return failure(`after is longer than ${MAXIMUM_CURSOR_LENGTH} characters: it is not a cursor this server gave out; start again from the first page`);
  filter.service = text("service");
  filter.tenant = text("tenant");
  filter.route = text("route");
  filter.runId = text("run");
  filter.datasetId = text("dataset");
  for (const name of ["service", "tenant", "route", "run", "dataset"]) {
    const problem = identifierFilterProblem(name, text(name));
    if (problem !== null) return failure(problem);
  }
  filter.verdict = text("verdict");
  // A verdict or root cause no trace can have matched nothing, silently: the list looked empty, not mistyped.
  if (filter.verdict !== undefined && !(qualityStatus.options as readonly string[]).includes(filter.verdict)) return failure(`verdict=${filter.verdict} is not a verdict: use one of ${qualityStatus.options.join(", ")}`);
  filter.rootCause = text("root_cause");
  if (filter.rootCause !== undefined && !(ROOT_CAUSE_FILTER_VALUES as readonly string[]).includes(filter.rootCause)) return failure(`root_cause=${filter.rootCause} is not a root-cause label: use one of ${ROOT_CAUSE_LABEL_NAMES.join(", ")}, or ${UNATTRIBUTED} for the failed requests without one`);
  // UNATTRIBUTED lists failed requests only (the Failures page's count): another verdict beside it would list nothing.
  if (filter.rootCause === UNATTRIBUTED && filter.verdict !== undefined && filter.verdict !== "failed") return failure(`root_cause=${UNATTRIBUTED} lists failed requests without a root-cause label, so verdict=${filter.verdict} matches none: leave verdict out or use verdict=failed`);
  // q= that is exactly a trace id or a Case Result id (pasted from an application's log, an APM or a link) selects
  // that id's requests, a key lookup; any other text is searched for in the queries and answers.
  const searched = text("q");
  if (searched !== undefined) {
    const traceId = asTraceId(searched);
    const caseResultId = asCaseResultId(searched);
    if (traceId !== null) filter.traceId = traceId;
    else if (caseResultId !== null) filter.caseResultId = caseResultId;
    else filter.text = searched;
  }
  for (const [name, key] of [["from", "fromMs"], ["to", "toMs"]] as const) {
    const value = text(name);
    if (value === undefined) continue;
    const parsed = parseQueryTime(name, value);
    if (!parsed.ok) return parsed;
    filter[key] = parsed.value;
  }
  // As the boards say it: an inverted range listed nothing under "Live: new traces appear at the top".
  if (filter.fromMs !== undefined && filter.toMs !== undefined && filter.fromMs >= filter.toMs) return failure("the time range is empty: from must be before to");
  const metric = text("metric");
  for (const name of ["below", "above"] as const) {
    const value = text(name);
    if (value === undefined) continue;
    const parsed = parseDecimalNumber(name, value, -MAXIMUM_METRIC_BOUND, MAXIMUM_METRIC_BOUND);
    if (!parsed.ok) return parsed;
    if (metric === undefined) return failure(`${name}= needs a metric: write e.g. metric=context_recall&${name}=${value}`);
    filter[name] = parsed.value;
  }
  if (metric !== undefined) {
    if (!METRIC_PATTERN.test(metric)) return failure(`metric=${metric} is not a metric name (letters, digits, _ . @ -), e.g. context_recall`);
    // A name no evaluator stores matched nothing, silently: the list looked empty, not mistyped.
    if (!isTraceMetricName(metric)) {
      const closest = closestTraceMetricNames(metric);
      return failure(`metric=${metric} is not a metric ragscope stores, so no trace could match it${closest.length > 0 ? ` — did you mean ${closest.join(" or ")}?` : ""} (a stored metric such as context_recall, faithfulness, latency_ms or judge_cost)`);
    }
    if (filter.below === undefined && filter.above === undefined) return failure(`metric=${metric} needs a bound: add below=<number> and/or above=<number>`);
    filter.metric = metric;
  }
  for (const key of Object.keys(filter) as (keyof TraceFilter)[]) if (filter[key] === undefined) delete filter[key];
  let after: TraceCursor | null = null;
  const afterText = text("after");
  if (afterText !== undefined) {
    const decoded = decodeCursor(afterText);
    if (!decoded.ok) return decoded;
    after = decoded.value;
  }
  let limit = DEFAULT_PAGE_SIZE;
  const limitText = text("limit");
  if (limitText !== undefined) {
    const parsed = parseWholeNumber("limit", limitText, 1, MAXIMUM_PAGE_SIZE);
    if (!parsed.ok) return parsed;
    limit = parsed.value;
  }
  return success({ filter, after, limit });
}
