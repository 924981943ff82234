/**
 * The largest magnitude ragscope reads as a measurement: Number.MAX_SAFE_INTEGER (2^53 − 1, about 9.0e15), past
 * which a whole number is not even held exactly. No request uses that many tokens, costs that much in any currency
 * or waits that many milliseconds (285,000 years): such a value is a unit or encoding mistake. Values within it add up
 * to a finite sum over any number of requests a store holds, so the engine's means and the rollups' sums stay numbers;
 * read as sent, 1e308 twice overflowed them and the dashboards read the whole range's mean as "no data".
 *
 * The collector applies it to what spans state (collector/04-normalize/out-of-range-values.ts), the stores to the
 * metric values written to them (store/clickhouse/result-rows.ts hasValue). Documented in README ("What it
 * evaluates") and SECURITY.md ("Limits").
 */
export const LARGEST_MEASUREMENT = Number.MAX_SAFE_INTEGER;

/**
 * A finite number whose magnitude is at most LARGEST_MEASUREMENT: one a mean or a sum may read as it is. Null and
 * undefined (a metric without a value, a field not recorded) are none, so one check serves every reader and writer.
 */
export function isWithinLargestMeasurement(value: number | null | undefined): value is number {
  return typeof value === "number" && Number.isFinite(value) && Math.abs(value) <= LARGEST_MEASUREMENT;
}
