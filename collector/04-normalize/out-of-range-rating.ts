/**
 * A rating (a `rag.feedback` span of kind `rating`) whose value is a number beyond 2^53 − 1 either way, or no finite
 * number (Infinity, NaN, 1e400: the engine reads `inf`, `nan` and such spellings as numbers too), taken as not
 * available rather than as a rating: the same rule as a count, cost or duration a span states (out-of-range-values.ts,
 * core/largest-measurement.ts). The satisfaction means (the dashboards' and `ragscope report`'s User satisfaction,
 * the request rollups' rating sum, the behaviour metrics) add the ratings up: two of 1e308, or one of Infinity, made
 * the whole range's mean "no data". No rating scale goes that far, so such a value is a mistake, not a user's rating.
 *
 * The event stays (the user did rate, and the rate counts of the other kinds are unchanged); its value becomes null,
 * with a note (kind `unreadable_value`) naming the attribute and quoting the value. A rating of a negative number
 * within the bound is kept: the scale is the application's own. A value that is no number at all ("five stars", or a
 * spelling no surface reads as one, 0x5: core/rating-value.ts) is left as sent: no mean reads it as one.
 *
 * Feedback reaches the collector as spans in an OTLP export, beside the spans of other requests, so refusing the
 * export (a 400) for one rating would drop all of them, or have the exporter retry them forever; the value alone is
 * not taken, as every other out-of-range value a span states.
 */
import { isWithinLargestMeasurement, LARGEST_MEASUREMENT } from "../../core/largest-measurement.js";
import { isRatingSpelling } from "../../core/rating-value.js";
import { FeedbackKind, Ragscope } from "../../contracts/span-attributes.js";
import { quoted } from "./explain-unread-value.js";
import type { FeedbackObservation } from "./stage-observation.js";

/**
 * What the engine's toFloat64OrNull or JavaScript's Number read as a number that is not finite, in any case: the
 * engine also reads C's NaN spellings with a payload (`nan(1)`, `-nan(ind)`, `nan()`), which Number reads as no
 * number at all, so without them such a rating was kept as sent and made the engine's satisfaction mean NaN.
 */
const NON_FINITE_SPELLING = /^[+-]?(inf|infinity|nan(\([0-9a-z_]*\))?)$/i;

/** The feedback with a rating's out-of-range value null and noted; the same object otherwise. */
export function withoutOutOfRangeRating(observation: FeedbackObservation): FeedbackObservation {
  if (observation.kind !== FeedbackKind.rating || observation.value === null) return observation;
  const text = observation.value.trim();
  if (text === "") return observation;
  const finiteWord = !NON_FINITE_SPELLING.test(text);
  // A word no surface reads as a number (core/rating-value.ts: "five stars", 0x5) is no rating any mean reads; within
  // the bound, a rating as sent.
  if (finiteWord && !isRatingSpelling(text)) return observation;
  const value = finiteWord ? Number(text) : Number.NaN;
  if (isWithinLargestMeasurement(value)) return observation;
  const shown = JSON.stringify(quoted(observation.value));
  const error = Number.isFinite(value)
    ? `is ${shown}, beyond ${LARGEST_MEASUREMENT} (2^53 − 1) either way, the most ragscope reads as a rating: no rating scale goes that far (a unit or encoding mistake), ` +
      "and such ratings would add up beyond the largest number the satisfaction means can hold, so the rating's value is not available; the event is kept"
    : `is ${shown}, which is no finite number: a mean of it is no number, so the rating's value is not available; the event is kept`;
  return { ...observation, value: null, unreadable: [...(observation.unreadable ?? []), { attribute: Ragscope.feedbackValue, error }] };
}
