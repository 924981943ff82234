/**
 * A number of an alert (its mean and interval bounds, in the message and the Slack text), read against the rule's
 * threshold: printed as the report prints unitless values (report/format-value.ts: 4 decimals, two significant
 * digits below 0.01), with more digits where those would put it on the threshold or past it. A cost alert on "<= 0.0002" whose
 * interval's lower bound was 0.000232 read "0.0002" in the message and "0.000" in Slack: a firing alert whose
 * bound seemed to meet the threshold.
 */
import { significantDigits, trimmed } from "../../report/format-value.js";

/** -1, 0 or 1: where `value` lies from `threshold`. */
const sideOf = (value: number, threshold: number) => Math.sign(value - threshold);

export function formatAlertNumber(value: number, threshold: number): string {
  if (!Number.isFinite(value) || Number.isInteger(value)) return String(value);
  // Below 0.01, two significant digits (a cost of 0.000315 is 0.00032, not 0.0003), as the report's unitless values.
  let text = Math.abs(value) < 0.01 ? significantDigits(value, 2) : trimmed(value, 4);
  // More digits of the same kind until it reads on its side: significant digits below 0.01, decimals above (three
  // significant digits would read 1234.99996 as 1230).
  const small = Math.abs(value) < 0.01;
  for (let digits = small ? 3 : 5; digits <= (small ? 17 : 20) && sideOf(Number(text), threshold) !== sideOf(value, threshold); digits += 1) {
    text = small ? significantDigits(value, digits) : trimmed(value, digits);
  }
  return text;
}
