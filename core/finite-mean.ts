/**
 * The mean of finite numbers, itself always finite.
 *
 * The collector reads no count or cost beyond 2^53 − 1 from a trace
 * (collector/04-normalize/out-of-range-values.ts), but values written into the
 * store by other means are any finite numbers, so the sum of a run's values can
 * go beyond the largest number while their mean cannot: two requests of 1e308
 * tokens sum to Infinity but average 1e308. When the plain sum overflows, the mean is taken as the sum
 * of each value divided by the count instead (equal up to rounding); when it
 * does not, the plain sum is used, so every ordinary mean keeps its digits.
 */
export function finiteMean(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError("the mean of no values");
  let sum = 0;
  for (const value of values) sum += value;
  if (Number.isFinite(sum)) return sum / values.length;
  let scaled = 0;
  for (const value of values) scaled += value / values.length;
  return withinLargest(scaled);
}

/**
 * The mean of finite numbers lies within ±Number.MAX_VALUE; a sum of shares of values at the edge of that range can
 * still round past it (three values of Number.MAX_VALUE), so the result is brought back within it.
 */
export function withinLargest(mean: number): number {
  return Math.max(-Number.MAX_VALUE, Math.min(Number.MAX_VALUE, mean));
}

/**
 * Past this magnitude a value's square may be beyond the largest number, once added up over many values (1e150
 * squared, times a million, still fits): statistics that square values (a variance) must not read them as they are.
 */
export const LARGEST_SQUARABLE = 1e150;

/** The largest absolute value of finite numbers (0 for none). */
export function largestMagnitude(values: Iterable<number>): number {
  let largest = 0;
  for (const value of values) largest = Math.max(largest, Math.abs(value));
  return largest;
}

/** The sum of finite numbers, or null when it goes beyond the largest number (a total nobody can read as a number). */
export function finiteSum(values: readonly number[]): number | null {
  let sum = 0;
  for (const value of values) sum += value;
  return Number.isFinite(sum) ? sum : null;
}
