/** Numbers as the dashboards' Grafana units show them (percentunit, ms, reqps, short, none). */
export function formatValue(value: number | null | undefined, unit: string, decimals: number | null = null): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "no data";
  switch (unit) {
    case "percentunit":
      return `${(value * 100).toFixed(decimals ?? 1)}%`;
    case "ms":
      return Math.abs(value) >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${value.toFixed(decimals ?? 0)} ms`;
    case "reqps":
      return `${decimals === null && Math.abs(value) < 1 ? significant(value) : trimmed(value, decimals ?? 2)} req/s`;
    case "short":
      return compact(value, decimals);
    default:
      if (decimals === null && Math.abs(value) < 0.01) return significant(value);
      return trimmed(value, decimals ?? (Math.abs(value) >= 100 ? 0 : 4));
  }
}

/** Small values keep two significant digits: 0.0083, not 0.01. */
function significant(value: number): string {
  return value === 0 ? "0" : String(Number(value.toPrecision(2)));
}

function trimmed(value: number, decimals: number): string {
  const text = value.toFixed(decimals);
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
