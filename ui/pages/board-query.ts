/**
 * The range and filters of the "Quality over time" and "Failures" pages:
 * from/to (default: the stored requests' span, to the minute, as `ragscope
 * report` chooses it), service, run, and a bucket width chosen so that a
 * ten-minute run and a month both read as about a hundred points.
 */
import { failure, success, type Result } from "../../core/result.js";
import type { QualityScope } from "../../store/ports/quality-reader.js";
import type { StoredSpan } from "../../store/ports/run-reader.js";
import { parseUiTime } from "./trace-query.js";

/** Bucket widths in seconds, smallest first. */
export const BUCKET_WIDTHS = [10, 30, 60, 300, 600, 900, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600, 86_400, 7 * 86_400, 30 * 86_400];
export const MAXIMUM_BUCKETS = 120;
const MINUTE = 60_000;
const MAXIMUM_PARAMETER_LENGTH = 500;

export function bucketSecondsFor(fromMs: number, toMs: number): number {
  const span = (toMs - fromMs) / 1000;
  return BUCKET_WIDTHS.find((width) => span / width <= MAXIMUM_BUCKETS) ?? BUCKET_WIDTHS[BUCKET_WIDTHS.length - 1]!;
}

export function parseBoardQuery(parameters: URLSearchParams, stored: StoredSpan | null, now: number): Result<QualityScope, string> {
  for (const name of ["from", "to", "service", "run"]) if ((parameters.get(name) ?? "").length > MAXIMUM_PARAMETER_LENGTH) return failure(`${name} is longer than ${MAXIMUM_PARAMETER_LENGTH} characters`);
  const text = (name: string) => {
    const value = parameters.get(name)?.trim();
    return value === undefined || value === "" ? undefined : value;
  };
  const extent = stored === null ? { fromMs: now - 86_400_000, toMs: now } : { fromMs: Math.floor(stored.firstMs / MINUTE) * MINUTE, toMs: Math.ceil((stored.lastMs + 1) / MINUTE) * MINUTE };
  let fromMs = extent.fromMs;
  let toMs = extent.toMs;
  const from = text("from");
  if (from !== undefined) {
    const parsed = parseUiTime("from", from);
    if (!parsed.ok) return parsed;
    fromMs = parsed.value;
  }
  const to = text("to");
  if (to !== undefined) {
    const parsed = parseUiTime("to", to);
    if (!parsed.ok) return parsed;
    toMs = parsed.value;
  }
  if (fromMs >= toMs) return failure("the time range is empty: from must be before to");
  const scope: QualityScope = { fromMs, toMs, bucketSeconds: bucketSecondsFor(fromMs, toMs) };
  const service = text("service");
  if (service !== undefined) scope.service = service;
  const run = text("run");
  if (run !== undefined) scope.runId = run;
  return success(scope);
}
