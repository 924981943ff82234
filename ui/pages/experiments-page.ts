/**
 * "Experiments": the online A/B experiments this reader's tenants ran, and
 * per experiment the report `ragscope experiment report` prints — computed by
 * the same function (evaluators/experiments/read-experiment-report.ts) and
 * shown with the same number formatting. Every number also sits in a data-
 * attribute at full precision, so a test (or a person's script) can compare
 * the page with the CLI's JSON exactly.
 */
import { html } from "./markup.js";
import type { ExperimentReport, MetricReport } from "../../evaluators/experiments/experiment-report.js";
import { number, pValue, signed, verdictWords } from "../../evaluators/experiments/format-experiment-report.js";
import { labelOfReportedMetric } from "../../evaluators/experiments/judged-values.js";
import { LINEAGE_NOT_ON_TRACES } from "../../evaluators/experiments/lineage-differences.js";
import type { ExperimentReportSettingsText } from "../../evaluators/experiments/read-experiment-report.js";
import { optional, page, type Markup, type Viewer } from "./layout.js";

const data = (value: number | null | undefined) => (value === null || value === undefined ? "" : String(value));

export function experimentsPage(viewer: Viewer, experimentIds: readonly string[]): Markup {
  const body =
    experimentIds.length === 0
      ? html`<p id="no-experiments" class="muted">No stored request carries an experiment yet. Give <code>experimentId</code> and <code>experimentVariant</code> to <code>traceRequest</code> (or assign with <code>assignVariant</code>) and the experiment appears here.</p>`
      : html`<p class="muted">Most requests first. Each report compares every variant with the control: traffic, sample ratio check, behaviour, rule and judge metrics, lineage and a decision in plain words.</p>
<ul id="experiments">${experimentIds.map((id) => html`<li data-experiment="${id}"><a href="/experiments/${encodeURIComponent(id)}">${id}</a></li>`)}</ul>`;
  return page("Experiments", viewer, body);
}

function settingsForm(report: ExperimentReport, given: ExperimentReportSettingsText): Markup {
  return html`<form class="filters" method="get" action="/experiments/${encodeURIComponent(report.experimentId)}">
<label>control<input name="control" value="${given.control ?? ""}" placeholder="${report.control}"></label>
<label>unit<select name="unit">${["user", "session"].map((unit) => html`<option value="${unit}" ${unit === report.unit ? "selected" : ""}>${unit}</option>`)}</select></label>
<label>α<input name="alpha" value="${given.alpha ?? ""}" placeholder="${String(report.alpha)}" size="6"></label>
<label>power<input name="power" value="${given.power ?? ""}" placeholder="${String(report.power)}" size="6"></label>
<label>minimum effect (fraction of control)<input name="mde" value="${given.mde ?? ""}" placeholder="${String(report.minimumEffect)}" size="6"></label>
<label>method<select name="method">${["analytic", "bootstrap"].map((method) => html`<option value="${method}" ${method === (given.method || "analytic") ? "selected" : ""}>${method}</option>`)}</select></label>
${(given.weight ?? []).map((weight) => html`<input type="hidden" name="weight" value="${weight}">`)}
<label>&nbsp;<button type="submit">Recompute</button></label></form>`;
}

function metricRows(metric: MetricReport, report: ExperimentReport): Markup {
  const comparisons = metric.comparisons;
  const rows = Math.max(1, comparisons.length);
  const first = (index: number) =>
    index > 0
      ? html``
      : html`<td rowspan="${rows}" class="metric">${labelOfReportedMetric(metric.metric, metric.heuristicJudge)}<br><span class="muted">${metric.source}, ${metric.kind}${metric.higherIsBetter === null ? "" : metric.higherIsBetter ? ", higher is better" : ", lower is better"}</span>${metric.caution === null ? "" : html`<p class="caution" title="${metric.caution}">${metric.caution}</p>`}</td>
${report.traffic.map((traffic) => {
  const value = metric.values.find((item) => item.variant === traffic.variant);
  return html`<td rowspan="${rows}" class="value" data-variant="${traffic.variant}" data-value="${data(value?.value)}" data-observations="${data(value?.observations)}">${number(value?.value ?? null)} <span class="muted">n ${value?.observations ?? 0}</span></td>`;
})}`;
  if (comparisons.length === 0) return html`<tr data-metric="${metric.metric}">${first(0)}<td colspan="5" class="muted">no comparison</td></tr>`;
  return html`${comparisons.map((item, index) => {
    const comparison = item.comparison;
    return html`<tr data-metric="${metric.metric}" data-variant="${item.variant}" data-verdict="${item.verdict}">${first(index)}
<td>${item.variant} − ${report.control}</td>
${
  comparison === null
    ? html`<td colspan="3" class="muted">${item.note ?? "no comparison"}</td>`
    : html`<td class="difference" data-difference="${data(comparison.difference)}">${signed(comparison.difference)}</td>
<td class="interval" data-lower="${data(comparison.lower)}" data-upper="${data(comparison.upper)}">[${signed(comparison.lower)}, ${signed(comparison.upper)}]</td>
<td class="p-value" data-p-value="${data(comparison.pValue)}" data-method="${comparison.method}">${pValue(comparison.pValue)} <span class="muted">${comparison.method}</span></td>`
}
<td class="required" data-required="${data(item.requiredObservations)}">${optional(item.requiredObservations)}</td>
<td class="verdict-words">${verdictWords(item)}</td></tr>`;
  })}`;
}

export function experimentReportPage(viewer: Viewer, report: ExperimentReport, given: ExperimentReportSettingsText): Markup {
  const confidencePercent = Math.round((1 - report.alpha) * 100);
  const ratio = report.sampleRatio;
  const body = html`<p class="muted">Control <strong id="control">${report.control}</strong>, unit <span id="unit">${report.unit}</span>, α ${report.alpha}, power ${report.power}, minimum effect ${Math.round(report.minimumEffect * 100)} % of the control's value. A fixed-horizon test: a metric is decided only once each arm holds its minimum sample (column "needs per arm"), whatever its p-value — looking early and stopping at the first p &lt; α is what this rule prevents; only a change for the worse past p &lt; 0.001 is reported before it, marked "early". A heuristic's comparison is shown, never decided.</p>
${settingsForm(report, given)}
<section id="decision"><h2>Decision</h2>${report.decisions.map((decision) => html`<p class="decision">${decision}</p>`)}</section>
${report.warnings.length === 0 ? "" : html`<section id="warnings"><h2>Warnings</h2><ul>${report.warnings.map((warning) => html`<li class="warning error">${warning}</li>`)}</ul></section>`}
<section id="traffic"><h2>Traffic</h2><table><thead><tr><th>variant</th><th>requests</th><th>${report.unit}s</th><th>sessions</th></tr></thead><tbody>
${report.traffic.map((item) => html`<tr data-variant="${item.variant}"><td>${item.variant}</td><td class="requests">${item.requests}</td><td class="units">${item.units}</td><td class="sessions">${item.sessions}</td></tr>`)}</tbody></table>
${
  ratio === null
    ? html`<p class="muted" id="sample-ratio">No sample ratio check: fewer than two variants to compare.</p>`
    : html`<p id="sample-ratio" data-chi-square="${data(ratio.chiSquare)}" data-p-value="${data(ratio.pValue)}" data-mismatch="${ratio.mismatch ? "yes" : "no"}">Sample ratio check: chi-square ${ratio.chiSquare.toFixed(3)}, p=${ratio.pValue < 0.0001 ? ratio.pValue.toExponential(2) : ratio.pValue.toFixed(4)} — ${ratio.mismatch ? html`<strong class="error">MISMATCH (p &lt; 0.001): no difference below can be trusted</strong>` : "ok"}</p>`
}${report.unitsInSeveralVariants > 0 ? html`<p class="error" id="not-sticky">${report.unitsInSeveralVariants} ${report.unit}s saw more than one variant.</p>` : ""}</section>
<section id="metrics"><h2>Metrics</h2><p class="muted">Value per variant (n observations); variant − control with its ${confidencePercent} % confidence interval and two-sided p-value; clustered by ${report.unit} when a ${report.unit} has several requests.</p>
<table><thead><tr><th>metric</th>${report.traffic.map((item) => html`<th>${item.variant}</th>`)}<th>compared</th><th>difference</th><th>${confidencePercent} % interval</th><th>p-value</th><th>needs per arm</th><th>verdict</th></tr></thead>
<tbody>${report.metrics.map((metric) => metricRows(metric, report))}</tbody></table></section>
${
  report.lineage.length === 0
    ? ""
    : html`<section id="lineage"><h2>Lineage per variant</h2><p class="muted">The seed's rule: one main variable per experiment. Not on traces, so not checked: ${LINEAGE_NOT_ON_TRACES.join(", ")}.</p>
<table><thead><tr><th>field</th>${report.traffic.map((item) => html`<th>${item.variant}</th>`)}<th></th></tr></thead><tbody>
${report.lineage.map((field) => html`<tr data-field="${field.field}" data-differs="${field.differs ? "yes" : "no"}"><td>${field.field}</td>${report.traffic.map((item) => html`<td>${(field.values[item.variant] ?? []).join(" / ")}</td>`)}<td>${field.differs ? html`<strong>differs</strong>` : ""}</td></tr>`)}</tbody></table></section>`
}`;
  return page(`Experiment ${report.experimentId}`, viewer, body);
}
