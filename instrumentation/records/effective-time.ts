/**
 * The check of a chunk's effective time (`effectiveFrom`, `effectiveTo`: when its document version is in force),
 * which the freshness metrics read (evaluators/rules/retrieval-effective-time.ts). A bound is an ISO 8601 date or
 * date-time (core/iso-time.ts; a space for the `T`, as databases print it, is read too). Anything else — a date
 * that does not exist (2026-02-30), "30/06/2026", a Date object, epoch milliseconds — was recorded as given or
 * dropped without a word, and the collector then read that bound as not recorded, that is open: a version whose
 * end was written wrongly counted as still in force. Such a chunk's effective time is left off its span, both
 * bounds — one bound alone would read as open on the other side — and the problem is said, naming the field.
 */
import { parseIsoTime } from "../../core/iso-time.js";
import { failure, success, type Result } from "../../core/result.js";
import { describeType } from "./describe-type.js";

export interface EffectiveTime {
  readonly from: string | undefined;
  readonly to: string | undefined;
}

const NONE: EffectiveTime = { from: undefined, to: undefined };
/** How much of an invalid bound a problem quotes. */
const QUOTED_LENGTH = 40;

/** The bounds to record (absent ones undefined), or why none can be. */
export function readEffectiveTime(from: unknown, to: unknown): Result<EffectiveTime, string> {
  if (from === undefined && to === undefined) return success(NONE);
  for (const [field, value] of [["effectiveFrom", from], ["effectiveTo", to]] as const) {
    const problem = boundProblem(value);
    if (problem !== null) {
      return failure(
        `${field} ${problem}: the chunk's effective time is left off the span, both bounds (one alone would read as open on the other side); give an ISO 8601 date or date-time, e.g. 2026-06-30 or 2026-06-30T00:00:00Z`,
      );
    }
  }
  return success({ from: typeof from === "string" ? from : undefined, to: typeof to === "string" ? to : undefined });
}

/** Null when the bound is absent or a readable time, else what is wrong with it. */
function boundProblem(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (value instanceof Date) return "is a Date object, not text (give date.toISOString())";
  if (typeof value !== "string") return `is ${describeType(value)}, not text`;
  const quoted = JSON.stringify(value.length > QUOTED_LENGTH ? `${value.slice(0, QUOTED_LENGTH)}…` : value);
  const parsed = parseIsoTime(value.trim().replace(" ", "T"));
  if (parsed.ok) return null;
  return parsed.error.kind === "unreadable" ? `${quoted} is not an ISO 8601 date or date-time` : `${quoted}: ${parsed.error.why}`;
}
