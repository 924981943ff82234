/**
 * Counts, costs and durations a span recorded below 0 or beyond
 * LARGEST_MEASUREMENT, taken as not available rather than as values.
 *
 * Below 0: a token count, a cost, a time to first token or a context's token
 * count or budget cannot be negative, and some providers and SDKs send -1 for
 * "unknown". Read as carried, such a value would fail the Case Result's schema
 * and dead-letter the whole request (its answer, its retrieval, everything else
 * it recorded) for one number; or, where the schema allows it, be averaged on
 * the dashboards as a measurement.
 *
 * Beyond LARGEST_MEASUREMENT (2^53 − 1, about 9.0e15): no call uses that many
 * tokens, costs that much in any currency or waits that many milliseconds
 * (285,000 years), so such a value is a unit or encoding mistake, not a
 * measurement. Read as carried (1e308 was), the engine's means and the metric
 * rollups' sums went beyond the largest number a value can hold, and the
 * dashboards, `ragscope report` and the web UI read the whole range's mean as
 * "no data"; values within the bound add up to a finite sum over any number of
 * requests a store holds.
 *
 * Each such field becomes null, with a note (kind `unreadable_value`) naming
 * the field and the value. A usage value is also marked as left out of the
 * request's sums (UncountedUsage), so the request's sum is not available
 * rather than one that leaves this call out and reads lower than what the
 * request used (collector/06-rebuild/request-usage.ts). An input or output
 * token count out of range also leaves the call's total not known: readers
 * derive the total from the two when the span carries none, and a total made
 * from a part that is no count is no count. A total derived that way whose sum
 * goes beyond the largest number (Infinity) is no count either: not available,
 * with a note.
 */
import { LARGEST_MEASUREMENT } from "../../core/largest-measurement.js";
import type { MalformedAttribute } from "./find-malformed-json.js";
import { withoutOutOfRangeRating } from "./out-of-range-rating.js";
import { withTrimmedRating } from "./trimmed-rating.js";
import type { EnclosedUsage, StageObservation, UsageSum } from "./stage-observation.js";

/** The largest count, cost or duration a span is believed to state (core/largest-measurement.ts). */
export { LARGEST_MEASUREMENT };

/** The observation with every count, cost, duration or rating (out-of-range-rating.ts) out of range null and noted; the same object when it has none. */
export function withoutOutOfRangeValues(observation: StageObservation): StageObservation {
  switch (observation.stage) {
    case "generate": {
      const usage = negativeUsage(observation);
      const timeToFirstToken = outOfRange(observation.timeToFirstTokenMs);
      if (usage.sums.length === 0 && !timeToFirstToken) return observation;
      const notes = [...usage.notes, ...(timeToFirstToken ? [outOfRangeNote("generation.time_to_first_token_ms", observation.timeToFirstTokenMs!, "a duration")] : [])];
      return {
        ...observation,
        ...usage.cleared,
        ...(timeToFirstToken ? { timeToFirstTokenMs: null } : {}),
        uncountedUsage: union(observation.uncountedUsage, usage.sums),
        unreadable: [...(observation.unreadable ?? []), ...notes],
      };
    }
    // An agent span's usage of its calls: a GenAI `invoke_agent` inside the trace (other) or at its top (request).
    case "request":
    case "other": {
      if (observation.enclosedUsage === undefined) return observation;
      const usage = negativeUsage(observation.enclosedUsage);
      if (usage.sums.length === 0) return observation;
      return {
        ...observation,
        enclosedUsage: { ...observation.enclosedUsage, ...usage.cleared },
        uncountedUsage: union(observation.uncountedUsage, usage.sums),
        unreadable: [...(observation.unreadable ?? []), ...usage.notes],
      };
    }
    case "context": {
      const count = outOfRange(observation.tokenCount);
      const budget = outOfRange(observation.tokenBudget);
      if (!count && !budget) return observation;
      return {
        ...observation,
        ...(count ? { tokenCount: null } : {}),
        ...(budget ? { tokenBudget: null } : {}),
        unreadable: [
          ...(observation.unreadable ?? []),
          ...(count ? [outOfRangeNote("context_token_count", observation.tokenCount!, "a token count")] : []),
          ...(budget ? [outOfRangeNote("context token budget", observation.tokenBudget!, "a token budget")] : []),
        ],
      };
    }
    case "feedback":
      // Trimmed first: the bound reads the number the stores will read (core/rating-value.ts).
      return withoutOutOfRangeRating(withTrimmedRating(observation));
    default:
      return observation;
  }
}

function outOfRange(value: number | null): boolean {
  return value !== null && (value < 0 || value > LARGEST_MEASUREMENT);
}

/** A call's usage fields, the request-wide sum each enters, and what it is, for the note. */
const USAGE_FIELDS = [
  ["inputTokens", "input_tokens", "a token count"],
  ["outputTokens", "output_tokens", "a token count"],
  ["totalTokens", "total_tokens", "a token count"],
  ["cost", "cost", "a cost"],
] as const;

/** What a call's usage has out of range: the fields to clear, the sums they leave out, the notes. */
function negativeUsage(usage: EnclosedUsage): { cleared: Partial<EnclosedUsage>; sums: UsageSum[]; notes: MalformedAttribute[] } {
  const cleared: Partial<EnclosedUsage> = {};
  const sums: UsageSum[] = [];
  const notes: MalformedAttribute[] = [];
  for (const [field, sum, what] of USAGE_FIELDS) {
    const value = usage[field];
    if (value === null || (Number.isFinite(value) && !outOfRange(value))) continue;
    cleared[field] = null;
    sums.push(sum);
    notes.push(Number.isFinite(value) ? outOfRangeNote(`generation.${sum}`, value, what) : overflowNote(`generation.${sum}`, usage));
  }
  // The total is derived from the two parts when the span carries none: a total made from a part out of range is no count.
  if ((sums.includes("input_tokens") || sums.includes("output_tokens")) && !sums.includes("total_tokens") && usage.totalTokens !== null) {
    cleared.totalTokens = null;
    sums.push("total_tokens");
  }
  return { cleared, sums, notes };
}

function outOfRangeNote(field: string, value: number, what: string): MalformedAttribute {
  if (value < 0) {
    return {
      attribute: field,
      error: `is ${value}, below 0: ${what} cannot be negative (some providers and SDKs send -1 for "unknown"), so it is not available; the rest of the request is read as recorded`,
    };
  }
  return {
    attribute: field,
    error:
      `is ${value}, beyond ${LARGEST_MEASUREMENT} (2^53 − 1), the most ragscope reads as ${what}: no request measures that much (a unit or encoding mistake), ` +
      "and such values would add up beyond the largest number the dashboards' means can hold, so it is not available; the rest of the request is read as recorded",
  };
}

/**
 * A value read as a number is finite (attribute-readers.ts toNumber); a call's total is the one value a reader adds
 * up, from its input and output counts when the span carries no total, and two counts near the largest number make
 * Infinity, which is no count and fails the Case Result's schema.
 */
function overflowNote(field: string, usage: EnclosedUsage): MalformedAttribute {
  return {
    attribute: field,
    error:
      `is the sum of the input (${usage.inputTokens}) and output (${usage.outputTokens}) token counts, which goes beyond the largest number a value can hold (about 1.8e308): ` +
      "not available rather than Infinity, which is no count; the rest of the request is read as recorded",
  };
}

function union(existing: readonly UsageSum[] | undefined, added: readonly UsageSum[]): UsageSum[] {
  return [...new Set([...(existing ?? []), ...added])];
}
