/**
 * A number with a fixed count of decimals, rounded as C's printf("%.Nf") does
 * — which is how trec_eval prints every measure ("%6.4f") — so displayed
 * values match trec_eval's to the last digit.
 *
 * printf rounds the EXACT binary value of the double and sends an exact tie to
 * the even digit (round-half-even). JavaScript's toFixed also rounds the exact
 * value but sends a tie away from zero: 0.03125 (exactly 1/32) is "0.0313"
 * with toFixed and "0.0312" with printf. Only exact binary ties differ: a
 * decimal literal such as 0.00015 is stored as 0.000149999999999999993…, not
 * a tie, and both give "0.0001".
 *
 * A tie is found from the exact decimal expansion (toFixed(100) is exact to
 * 100 places): a double within 10^-100 of a tie at up to 20 decimals is the
 * tie itself, since such values are ≥ 5·10^-21 and have at most ~120
 * significant binary places.
 */

const MAX_DECIMALS = 20;

export function formatFixed(value: number, decimals: number): string {
  if (!Number.isSafeInteger(decimals) || decimals < 0 || decimals > MAX_DECIMALS) throw new RangeError(`decimals must be an integer from 0 to ${MAX_DECIMALS}, got ${decimals}`);
  const awayFromZero = value.toFixed(decimals);
  // toFixed writes NaN, Infinity and |value| >= 1e21 without rounding; nothing to correct.
  if (!Number.isFinite(value) || Math.abs(value) >= 1e21) return awayFromZero;
  const exact = Math.abs(value).toFixed(100);
  const point = exact.indexOf(".");
  const dropped = exact.slice(point + 1 + decimals);
  if (!/^50*$/.test(dropped)) return awayFromZero;
  const kept = exact.slice(0, decimals === 0 ? point : point + 1 + decimals);
  // On a tie toFixed rounded the last kept digit up; keep it instead when it is even.
  if (Number(kept.at(-1)) % 2 === 1) return awayFromZero;
  return value < 0 ? `-${kept}` : kept;
}
