/**
 * The number a user's rating (a feedback event of kind `rating`) reads as, by one rule on every surface: a decimal
 * number — an optional sign, digits with an optional fraction (`5`, `4.5`, `+5`, `.5`, `5.`), an optional exponent
 * (`5e0`) — and nothing around it. It is the engine's own reading (toFloat64OrNull, which materializes
 * case_results.last_rating when a result is written: Grafana, `ragscope report`'s business row and the request
 * rollups read that column), so the web UI's Quality page, the report's behaviour table and `ragscope experiment
 * report`, which read the stored events in JavaScript, count the same ratings. `Number` also read `" 5"`, `"0x5"`,
 * `"0b101"` and `"0o5"` as 5 and `""` as 0, where the engine reads no number: User satisfaction differed between the
 * surfaces. The collector trims a rating's surrounding whitespace before it stores it
 * (collector/04-normalize/trimmed-rating.ts), so `" 5"` sent today reads 5 everywhere.
 *
 * Checked against the engine over every string of up to four characters of `05+-.eE xinf` (22,621 strings: the same
 * number or none on both sides). A rating beyond 2^53 − 1 or not finite is made not available by the collector
 * (out-of-range-rating.ts); this reads what it kept.
 */
const RATING_SPELLING = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** Whether the engine reads `text` as a number (finite or not: `1e400` is one, too large). */
export function isRatingSpelling(text: string): boolean {
  return RATING_SPELLING.test(text);
}

/** The rating's number, or null when its value is missing, is not spelled as a number the engine reads, or is not finite. */
export function readRating(value: string | null | undefined): number | null {
  if (value === null || value === undefined || !isRatingSpelling(value)) return null;
  const score = Number(value);
  return Number.isFinite(score) ? score : null;
}
