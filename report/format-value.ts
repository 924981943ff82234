/**
 * Numbers as the dashboards' Grafana units show them (percentunit, ms, reqps,
 * short, none, and Grafana's custom `suffix:<text>`). Decimals round as trec_eval prints (C printf, exact halves to
 * the even digit: format-fixed.ts), so a ranking value reads the same here as
 * in trec_eval's output: 0.03125 is 0.0312. A measured value that is not 0
 * never reads 0, and one below 1 never reads with a single significant digit:
 * where the decimals would round it so (a cost of 0.002 at a stat panel's 2
 * decimals, 0.00575 read as 0.01), it keeps two significant digits instead.
 */
import { formatFixed } from "../evaluators/format-fixed.js";

/** Grafana's custom unit: the number, then the text after the colon as it is ("suffix: spans/s" → "0.58 spans/s"). */
const SUFFIX = "suffix:";

export function formatValue(value: number | null | undefined, unit: string, decimals: number | null = null): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "no data";
  switch (unit) {
    case "percentunit":
      return `${rounded(value * 100, decimals ?? 1)}%`;
    case "ms":
      return Math.abs(value) >= 1000 ? `${rounded(value / 1000, 2)} s` : `${rounded(value, decimals ?? 0)} ms`;
    case "reqps":
      return `${decimals === null && Math.abs(value) < 1 ? significant(value) : trimmed(value, decimals ?? 2)} req/s`;
    case "short":
      return compact(value, decimals);
    default:
      if (unit.startsWith(SUFFIX)) return `${decimals === null && Math.abs(value) < 1 ? significant(value) : trimmed(value, decimals ?? 2)}${unit.slice(SUFFIX.length)}`;
      if (decimals === null && Math.abs(value) < 0.01) return significant(value);
      return trimmed(value, decimals ?? (Math.abs(value) >= 100 ? 0 : 4));
  }
}

/** Small values keep two significant digits, written out without an exponent: 0.0083, not 0.01; 0.00000015, not 1.5e-7. */
function significant(value: number): string {
  return significantDigits(value, 2);
}

/**
 * `value` to `digits` significant digits, written out without an exponent. A zero among those digits stays when the
 * value was rounded to it: 0.000102 is 0.00010, not 0.0001 (one digit, 2 % off, where the rule promises two); only a
 * value that is exactly what it reads loses its trailing zeros (0.002 reads 0.002, not 0.0020).
 */
export function significantDigits(value: number, digits: number): string {
  if (value === 0) return "0";
  const kept = Number(value.toPrecision(digits));
  // Places after the point that the leading digit and the next digits - 1 need.
  const places = Math.min(100, Math.max(0, digits - 1 - Math.floor(Math.log10(Math.abs(kept)))));
  const text = kept.toFixed(places);
  return readsAsItIs(kept, value) ? withoutTrailingZeros(text) : text;
}

/**
 * Whether `shown` is `value` but for binary floating point's last bits (0.30000000000000004 is 0.3): such a value was
 * not rounded to what it reads, so it reads without padding zeros, as the same mean computed in another order would.
 */
function readsAsItIs(shown: number, value: number): boolean {
  return Math.abs(shown - value) <= Math.abs(value) * 1e-12;
}

/**
 * `value` to `decimals` places, or two significant digits where those places would write a value that is not 0 as 0.
 * Also the web UI's form of a measured number (ui/pages/runs-page.ts, trace-page.ts): a cost of 0.00002 is not "0.0000".
 */
export function rounded(value: number, decimals: number): string {
  const text = formatFixed(value, decimals);
  if (value === 0) return text;
  if (Number(text) === 0) return significant(value);
  // Below 1, at least two significant digits: a cost of 0.00575 at a stat panel's two decimals read 0.01, 74 % more.
  if (Math.abs(value) < 1 && text.replace(/^-?0\.0*/, "").length < 2) return significant(value);
  return text;
}

/**
 * A measured number in the terminal's four-decimal columns (`ragscope gate`'s and `ragscope eval`'s rule lines): an
 * integer as it is, else `rounded` to 4 places, so a mean cost of 0.0000217 reads 0.000022 as in `ragscope report`,
 * not 0.0000.
 */
export function measuredNumber(value: number): string {
  return Number.isInteger(value) ? String(value) : rounded(value, 4);
}

function withoutTrailingZeros(text: string): string {
  return text.includes(".") ? text.replace(/\.?0+$/, "") : text;
}

/**
 * `value` rounded as `rounded` does, without the trailing zeros that only pad it to its places (also the alerts'
 * numbers: collector/10-alert/alert-number.ts). Below 1, not down to a single significant digit of a value that was
 * rounded: 0.000102 at 4 places is 0.00010, as `rounded` writes it, not 0.0001.
 */
export function trimmed(value: number, decimals: number): string {
  const text = withoutTrailingZeros(rounded(value, decimals));
  if (readsAsItIs(Number(text), value) || !/^-?0\./.test(text) || text.replace(/^-?0\.0*/, "").length >= 2) return text;
  return significant(value);
}

function compact(value: number, decimals: number | null): string {
  const size = Math.abs(value);
  if (size >= 1e9) return `${trimmed(value / 1e9, 2)} B`;
  if (size >= 1e6) return `${trimmed(value / 1e6, 2)} M`;
  if (size >= 1e4) return `${trimmed(value / 1e3, 1)} K`;
  if (decimals === null && size < 0.01) return significant(value);
  return trimmed(value, decimals ?? 2);
}

/**
 * Time axis and table times, in UTC like the dashboards. Over a range of a quarter hour or less the axis steps
 * in seconds (svg-charts.ts), so the seconds are shown: a run of a few minutes read "15:27 15:27 15:27 15:28".
 */
export function formatTime(ms: number, spanMs: number): string {
  const iso = new Date(ms).toISOString();
  if (spanMs <= 15 * 60_000) return iso.slice(11, 19);
  if (spanMs <= 2 * 86_400_000) return iso.slice(11, 16);
  return `${iso.slice(5, 10)} ${iso.slice(11, 16)}`;
}
