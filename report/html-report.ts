/**
 * The static HTML report: the dashboards' panels drawn from their query
 * results into one self-contained file (inline CSS, inline SVG charts, a few
 * lines of script to toggle series) — no network when it is opened.
 */
import { titleWithVariables, type DashboardResult, type PanelResult } from "./collect-report.js";
import type { ReportPanel } from "./dashboard-files.js";
import { formatValue } from "./format-value.js";
import { statValues } from "./rate-basis-fields.js";
import type { Field, Frame } from "./panel-data.js";
import type { BehaviourBoard } from "../evaluators/behaviour/behaviour-board.js";
import { barChart, escapeXml, PALETTE, timeSeriesChart, WIDTH_PER_COLUMN, type Series } from "./svg-charts.js";
import { unpairedRunsNotice } from "./unpaired-runs-notice.js";
import { rootCauseGlossary, rootCauseLabelsIn } from "./root-cause-glossary.js";

export interface ReportDocument {
  title: string;
  generatedAt: string;
  storedIn: string;
  fromMs: number;
  toMs: number;
  dashboards: DashboardResult[];
  /** Link template for trace ids, `{trace_id}` replaced; null = plain text. */
  traceUrl: string | null;
  /** The user-behaviour part of the business row (evaluators/behaviour/behaviour-board.ts), as the UI's Quality page shows it; absent = not shown. */
  behaviour?: BehaviourBoard | null;
  /** Runs shown whose results carry several tenants, said before any number (report/run-tenant-notices.ts); absent = none. */
  runTenantNotices?: readonly string[];
}

const STYLE = `
:root { color-scheme: light; --ink: #1f2328; --muted: #59636e; --line: #d1d9e0; --panel: #ffffff; --page: #f6f8fa; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); background: var(--page); }
header.report { padding: 20px 28px 8px; }
header.report h1 { margin: 0 0 4px; font-size: 22px; }
header.report p { margin: 2px 0; color: var(--muted); }
header.report p.notice { color: #6a4a00; background: #fff8c5; border: 1px solid #d4a72c; padding: 6px 10px; margin: 6px 0; }
nav.contents { padding: 0 28px 8px; }
nav.contents a { margin-right: 16px; }
section.dashboard { padding: 8px 28px 24px; }
section.dashboard > h2 { font-size: 19px; margin: 16px 0 4px; }
section.dashboard > p.description, p.note { color: var(--muted); margin: 0 0 8px; }
p.caution { color: #6a4a00; font-size: 12px; margin: 4px 0 0; }
h3.row { font-size: 15px; margin: 18px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
div.grid { display: grid; grid-template-columns: repeat(24, 1fr); gap: 12px; }
figure.panel { margin: 0; background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 10px 12px; min-width: 0; }
figure.panel figcaption { font-weight: 600; margin-bottom: 6px; }
figure.panel figcaption span.help { font-weight: 400; color: var(--muted); display: block; font-size: 12px; }
div.stats { display: flex; flex-wrap: wrap; gap: 8px 28px; }
div.stat .value { font-size: 24px; font-weight: 600; }
div.stat .name { color: var(--muted); font-size: 12px; }
svg.chart { display: block; width: 100%; height: auto; }
svg.chart .grid { stroke: #eef1f4; }
svg.chart .axis { stroke: #9aa4ae; }
svg.chart .tick { fill: var(--muted); font-size: 10px; }
svg.chart .hidden { display: none; }
ul.legend { list-style: none; padding: 0; margin: 6px 0 0; display: flex; flex-wrap: wrap; gap: 4px 14px; font-size: 12px; }
ul.legend li { cursor: pointer; user-select: none; }
ul.legend li.off { opacity: 0.35; }
ul.legend i { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 5px; vertical-align: -1px; }
div.table { max-height: 360px; overflow: auto; }
table { border-collapse: collapse; width: 100%; font-size: 12px; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid #eef1f4; vertical-align: top; }
th { position: sticky; top: 0; background: var(--panel); }
td.number { text-align: right; font-variant-numeric: tabular-nums; }
p.empty, p.error { color: var(--muted); font-style: italic; margin: 8px 0; }
p.error { color: #b42318; }
section.glossary dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 0; font-size: 12px; }
section.glossary dt { font-family: ui-monospace, monospace; }
section.glossary dd { margin: 0; }
section.glossary .seed-wording { color: var(--muted); }
`;

// Clicking a legend entry hides or shows that series in its chart.
const SCRIPT = `
document.querySelectorAll("ul.legend li").forEach(function (item) {
  item.addEventListener("click", function () {
    var figure = item.closest("figure");
    var series = item.getAttribute("data-series");
    var off = item.classList.toggle("off");
    figure.querySelectorAll('svg [data-series="' + series + '"]').forEach(function (mark) { mark.classList.toggle("hidden", off); });
  });
});
`;

const escapeHtml = escapeXml;

function numberFields(frame: Frame): Field[] {
  return frame.fields.filter((field) => field.type === "number");
}

function unitOf(panel: ReportPanel, column: string): string {
  return panel.columns.get(column)?.unit ?? panel.unit;
}

/** Grafana's long-to-wide: string columns name the series, numeric columns hold the values. */
export function toSeries(frames: readonly Frame[]): Series[] {
  const series = new Map<string, Series>();
  for (const frame of frames) {
    const time = frame.fields.find((field) => field.type === "time");
    if (!time) continue;
    const labels = frame.fields.filter((field) => field.type === "string");
    const numbers = numberFields(frame);
    for (let row = 0; row < frame.rows; row += 1) {
      const key = labels.map((field) => String(field.values[row] ?? "")).join(" ");
      for (const field of numbers) {
        const name = labels.length === 0 ? field.name : numbers.length > 1 ? `${key} ${field.name}` : key || field.name;
        const entry = series.get(name) ?? { name, points: [] };
        entry.points.push([time.values[row] as number, field.values[row] as number | null]);
        series.set(name, entry);
      }
    }
  }
  for (const entry of series.values()) entry.points.sort((first, second) => first[0] - second[0]);
  return [...series.values()];
}

function chartWidth(panel: ReportPanel): number {
  return Math.max(panel.width * WIDTH_PER_COLUMN, 400);
}

function legend(names: readonly string[]): string {
  return `<ul class="legend">${names.map((name, index) => `<li data-series="${index}"><i style="background:${PALETTE[index % PALETTE.length]}"></i>${escapeHtml(name)}</li>`).join("")}</ul>`;
}

function renderStat(result: PanelResult): string {
  // A rate over a subset is shown with its basis under its name (rate-basis-fields.ts), not as tiles of their own.
  const tiles = statValues(result.frames.flatMap((frame) => frame.fields)).map(({ field, basis }) => {
    const value = field.values[0];
    return `<div class="stat"><div class="value">${escapeHtml(formatValue(typeof value === "number" ? value : null, unitOf(result.panel, field.name), result.panel.columns.get(field.name)?.decimals ?? result.panel.decimals))}</div><div class="name">${escapeHtml(field.name)}</div>${basis === null ? "" : `<div class="name basis">${escapeHtml(basis)}</div>`}</div>`;
  });
  return `<div class="stats">${tiles.join("")}</div>`;
}

function renderTimeSeries(result: PanelResult, range: { fromMs: number; toMs: number }): string {
  const series = toSeries(result.frames);
  if (series.every((entry) => entry.points.every(([, value]) => value === null))) return `<p class="empty">No data in the time range.</p>`;
  const chart = timeSeriesChart(series, { unit: result.panel.unit, fromMs: range.fromMs, toMs: range.toMs, bars: result.panel.bars, stacked: result.panel.stacked, label: result.panel.title, width: chartWidth(result.panel) });
  return chart + legend(series.map((entry) => entry.name));
}

function renderBarChart(result: PanelResult): string {
  const frame = result.frames[0]!;
  const x = frame.fields.find((field) => field.name === result.panel.xField) ?? frame.fields.find((field) => field.type === "string");
  if (!x) return `<p class="error">The query returned no column for the x axis.</p>`;
  const groups = numberFields(frame).map((field) => ({ name: field.name, values: field.values as (number | null)[] }));
  return barChart(x.values.map(String), groups, result.panel.unit, result.panel.title, chartWidth(result.panel)) + legend(groups.map((group) => group.name));
}

function renderCell(field: Field, value: number | string | null, result: PanelResult, document: ReportDocument): string {
  if (value === null) return `<td></td>`;
  if (field.type === "time") return `<td>${escapeHtml(new Date(value as number).toISOString().replace("T", " ").slice(0, 19))}</td>`;
  if (field.type === "number") return `<td class="number">${escapeHtml(formatValue(value as number, unitOf(result.panel, field.name), 3))}</td>`;
  const text = escapeHtml(String(value));
  if (field.name === "trace_id" && document.traceUrl !== null && value !== "") return `<td><a href="${escapeHtml(document.traceUrl.replaceAll("{trace_id}", encodeURIComponent(String(value))))}">${text}</a></td>`;
  return `<td>${text}</td>`;
}

function renderTable(result: PanelResult, document: ReportDocument): string {
  const frame = result.frames[0]!;
  const header = frame.fields.map((field) => `<th>${escapeHtml(field.name)}</th>`).join("");
  const rows: string[] = [];
  for (let row = 0; row < frame.rows; row += 1) rows.push(`<tr>${frame.fields.map((field) => renderCell(field, field.values[row] ?? null, result, document)).join("")}</tr>`);
  return `<div class="table"><table><thead><tr>${header}</tr></thead><tbody>${rows.join("")}</tbody></table></div>`;
}

function renderPanel(result: PanelResult, document: ReportDocument, range: { fromMs: number; toMs: number }): string {
  const panel = result.panel;
  let body: string;
  if (result.error !== null) body = `<p class="error">${escapeHtml(result.error)}</p>`;
  else if (result.frames.every((frame) => frame.rows === 0)) body = `<p class="empty">No data in the time range.</p>`;
  else if (panel.kind === "stat") body = renderStat(result);
  else if (panel.kind === "timeseries") body = renderTimeSeries(result, range);
  else if (panel.kind === "barchart") body = renderBarChart(result);
  else body = renderTable(result, document);
  const empty = result.error !== null || !/class="(chart|stats|table)"/.test(body);
  return `<figure class="panel" data-panel-type="${panel.kind}" data-empty="${empty}" style="grid-column: span ${Math.min(Math.max(panel.width, 4), 24)}"><figcaption>${escapeHtml(panel.title)}<span class="help">${escapeHtml(panel.description)}</span></figcaption>${body}</figure>`;
}

function renderDashboard(result: DashboardResult, document: ReportDocument): string {
  const parts = [`<section class="dashboard" id="${escapeHtml(result.dashboard.uid)}"><h2>${escapeHtml(result.dashboard.title)}</h2><p class="description">${escapeHtml(result.dashboard.description)}</p>`];
  if (result.range) parts.push(`<p class="note" data-range="own">Time range of this board: ${escapeHtml(formatRange(result.range.fromMs, result.range.toMs))}, ${escapeHtml(result.range.why)}.</p>`);
  const unpaired = result.skipped === null ? unpairedRunsNotice(result) : null;
  if (unpaired !== null) parts.push(`<p class="note" data-notice="unpaired-runs">Nothing to compare: ${escapeHtml(unpaired)}.</p>`);
  const range = result.range ?? document;
  if (result.skipped !== null) parts.push(`<p class="note">Not shown: ${escapeHtml(result.skipped)}.</p>`);
  else {
    for (const row of result.dashboard.rows) {
      if (row.title) parts.push(`<h3 class="row">${escapeHtml(titleWithVariables(row.title, result.variables))}</h3>`);
      parts.push(`<div class="grid">${row.panels.map((panel) => renderPanel(result.panels.get(panel.id) ?? { panel, frames: [], error: "not run" }, document, range)).join("")}</div>`);
    }
    parts.push(rootCauseGlossary(rootCauseLabelsIn([...result.panels.values()].flatMap((panel) => panel.frames))));
  }
  parts.push("</section>");
  return parts.join("");
}

/** The behaviour metrics with the UI's definitions and help texts: the seed's cautions shown, the definitions as tooltips. */
function renderBehaviour(behaviour: BehaviourBoard): string {
  const rows = behaviour.rows.map(
    (row) =>
      `<tr data-behaviour="${escapeHtml(row.metric)}" data-session-window="${row.sessionWindow ? "yes" : "no"}"><td title="${escapeHtml(row.definition)}">${escapeHtml(row.title)} <span class="help">${escapeHtml(row.metric)}</span>${row.caution === null ? "" : `<p class="caution">${escapeHtml(row.caution)}</p>`}</td>` +
      `<td class="number" data-value="${row.value === null ? "" : String(row.value)}"${row.withoutEvidence === null ? "" : ` title="${escapeHtml(row.withoutEvidence)}"`}>${escapeHtml(formatValue(row.value, row.kind === "rate" ? "percentunit" : "none"))}</td><td class="number">${row.count} ${row.level === "session" ? "sessions" : "requests"}</td><td>${row.sessionWindow ? "session window" : row.kind === "rate" ? "user events" : "score"}</td></tr>`,
  );
  return [
    `<section class="dashboard" id="behaviour"><h2>Business — user behaviour</h2>`,
    `<p class="description">The seed's §十二 business row, user side: event rates and session-window rates over the ${behaviour.requests} requests that started in the range, with the definitions of evaluators/behaviour/ (the UI's Quality page and \`ragscope experiment report\` use the same). Hover a metric for its definition.</p>`,
    behaviour.truncated ? `<p class="note">Only the earliest requests of the range were read: narrow the range or filter by one service.</p>` : "",
    ...withoutEvidenceNotes(behaviour),
    `<div class="table"><table><thead><tr><th>metric</th><th>over the range</th><th>counted</th><th>kind</th></tr></thead><tbody>${rows.join("")}</tbody></table></div></section>`,
  ].join("");
}

/** One note per kind of evidence the range lacks, naming the metrics it leaves without data (behaviour-evidence.ts). */
function withoutEvidenceNotes(behaviour: BehaviourBoard): string[] {
  const metrics = new Map<string, string[]>();
  for (const row of behaviour.rows) if (row.withoutEvidence !== null) metrics.set(row.withoutEvidence, [...(metrics.get(row.withoutEvidence) ?? []), row.title]);
  return [...metrics].map(([why, titles]) => `<p class="note" data-behaviour-evidence="missing">${escapeHtml(why)} Metrics: ${escapeHtml(titles.join(", "))}.</p>`);
}

/** "2026-07-08 09:00 – 2026-07-08 10:00 UTC". */
export function formatRange(fromMs: number, toMs: number): string {
  return `${new Date(fromMs).toISOString().replace("T", " ").slice(0, 16)} – ${new Date(toMs).toISOString().replace("T", " ").slice(0, 16)} UTC`;
}

export function renderHtmlReport(document: ReportDocument): string {
  const range = formatRange(document.fromMs, document.toMs);
  return [
    "<!doctype html>",
    `<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(document.title)}</title><style>${STYLE}</style></head><body>`,
    `<header class="report"><h1>${escapeHtml(document.title)}</h1><p>Time range ${escapeHtml(range)} · generated ${escapeHtml(document.generatedAt)}</p><p>Data: ${escapeHtml(document.storedIn)} · the same panels and queries as the Grafana dashboards in dashboards/</p>${(document.runTenantNotices ?? []).map((notice) => `<p class="notice" data-notice="run-tenants">${escapeHtml(notice)}</p>`).join("")}</header>`,
    `<nav class="contents">${document.dashboards.map((result) => `<a href="#${escapeHtml(result.dashboard.uid)}">${escapeHtml(result.dashboard.title)}</a>`).join("")}${document.behaviour ? `<a href="#behaviour">Business — user behaviour</a>` : ""}</nav>`,
    ...document.dashboards.map((result) => renderDashboard(result, document)),
    document.behaviour ? renderBehaviour(document.behaviour) : "",
    `<script>${SCRIPT}</script></body></html>`,
  ].join("\n");
}
