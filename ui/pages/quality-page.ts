/**
 * "Quality over time": the seed's §十二 board (retrieval, context,
 * generation, boundaries, engineering, business) with the dashboards' and the
 * gate's definitions (store/ports/quality-reader.ts). Per layer a uPlot chart
 * per unit (rates apart from milliseconds) and a table: the value over the
 * range, the requests it rests on, and the value per service.
 */
import { html } from "hono/html";
import { formatValue } from "../../report/format-value.js";
import type { QualityBoard, QualityScope } from "../../store/ports/quality-reader.js";
import { boardFilters } from "./board-filters.js";
import { jsonData, page, type Markup } from "./layout.js";

/** Units drawn as time charts; the others (cost, tokens) are shown in the table only. */
const CHARTED_UNITS = ["percentunit", "ms"];

export interface ChartData {
  id: string;
  unit: string;
  times: number[];
  series: { label: string; values: (number | null)[] }[];
}

export function qualityCharts(board: QualityBoard): ChartData[] {
  const charts: ChartData[] = [];
  for (const [layerIndex, layer] of board.layers.entries()) {
    for (const unit of CHARTED_UNITS) {
      const aggregates = layer.aggregates.filter((aggregate) => aggregate.unit === unit && aggregate.samples > 0);
      if (aggregates.length === 0) continue;
      charts.push({ id: `chart-${layerIndex}-${unit}`, unit, times: board.times, series: aggregates.map((aggregate) => ({ label: aggregate.label, values: aggregate.overTime })) });
    }
  }
  return charts;
}

export function qualityPage(reviewer: string, scope: QualityScope, board: QualityBoard): Markup {
  const charts = qualityCharts(board);
  const body = html`${boardFilters("/quality", scope, board.services)}
<p class="muted" id="board-source">${scope.runId === undefined ? "Over a range of traffic the stored metrics are read from the per-minute rollups: means and shares are exact, percentiles are t-digest estimates (about 1 % of rank); choose a run for exact values." : "One run: every value is computed from the stored rows, as the gate computes it."}</p>
${board.layers.map(
  (layer, layerIndex) => html`<section class="layer" data-layer="${layer.title}"><h2>${layer.title}</h2>
${charts.filter((chart) => chart.id.startsWith(`chart-${layerIndex}-`)).map((chart) => html`<div class="chart" id="${chart.id}"></div>`)}
<table class="aggregates"><thead><tr><th>metric</th><th>over the range</th><th>requests</th>${board.services.map((service) => html`<th>${service}</th>`)}</tr></thead><tbody>
${layer.aggregates.map(
  (aggregate) => html`<tr data-aggregate="${aggregate.name}"><td>${aggregate.label} <span class="muted">${aggregate.name}</span></td>
<td class="value" data-value="${aggregate.value === null ? "" : String(aggregate.value)}">${formatValue(aggregate.value, aggregate.unit)}</td><td class="samples">${aggregate.samples}</td>
${board.services.map((service) => html`<td class="service" data-service="${service}">${formatValue(aggregate.byService[service] ?? null, aggregate.unit)}</td>`)}</tr>`,
)}</tbody></table></section>`,
)}
${jsonData("chart-data", charts)}`;
  return page("Quality over time", reviewer, body, ["/static/uPlot.iife.min.js", "/static/charts.js"], ["/static/uPlot.min.css"]);
}
