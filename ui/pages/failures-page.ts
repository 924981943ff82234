/**
 * "Failures": failing requests grouped by their primary root-cause label (the
 * seed's 18, 004 §十), with counts, the labels over time (uPlot), and a link
 * from each label to the failing traces that carry it, and from the count
 * without a label to those (root_cause=UNATTRIBUTED).
 */
import { html } from "./markup.js";
import type { FailureBoard, QualityScope } from "../../store/ports/quality-reader.js";
import { boardFilters, emptyBoardMessage } from "./board-filters.js";
import { jsonData, page, type Markup, type Viewer } from "./layout.js";
import type { ChartData } from "./quality-page.js";
import { rootCauseMeaningMarkup } from "./root-cause-meaning.js";
import { UNATTRIBUTED } from "../../evaluators/root-cause/root-cause-labels.js";

export function failureTracesLink(scope: QualityScope, rootCause: string): string {
  const parameters = new URLSearchParams({ root_cause: rootCause, verdict: "failed", from: new Date(scope.fromMs).toISOString(), to: new Date(scope.toMs).toISOString() });
  if (scope.service !== undefined) parameters.set("service", scope.service);
  if (scope.runId !== undefined) parameters.set("run", scope.runId);
  return `/traces?${parameters.toString()}`;
}

export function failuresPage(viewer: Viewer, scope: QualityScope, services: readonly string[], board: FailureBoard): Markup {
  const labelled = board.groups.filter((group) => group.failing > 0);
  const charts: ChartData[] = labelled.length === 0 ? [] : [{ id: "chart-root-causes", unit: "short", times: board.times, series: labelled.map((group) => ({ label: group.rootCause, values: group.overTime })) }];
  const share = (count: number) => (board.failing === 0 ? "—" : `${((count / board.failing) * 100).toFixed(1)}%`);
  // services() lists the range's services under the run filter: none, or not the one asked for, is no request at all.
  const noRequest = services.length === 0 || (scope.service !== undefined && !services.includes(scope.service));
  const body = html`${boardFilters("/failures", scope, services)}
${noRequest ? emptyBoardMessage(scope) : ""}
<p id="failing-summary"><span id="failing-total">${board.failing}</span> failing requests in the range; <span id="without-root-cause">${board.withoutRootCause}</span> without a root-cause label${board.withoutRootCause > 0 ? html` (<a id="without-root-cause-traces" class="drill-down" href="${failureTracesLink(scope, UNATTRIBUTED)}">show the traces</a>)` : ""}.</p>
${charts.length === 0 ? html`<p class="muted">No failing request carries a root-cause label in this range.</p>` : html`<div class="chart" id="chart-root-causes"></div>`}
<table id="root-causes"><thead><tr><th>root cause</th><th>what it means</th><th>failing requests</th><th>share</th><th>traces</th></tr></thead><tbody>
${board.groups.map(
  (group) => html`<tr data-root-cause="${group.rootCause}"><td>${group.rootCause}</td><td class="meaning">${rootCauseMeaningMarkup(group.rootCause)}</td><td class="failing">${group.failing}</td><td>${share(group.failing)}</td>
<td>${group.failing > 0 ? html`<a class="drill-down" href="${failureTracesLink(scope, group.rootCause)}">show the traces</a>` : ""}</td></tr>`,
)}</tbody></table>
${jsonData("chart-data", charts)}`;
  return page("Failures", viewer, body, ["/static/uPlot.iife.min.js", "/static/charts.js"], ["/static/uPlot.min.css"]);
}
