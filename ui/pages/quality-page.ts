/**
 * "Quality over time": the seed's §十二 board (retrieval, context,
 * generation, boundaries, engineering, business) with the dashboards' and the
 * gate's definitions (store/ports/quality-reader.ts). Per layer a uPlot chart
 * per unit (rates apart from milliseconds) and a table: the value over the
 * range, the requests it rests on, and the value per service. Under the
 * business row, the user-behaviour metrics (evaluators/behaviour/, the
 * definitions the experiment report uses): event rates and session-window
 * rates, each with its definition and the seed's caution as help text.
 */
import { html } from "./markup.js";
import { formatValue } from "../../report/format-value.js";
import type { QualityBoard, QualityScope } from "../../store/ports/quality-reader.js";
import type { BehaviourBoard } from "../../evaluators/behaviour/behaviour-board.js";
import { boardFilters, emptyBoardMessage } from "./board-filters.js";
import { jsonData, page, type Markup, type Viewer } from "./layout.js";
import { judgedMetricNoValueReason } from "./judged-metric-no-value.js";

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

/** The behaviour rows as a table; `ragscope report` renders the same rows (report/html-report.ts). */
export function behaviourSection(behaviour: BehaviourBoard): Markup {
  return html`<section class="behaviour" id="behaviour"><h2>Business — user behaviour</h2>
<p class="muted">Over the ${behaviour.requests} requests that started in the range${behaviour.truncated ? html` — <strong class="error" id="behaviour-truncated">only the earliest were read: narrow the range or filter by service</strong>` : ""}. Session-window rates count a session (or request) once its window has passed; hover a metric for its definition.</p>
<table class="behaviour"><thead><tr><th>metric</th><th>over the range</th><th>counted</th><th>of which</th><th>kind</th></tr></thead><tbody>
${behaviour.rows.map(
  (row) => html`<tr data-behaviour="${row.metric}" data-session-window="${row.sessionWindow ? "yes" : "no"}"><td title="${row.definition}">${row.title} <span class="muted">${row.metric}</span>${row.caution === null ? "" : html`<p class="caution">${row.caution}</p>`}</td>
<td class="value" data-value="${row.value === null ? "" : String(row.value)}">${formatValue(row.value, row.kind === "rate" ? "percentunit" : "none")}</td><td class="count">${row.count} ${row.level === "session" ? "sessions" : "requests"}</td><td class="total">${row.kind === "rate" ? String(row.total) : ""}</td><td>${row.sessionWindow ? "session window" : row.kind === "rate" ? "user events" : "score"}</td></tr>`,
)}</tbody></table></section>`;
}

/** The reason under a value's "no data", when one is known (judged-metric-no-value.ts). */
function noValueReason(reason: string | null): Markup | "" {
  return reason === null ? "" : html`<p class="muted no-value-reason">${reason}</p>`;
}

export function qualityPage(viewer: Viewer, scope: QualityScope, board: QualityBoard, behaviour: BehaviourBoard): Markup {
  const charts = qualityCharts(board);
  // Every row of the board: a judged metric's heuristic row is in Generation, hallucination_rate in Boundaries.
  const shown = board.layers.flatMap((layer) => layer.aggregates);
  const body = html`${boardFilters("/quality", scope, board.services)}
${behaviour.requests === 0 ? emptyBoardMessage(scope) : ""}
<p class="muted" id="board-source">${scope.runId === undefined ? "Over a range of traffic the stored metrics are read from the per-minute rollups: means and shares are exact, percentiles are t-digest estimates (about 1 % of rank); choose a run for exact values." : "One run: every value is computed from the stored rows, as the gate computes it."}</p>
${board.layers.map(
  (layer, layerIndex) => html`<section class="layer" data-layer="${layer.title}"><h2>${layer.title}</h2>
${charts.filter((chart) => chart.id.startsWith(`chart-${layerIndex}-`)).map((chart) => html`<div class="chart" id="${chart.id}"></div>`)}
<table class="aggregates"><thead><tr><th>metric</th><th>over the range</th><th>requests</th>${board.services.map((service) => html`<th>${service}</th>`)}</tr></thead><tbody>
${layer.aggregates.map(
  (aggregate) => html`<tr data-aggregate="${aggregate.name}"><td>${aggregate.label} <span class="muted">${aggregate.name}</span></td>
<td class="value" data-value="${aggregate.value === null ? "" : String(aggregate.value)}">${formatValue(aggregate.value, aggregate.unit)}${noValueReason(judgedMetricNoValueReason(aggregate, shown))}</td><td class="samples">${aggregate.samples}</td>
${board.services.map((service) => html`<td class="service" data-service="${service}">${formatValue(aggregate.byService[service] ?? null, aggregate.unit)}</td>`)}</tr>`,
)}</tbody></table></section>`,
)}
${behaviourSection(behaviour)}
${jsonData("chart-data", charts)}`;
  return page("Quality over time", viewer, body, ["/static/uPlot.iife.min.js", "/static/charts.js"], ["/static/uPlot.min.css"]);
}
