/**
 * A rating's value without the whitespace around it (`" 5"`, `"5\n"` → `"5"`): the engine reads a rating only when
 * nothing surrounds its number (core/rating-value.ts), and it reads it once, as the result is written
 * (case_results.last_rating). Trimmed here, before the result is stored, a rating a form or a template padded is
 * the user's 5 on every surface; before, the web UI read it as 5 and Grafana and `ragscope report` as no rating.
 * Other kinds' values are kept as sent: no surface reads them as numbers.
 */
import { FeedbackKind } from "../../contracts/span-attributes.js";
import type { FeedbackObservation } from "./stage-observation.js";

/** The feedback with a rating's value trimmed; the same object otherwise. */
export function withTrimmedRating(observation: FeedbackObservation): FeedbackObservation {
  if (observation.kind !== FeedbackKind.rating || observation.value === null) return observation;
  const trimmed = observation.value.trim();
  return trimmed === observation.value ? observation : { ...observation, value: trimmed };
}
