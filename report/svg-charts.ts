/**
 * Charts as inline SVG, drawn here so the HTML report is one self-contained
 * file: nothing is fetched when it is opened. Two kinds, as the dashboards
 * use them: time series (lines, or bars stacked or side by side) and
 * horizontal grouped bars. Every mark carries a <title> for hover details.
 */
import { formatTime, formatValue } from "./format-value.js";

export interface Series {
  name: string;
  /** [epoch ms, value] in time order; null = no value in that bucket. */
  points: [number, number | null][];
}

export interface BarGroup {
  name: string;
  values: (number | null)[];
}

export const PALETTE = ["#3274d9", "#e0752d", "#56a64b", "#a352cc", "#e02f44", "#1f9e9e", "#b8860b", "#6b7280", "#d4477f", "#4b6bfb"];

/** viewBox width per grid column of the panel (24 columns: 1200). */
export const WIDTH_PER_COLUMN = 50;
const HEIGHT = 240;

/** Steps a time axis may use: round minutes, hours and days. */
const TIME_STEPS_MS = [1, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1_800, 3_600, 7_200, 10_800, 21_600, 43_200, 86_400, 172_800, 604_800].map((seconds) => seconds * 1000);

function timeTicks(start: number, end: number, count: number): number[] {
  const step = TIME_STEPS_MS.find((candidate) => (end - start) / candidate <= count) ?? TIME_STEPS_MS[TIME_STEPS_MS.length - 1]!;
  const ticks: number[] = [];
  for (let tick = Math.ceil(start / step) * step; tick <= end; tick += step) ticks.push(tick);
  return ticks;
}
const MARGIN = { top: 12, right: 16, bottom: 28, left: 64 };

export function escapeXml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;").replaceAll("'", "&#39;");
}

/** About five round steps covering [minimum, maximum]. */
function niceTicks(minimum: number, maximum: number, count = 5): number[] {
  if (minimum === maximum) return [minimum];
  const rough = (maximum - minimum) / count;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 2.5, 5, 10].map((factor) => factor * magnitude).find((candidate) => candidate >= rough) ?? rough;
  const ticks: number[] = [];
  for (let tick = Math.ceil(minimum / step) * step; tick <= maximum + step * 1e-9; tick += step) ticks.push(Number(tick.toFixed(12)));
  return ticks;
}

function valueDomain(values: number[], unit: string): [number, number] {
  let minimum = Math.min(0, ...values);
  let maximum = Math.max(...values, 0);
  if (unit === "percentunit" && maximum <= 1 && minimum >= 0) maximum = 1;
  if (maximum === minimum) maximum = minimum + 1;
  const ticks = niceTicks(minimum, maximum);
  minimum = Math.min(minimum, ticks[0]!);
  maximum = Math.max(maximum, ticks[ticks.length - 1]!);
  return [minimum, maximum];
}

function frame(body: string, label: string, width: number): string {
  return `<svg class="chart" viewBox="0 0 ${width} ${HEIGHT}" width="100%" role="img" aria-label="${escapeXml(label)}" xmlns="http://www.w3.org/2000/svg">${body}</svg>`;
}

function yAxis(minimum: number, maximum: number, scale: (value: number) => number, unit: string, width: number): string {
  return niceTicks(minimum, maximum)
    .map((tick) => {
      const y = scale(tick).toFixed(1);
      return `<line class="grid" x1="${MARGIN.left}" x2="${width - MARGIN.right}" y1="${y}" y2="${y}"/><text class="tick" x="${MARGIN.left - 6}" y="${y}" text-anchor="end" dominant-baseline="middle">${escapeXml(formatValue(tick, unit))}</text>`;
    })
    .join("");
}

export interface TimeChartOptions {
  unit: string;
  fromMs: number;
  toMs: number;
  bars: boolean;
  stacked: boolean;
  label: string;
  /** viewBox width. */
  width: number;
}

export function timeSeriesChart(series: readonly Series[], options: TimeChartOptions): string {
  const times = [...new Set(series.flatMap((entry) => entry.points.map(([time]) => time)))].sort((first, second) => first - second);
  const start = Math.min(options.fromMs, times[0] ?? options.fromMs);
  const end = Math.max(options.toMs, times[times.length - 1] ?? options.toMs);
  const span = Math.max(end - start, 1);
  const width = options.width;
  const plotWidth = width - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const x = (time: number) => MARGIN.left + ((time - start) / span) * plotWidth;

  // Stacked bars add up per bucket; the domain must hold the sums.
  const lookup = series.map((entry) => new Map(entry.points.map(([time, value]) => [time, value])));
  const totals = times.map((time) => lookup.reduce((sum, values) => sum + Math.max(values.get(time) ?? 0, 0), 0));
  const allValues = series.flatMap((entry) => entry.points.map(([, value]) => value).filter((value): value is number => value !== null));
  const [minimum, maximum] = valueDomain(options.bars && options.stacked ? [...allValues, ...totals] : allValues, options.unit);
  const y = (value: number) => MARGIN.top + plotHeight - ((value - minimum) / (maximum - minimum)) * plotHeight;

  const parts: string[] = [yAxis(minimum, maximum, y, options.unit, width)];
  const xTicks = timeTicks(start, end, Math.max(Math.floor(plotWidth / 110), 2));
  for (const tick of xTicks) parts.push(`<text class="tick" x="${x(tick).toFixed(1)}" y="${HEIGHT - 8}" text-anchor="middle">${escapeXml(formatTime(tick, span))}</text>`);
  parts.push(`<line class="axis" x1="${MARGIN.left}" x2="${width - MARGIN.right}" y1="${y(Math.max(minimum, 0)).toFixed(1)}" y2="${y(Math.max(minimum, 0)).toFixed(1)}"/>`);

  if (options.bars) {
    const slot = Math.max(plotWidth / Math.max(times.length, 1), 2);
    const barWidth = Math.max((options.stacked ? slot * 0.7 : (slot * 0.8) / Math.max(series.length, 1)), 1);
    for (const time of times) {
      let base = 0;
      series.forEach((entry, seriesIndex) => {
        const value = lookup[seriesIndex]!.get(time);
        if (value === null || value === undefined) return;
        const left = options.stacked ? x(time) - barWidth / 2 : x(time) - (slot * 0.8) / 2 + seriesIndex * barWidth;
        const top = options.stacked ? y(base + value) : y(Math.max(value, 0));
        const bottom = options.stacked ? y(base) : y(Math.min(value, 0));
        if (options.stacked) base += value;
        parts.push(
          `<rect class="mark bar" data-series="${seriesIndex}" x="${left.toFixed(1)}" y="${top.toFixed(1)}" width="${barWidth.toFixed(1)}" height="${Math.max(bottom - top, 0.5).toFixed(1)}" fill="${PALETTE[seriesIndex % PALETTE.length]}"><title>${escapeXml(`${entry.name} ${formatTime(time, span)}: ${formatValue(value, options.unit)}`)}</title></rect>`,
        );
      });
    }
  } else {
    series.forEach((entry, seriesIndex) => {
      const color = PALETTE[seriesIndex % PALETTE.length];
      const segments: string[] = [];
      let open = false;
      for (const [time, value] of entry.points) {
        if (value === null) {
          open = false;
          continue;
        }
        segments.push(`${open ? "L" : "M"}${x(time).toFixed(1)},${y(value).toFixed(1)}`);
        open = true;
      }
      parts.push(`<path class="mark line" data-series="${seriesIndex}" d="${segments.join(" ")}" fill="none" stroke="${color}" stroke-width="2"/>`);
      for (const [time, value] of entry.points) {
        if (value === null) continue;
        parts.push(`<circle class="point" data-series="${seriesIndex}" cx="${x(time).toFixed(1)}" cy="${y(value).toFixed(1)}" r="2.5" fill="${color}"><title>${escapeXml(`${entry.name} ${formatTime(time, span)}: ${formatValue(value, options.unit)}`)}</title></circle>`);
      }
    });
  }
  return frame(parts.join(""), options.label, width);
}

export function barChart(categories: readonly string[], groups: readonly BarGroup[], unit: string, label: string, width: number): string {
  const rowHeight = 22;
  const height = Math.max(MARGIN.top + MARGIN.bottom + categories.length * rowHeight, 80);
  const left = 150;
  const plotWidth = width - left - MARGIN.right;
  const values = groups.flatMap((group) => group.values.filter((value): value is number => value !== null));
  const [minimum, maximum] = valueDomain(values, unit);
  const x = (value: number) => left + ((value - minimum) / (maximum - minimum)) * plotWidth;
  const parts: string[] = [];
  for (const tick of niceTicks(minimum, maximum)) {
    parts.push(`<line class="grid" x1="${x(tick).toFixed(1)}" x2="${x(tick).toFixed(1)}" y1="${MARGIN.top}" y2="${height - MARGIN.bottom}"/><text class="tick" x="${x(tick).toFixed(1)}" y="${height - 8}" text-anchor="middle">${escapeXml(formatValue(tick, unit))}</text>`);
  }
  const barHeight = (rowHeight * 0.8) / Math.max(groups.length, 1);
  categories.forEach((category, categoryIndex) => {
    const top = MARGIN.top + categoryIndex * rowHeight;
    parts.push(`<text class="tick" x="${left - 6}" y="${(top + rowHeight / 2).toFixed(1)}" text-anchor="end" dominant-baseline="middle">${escapeXml(category.length > 24 ? `${category.slice(0, 23)}…` : category)}</text>`);
    groups.forEach((group, groupIndex) => {
      const value = group.values[categoryIndex];
      if (value === null || value === undefined) return;
      const start = x(Math.min(value, 0));
      const width = Math.max(Math.abs(x(value) - x(0 < minimum ? minimum : 0)), 0.5);
      parts.push(
        `<rect class="mark bar" data-series="${groupIndex}" x="${start.toFixed(1)}" y="${(top + rowHeight * 0.1 + groupIndex * barHeight).toFixed(1)}" width="${width.toFixed(1)}" height="${barHeight.toFixed(1)}" fill="${PALETTE[groupIndex % PALETTE.length]}"><title>${escapeXml(`${category} · ${group.name}: ${formatValue(value, unit)}`)}</title></rect>`,
      );
    });
  });
  return `<svg class="chart" viewBox="0 0 ${width} ${height}" width="100%" role="img" aria-label="${escapeXml(label)}" xmlns="http://www.w3.org/2000/svg">${parts.join("")}</svg>`;
}
