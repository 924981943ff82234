/**
 * Numbers as the dashboards' Grafana units show them (percentunit, ms, reqps,
 * short, none, and Grafana's custom `suffix:<text>`). Decimals round as trec_eval prints (C printf, exact halves to
 * the even digit: format-fixed.ts), so a ranking value reads the same here as
 * in trec_eval's output: 0.03125 is 0.0312.
 */
import { formatFixed } from "../evaluators/format-fixed.js";

/** Grafana's custom unit: the number, then the text after the colon as it is ("suffix: spans/s" → "0.58 spans/s"). */
const SUFFIX = "suffix:";

export function formatValue(value: number | null | undefined, unit: string, decimals: number | null = null): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "no data";
  switch (unit) {
    case "percentunit":
      return `${formatFixed(value * 100, decimals ?? 1)}%`;
    case "ms":
      return Math.abs(value) >= 1000 ? `${formatFixed(value / 1000, 2)} s` : `${formatFixed(value, decimals ?? 0)} ms`;
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

/** Small values keep two significant digits: 0.0083, not 0.01. */
function significant(value: number): string {
  return value === 0 ? "0" : String(Number(value.toPrecision(2)));
}

function trimmed(value: number, decimals: number): string {
  const text = formatFixed(value, decimals);
  return text.includes(".") ? text.replace(/\.?0+$/, "") : text;
}

function compact(value: number, decimals: number | null): string {
  const size = Math.abs(value);
  if (size >= 1e9) return `${trimmed(value / 1e9, 2)} B`;
  if (size >= 1e6) return `${trimmed(value / 1e6, 2)} M`;
  if (size >= 1e4) return `${trimmed(value / 1e3, 1)} K`;
  return trimmed(value, decimals ?? 2);
}

/** Time axis and table times, in UTC like the dashboards. */
export function formatTime(ms: number, spanMs: number): string {
  const iso = new Date(ms).toISOString();
  if (spanMs <= 2 * 86_400_000) return iso.slice(11, 16);
  return `${iso.slice(5, 10)} ${iso.slice(11, 16)}`;
}
