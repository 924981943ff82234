/** Runs with their lineage, and two runs side by side (the comparison `ragscope eval` computes: experiments/compare/compare-runs.ts). */
import { html } from "hono/html";
import type { RunLineage } from "../../contracts/run-lineage.js";
import type { RunComparison } from "../../experiments/compare/compare-runs.js";
import type { RunSummary } from "../../store/ports/run-reader.js";
import { optional, page, type Markup } from "./layout.js";

const LINEAGE_FIELDS = ["dataset_id", "dataset_version", "corpus_version", "index_version", "embedding_model", "retriever_version", "reranker_version", "prompt_version", "generator_model", "application_version"] as const;

export function runsPage(reviewer: string, runs: readonly RunLineage[]): Markup {
  const body = html`<form method="get" action="/runs/compare"><label>Compare <select name="candidate">${runs.map((run) => html`<option>${run.run_id}</option>`)}</select></label>
<label>against baseline <select name="baseline">${runs.map((run, index) => html`<option ${index === 1 ? "selected" : ""}>${run.run_id}</option>`)}</select></label> <button type="submit">Compare</button></form>
<table id="runs"><thead><tr><th>run</th><th>started</th>${LINEAGE_FIELDS.map((field) => html`<th>${field}</th>`)}<th>notes</th></tr></thead><tbody>
${runs.map((run) => html`<tr data-run-id="${run.run_id}"><td><a href="/traces?run=${encodeURIComponent(run.run_id)}">${run.run_id}</a></td><td>${run.started_at}</td>${LINEAGE_FIELDS.map((field) => html`<td>${optional(run[field])}</td>`)}<td>${optional(run.notes)}</td></tr>`)}
</tbody></table>`;
  return page("Runs", reviewer, body);
}

const fixed = (value: number | null) => (value === null ? "—" : value.toFixed(4));

export function runComparePage(reviewer: string, candidate: RunSummary, baseline: RunSummary, comparison: RunComparison): Markup {
  const body = html`<section><table id="run-summaries"><thead><tr><th></th><th>${candidate.runId} (candidate)</th><th>${baseline.runId} (baseline)</th></tr></thead><tbody>
${(["cases", "passed", "failed", "reviewRequired", "unjudged", "notEvaluated", "partial"] as const).map((key) => html`<tr><th>${key}</th><td>${candidate[key]}</td><td>${baseline[key]}</td></tr>`)}</tbody></table></section>
<section><h2>Metrics on ${comparison.pairedCases} paired cases</h2><table id="metric-differences"><thead><tr><th>metric</th><th>candidate</th><th>baseline</th><th>difference</th><th>interval (paired bootstrap, 95%)</th></tr></thead><tbody>
${comparison.metrics.map((metric) => html`<tr data-metric="${metric.metric}"><td>${metric.metric}</td><td>${fixed(metric.candidateMean)}</td><td>${fixed(metric.baselineMean)}</td><td>${fixed(metric.interval.meanDifference)}</td><td>${fixed(metric.interval.low)} … ${fixed(metric.interval.high)} (${metric.interval.pairs} pairs)</td></tr>`)}
</tbody></table></section>
<section><h2>Flipped cases</h2><p>McNemar exact p = ${fixed(comparison.mcnemar.pValue)}</p>
<h3>Regressed (passed in the baseline, not now)</h3><ul id="regressed">${comparison.regressed.map((caseId) => html`<li>${caseId}</li>`)}</ul>
<h3>Fixed (not passed in the baseline, passed now)</h3><ul id="fixed">${comparison.fixed.map((caseId) => html`<li>${caseId}</li>`)}</ul></section>`;
  return page(`${candidate.runId} vs ${baseline.runId}`, reviewer, body);
}
