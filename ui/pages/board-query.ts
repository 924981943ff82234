/**
 * The range and filters of the "Quality over time" and "Failures" pages:
 * from/to (default: the stored requests' span, to the minute, as `ragscope
 * report` chooses it), service, run, and a bucket width chosen so that a
 * ten-minute run and a month both read as about a hundred points.
 *
 * Every board query is bounded: its times lie between 1970-01-01 and five
 * years after the server's clock, and it has at most MAXIMUM_BOARD_BUCKETS
 * buckets. The board's size, its SQL and the JSON of its answer grow with
 * the number of buckets, so an unbounded range (year -271821 to +275760)
 * would hold the process — and the OTLP receiver in it — for tens of
 * seconds and gigabytes, then fail.
 */
import { failure, success, type Result } from "../../core/result.js";
import type { QualityScope } from "../../store/ports/quality-reader.js";
import type { StoredSpan } from "../../store/ports/run-reader.js";
import { parseQueryTime, queryText } from "../routing/query-parameters.js";
import { isoMinute } from "./board-filters.js";
import { identifierFilterProblem } from "./identifier-filter.js";

/**
 * Bucket widths in seconds, smallest first: none below a minute, the rollups' resolution. A narrower bucket drew
 * the series read from rollups at each minute's start and those read from raw rows at their own seconds, so two
 * series of one chart were points at different times.
 */
export const BUCKET_WIDTHS = [60, 300, 600, 900, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600, 86_400, 7 * 86_400, 30 * 86_400];
/** The width chosen is the narrowest that cuts the range into at most this many buckets (about a hundred points). */
export const WANTED_BUCKETS = 120;
/**
 * The most buckets a board query may have. Past WANTED_BUCKETS × 30 days (about ten years) even the
 * widest bucket gives more than the wanted number; up to this many the board is still drawn (1,000
 * buckets of 30 days are 82 years, more than the allowed range holds today), beyond it the query is refused.
 */
export const MAXIMUM_BOARD_BUCKETS = 1_000;
/** The earliest time a board reads: no request is stored before the epoch, and ClickHouse's DateTime starts there. */
export const EARLIEST_BOARD_TIME_MS = 0;
/** The latest time a board reads is this many years after the server's clock (clocks of senders run ahead, a little). */
export const BOARD_YEARS_AHEAD = 5;
const MINUTE = 60_000;
const DAY = 86_400_000;
const MAXIMUM_PARAMETER_LENGTH = 500;

export function bucketSecondsFor(fromMs: number, toMs: number): number {
  const span = (toMs - fromMs) / 1000;
  return BUCKET_WIDTHS.find((width) => span / width <= WANTED_BUCKETS) ?? BUCKET_WIDTHS[BUCKET_WIDTHS.length - 1]!;
}

/** How many buckets a range has: as many as bucketTimes (store/ports/quality-reader.ts) lists, without listing them. */
export function bucketCount(fromMs: number, toMs: number, bucketSeconds: number): number {
  const width = bucketSeconds * 1000;
  return Math.ceil((toMs - Math.floor(fromMs / width) * width) / width);
}

/** The latest time a board reads: BOARD_YEARS_AHEAD calendar years after `now`, rounded up to the minute. */
export function latestBoardTimeMs(now: number): number {
  const latest = new Date(now);
  latest.setUTCFullYear(latest.getUTCFullYear() + BOARD_YEARS_AHEAD);
  return Math.ceil(latest.getTime() / MINUTE) * MINUTE;
}

/**
 * The range shown when from/to are not given: the stored requests' span, to the minute, cut to the times a
 * board reads (a request stamped in year 2262 or at the epoch, from a sender's broken clock, would otherwise
 * stretch it over centuries) and to its latest MAXIMUM_BOARD_BUCKETS − 1 widest buckets, so that a page
 * opened without a range is always drawn (the −1 leaves room for the first bucket's alignment); the last
 * day when nothing, or nothing readable, is stored.
 */
function defaultRange(stored: StoredSpan | null, now: number): { fromMs: number; toMs: number } {
  const lastDay = { fromMs: now - DAY, toMs: now };
  if (stored === null) return lastDay;
  const toMs = Math.min(latestBoardTimeMs(now), Math.ceil((stored.lastMs + 1) / MINUTE) * MINUTE);
  const longest = (MAXIMUM_BOARD_BUCKETS - 1) * BUCKET_WIDTHS[BUCKET_WIDTHS.length - 1]! * 1000;
  const fromMs = Math.max(EARLIEST_BOARD_TIME_MS, toMs - longest, Math.floor(stored.firstMs / MINUTE) * MINUTE);
  return fromMs < toMs ? { fromMs, toMs } : lastDay;
}

function parseBoardTime(name: "from" | "to", value: string, now: number): Result<number, string> {
  const parsed = parseQueryTime(name, value);
  if (!parsed.ok) return parsed;
  const latest = latestBoardTimeMs(now);
  if (parsed.value < EARLIEST_BOARD_TIME_MS || parsed.value > latest) {
    return failure(`${name}=${value} is outside the times a board reads: from ${isoMinute(EARLIEST_BOARD_TIME_MS)} to ${isoMinute(latest)} UTC (${BOARD_YEARS_AHEAD} years from now)`);
  }
  return parsed;
}

export function parseBoardQuery(parameters: URLSearchParams, stored: StoredSpan | null, now: number): Result<QualityScope, string> {
  for (const name of ["from", "to", "service", "run"]) if ((parameters.get(name) ?? "").length > MAXIMUM_PARAMETER_LENGTH) return failure(`${name} is longer than ${MAXIMUM_PARAMETER_LENGTH} characters`);
  const text = (name: string) => queryText(parameters, name);
  for (const name of ["service", "run"]) {
    const problem = identifierFilterProblem(name, text(name));
    if (problem !== null) return failure(problem);
  }
  let { fromMs, toMs } = defaultRange(stored, now);
  const from = text("from");
  if (from !== undefined) {
    const parsed = parseBoardTime("from", from, now);
    if (!parsed.ok) return parsed;
    fromMs = parsed.value;
  }
  const to = text("to");
  if (to !== undefined) {
    const parsed = parseBoardTime("to", to, now);
    if (!parsed.ok) return parsed;
    toMs = parsed.value;
  }
  if (fromMs >= toMs) return failure("the time range is empty: from must be before to");
  // Boards read the per-minute rollups beside raw rows: the range is whole minutes, rounded outward, so that every
  // series of a page reads the same requests, and the form (which shows minutes) sends back the range the page shows.
  fromMs = Math.floor(fromMs / MINUTE) * MINUTE;
  toMs = Math.ceil(toMs / MINUTE) * MINUTE;
  const bucketSeconds = bucketSecondsFor(fromMs, toMs);
  const buckets = bucketCount(fromMs, toMs, bucketSeconds);
  if (buckets > MAXIMUM_BOARD_BUCKETS) {
    const widestDays = BUCKET_WIDTHS[BUCKET_WIDTHS.length - 1]! / 86_400;
    return failure(
      `the range ${isoMinute(fromMs)} – ${isoMinute(toMs)} UTC needs ${buckets} buckets of ${widestDays} days, the widest; a board has at most ${MAXIMUM_BOARD_BUCKETS}: narrow from/to to at most ${Math.floor((MAXIMUM_BOARD_BUCKETS * widestDays) / 365)} years`,
    );
  }
  const scope: QualityScope = { fromMs, toMs, bucketSeconds };
  const service = text("service");
  if (service !== undefined) scope.service = service;
  const run = text("run");
  if (run !== undefined) scope.runId = run;
  return success(scope);
}
