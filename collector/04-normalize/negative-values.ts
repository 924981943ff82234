/**
 * Counts, costs and durations a span recorded below 0, taken as not available
 * rather than as values: a token count, a cost, a time to first token or a
 * context's token count or budget cannot be negative, and some providers and
 * SDKs send -1 for "unknown". Read as carried, such a value would fail the
 * Case Result's schema and dead-letter the whole request (its answer, its
 * retrieval, everything else it recorded) for one number; or, where the
 * schema allows it, be averaged on the dashboards as a measurement.
 *
 * Each such field becomes null, with a note (kind `unreadable_value`) naming
 * the field and the value. A usage value is also marked as left out of the
 * request's sums (UncountedUsage), so the request's sum is not available
 * rather than one that leaves this call out and reads lower than what the
 * request used (collector/06-rebuild/request-usage.ts). A negative input or
 * output token count also leaves the call's total not known: readers derive
 * the total from the two when the span carries none, and a total made from a
 * negative part is no count. A total derived that way whose sum goes beyond the
 * largest number (Infinity) is no count either: not available, with a note.
 */
import type { MalformedAttribute } from "./find-malformed-json.js";
import type { EnclosedUsage, StageObservation, UsageSum } from "./stage-observation.js";

/** The observation with every negative count, cost or duration null and noted; the same object when it has none. */
export function withoutNegativeValues(observation: StageObservation): StageObservation {
  switch (observation.stage) {
    case "generate": {
      const usage = negativeUsage(observation);
      const timeToFirstToken = negative(observation.timeToFirstTokenMs);
      if (usage.sums.length === 0 && !timeToFirstToken) return observation;
      const notes = [...usage.notes, ...(timeToFirstToken ? [negativeNote("generation.time_to_first_token_ms", observation.timeToFirstTokenMs!, "a duration")] : [])];
      return {
        ...observation,
        ...usage.cleared,
        ...(timeToFirstToken ? { timeToFirstTokenMs: null } : {}),
        uncountedUsage: union(observation.uncountedUsage, usage.sums),
        unreadable: [...(observation.unreadable ?? []), ...notes],
      };
    }
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
      const count = negative(observation.tokenCount);
      const budget = negative(observation.tokenBudget);
      if (!count && !budget) return observation;
      return {
        ...observation,
        ...(count ? { tokenCount: null } : {}),
        ...(budget ? { tokenBudget: null } : {}),
        unreadable: [
          ...(observation.unreadable ?? []),
          ...(count ? [negativeNote("context_token_count", observation.tokenCount!, "a token count")] : []),
          ...(budget ? [negativeNote("context token budget", observation.tokenBudget!, "a token budget")] : []),
        ],
      };
    }
    default:
      return observation;
  }
}

function negative(value: number | null): boolean {
  return value !== null && value < 0;
}

/** A call's usage fields, the request-wide sum each enters, and what it is, for the note. */
const USAGE_FIELDS = [
  ["inputTokens", "input_tokens", "a token count"],
  ["outputTokens", "output_tokens", "a token count"],
  ["totalTokens", "total_tokens", "a token count"],
  ["cost", "cost", "a cost"],
] as const;

/** What a call's usage has below 0: the fields to clear, the sums they leave out, the notes. */
function negativeUsage(usage: EnclosedUsage): { cleared: Partial<EnclosedUsage>; sums: UsageSum[]; notes: MalformedAttribute[] } {
  const cleared: Partial<EnclosedUsage> = {};
  const sums: UsageSum[] = [];
  const notes: MalformedAttribute[] = [];
  for (const [field, sum, what] of USAGE_FIELDS) {
    const value = usage[field];
    if (value === null || (value >= 0 && Number.isFinite(value))) continue;
    cleared[field] = null;
    sums.push(sum);
    notes.push(Number.isFinite(value) ? negativeNote(`generation.${sum}`, value, what) : overflowNote(`generation.${sum}`, usage));
  }
  // The total is derived from the two parts when the span carries none: a total made from a negative part is no count.
  if ((sums.includes("input_tokens") || sums.includes("output_tokens")) && !sums.includes("total_tokens") && usage.totalTokens !== null) {
    cleared.totalTokens = null;
    sums.push("total_tokens");
  }
  return { cleared, sums, notes };
}

function negativeNote(field: string, value: number, what: string): MalformedAttribute {
  return {
    attribute: field,
    error: `is ${value}, below 0: ${what} cannot be negative (some providers and SDKs send -1 for "unknown"), so it is not available; the rest of the request is read as recorded`,
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
