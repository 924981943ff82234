/**
 * Every run with its lineage where it recorded one, and two runs side by side (the comparison `ragscope eval`
 * computes: experiments/compare/compare-runs.ts). A run without lineage (a remote eval, an application tagged with
 * a run id) is listed with its start and cases; its lineage cells say "—", nothing filled in.
 */
import { html } from "./markup.js";
import { heuristicPairsLabel, type MetricComparison, type RunComparison } from "../../experiments/compare/compare-runs.js";
import { labelOfMetric } from "../../evaluators/metric-catalog.js";
import type { RunSummary } from "../../store/ports/run-reader.js";
import type { RunListing } from "../../store/ports/run-listing.js";
import { rounded } from "../../report/format-value.js";
import { optional, page, type Markup, type Viewer } from "./layout.js";
import { utcTime } from "./utc-time.js";

const LINEAGE_FIELDS = ["dataset_id", "dataset_version", "corpus_version", "index_version", "embedding_model", "retriever_version", "reranker_version", "prompt_version", "generator_model", "application_version"] as const;

/** Characters of a run's notes shown before they are folded. */
const NOTES_SHOWN = 48;

/**
 * A run's notes, folded when long: `ragscope eval` records the evaluators it ran (hundreds of characters), and that
 * one narrow cell made every run's row a screen tall. The start stays in view; the whole note is one click away.
 */
function notesCell(notes: string | null | undefined): Markup {
  if (notes === null || notes === undefined || notes.length <= NOTES_SHOWN) return html`<td class="notes">${optional(notes)}</td>`;
  // Wide enough that the folded start takes one line (the table scrolls sideways already).
  return html`<td class="notes" style="min-width:24em"><details><summary>${notes.slice(0, NOTES_SHOWN)}…</summary>${notes}</details></td>`;
}

export function runsPage(viewer: Viewer, runs: readonly RunListing[]): Markup {
  // No run stored: an empty table and a form comparing nothing with nothing said nothing about how to get one.
  if (runs.length === 0) {
    return page("Runs", viewer, html`<p id="no-runs" class="muted">No run stored yet: <code>ragscope eval --dataset cases.yaml --task ./task.js</code> (or <code>ragscope demo</code>) stores one, and so does an application whose requests carry a run id. Two runs can then be compared side by side here.</p>`);
  }
  const body = html`<form method="get" action="/runs/compare"><label>Compare <select name="candidate">${runs.map((run) => html`<option>${run.runId}</option>`)}</select></label>
<label>against baseline <select name="baseline">${runs.map((run, index) => html`<option ${index === 1 ? "selected" : ""}>${run.runId}</option>`)}</select></label> <button type="submit">Compare</button></form>
<p class="muted">Lineage is what <code>ragscope eval</code> records with a dataset; a run that recorded none (an application tagged with a run id, or <code>ragscope eval --endpoint</code> with a token limited to some tenants) shows — for it.</p>
<table id="runs"><thead><tr><th>run</th><th>started (UTC)</th><th>cases</th>${LINEAGE_FIELDS.map((field) => html`<th>${field}</th>`)}<th>notes</th></tr></thead><tbody>
${runs.map(
  (run) =>
    html`<tr data-run-id="${run.runId}" data-lineage="${run.lineage === null ? "none" : "recorded"}"><td><a href="/traces?run=${encodeURIComponent(run.runId)}">${run.runId}</a></td><td>${utcTime(run.startedAt)}</td><td class="cases">${run.cases}</td>${LINEAGE_FIELDS.map((field) => html`<td>${optional(run.lineage?.[field])}</td>`)}${notesCell(run.lineage?.notes)}</tr>`,
)}
</tbody></table>`;
  return page("Runs", viewer, body);
}

/** The run summary's counts in the words the verdicts are written in elsewhere (a field name such as "reviewRequired" is no heading). */
const SUMMARY_ROWS = [
  ["cases", "cases"],
  ["passed", "passed"],
  ["failed", "failed"],
  ["reviewRequired", "review required"],
  ["unjudged", "unjudged"],
  ["notEvaluated", "not evaluated"],
  ["partial", "partial"],
] as const satisfies readonly (readonly [keyof RunSummary, string])[];

/** Four places as `ragscope eval` prints them, but a measured value that is not 0 never reads 0 (a cost of 0.00002, or its difference). */
const fixed = (value: number | null) => (value === null ? "—" : rounded(value, 4));

const listed = (keys: readonly string[], shown = 10) => (keys.length <= shown ? keys.join(", ") : `${keys.slice(0, shown).join(", ")} and ${keys.length - shown} more`);

/** Runs over other dataset versions (or splits) are compared on the cases both ran: which were left out, said above the metrics. */
function unpairedNote(comparison: RunComparison): Markup | string {
  if (comparison.candidateOnly.length === 0 && comparison.baselineOnly.length === 0) return "";
  const sides = [
    comparison.candidateOnly.length > 0 ? `${comparison.candidateOnly.length} only in the candidate (${listed(comparison.candidateOnly)})` : null,
    comparison.baselineOnly.length > 0 ? `${comparison.baselineOnly.length} only in the baseline (${listed(comparison.baselineOnly)})` : null,
  ].filter((side) => side !== null);
  return html`<p class="warning" id="unpaired">The runs ran other cases — ${sides.join("; ")}: another dataset version or split (a changed case has a new case_version). Only the ${comparison.pairedCases} cases both ran are compared below.</p>`;
}

/** The cases that flipped one way; "none" said, not an empty list that reads like a page still loading. */
const flipped = (id: string, caseIds: readonly string[]): Markup =>
  caseIds.length === 0 ? html`<p id="${id}" class="muted">None.</p>` : html`<ul id="${id}">${caseIds.map((caseId) => html`<li>${caseId}</li>`)}</ul>`;

/** A difference of the heuristic judge's measurements says so, as the run's metrics do (`ragscope eval`, the Quality page). */
const heuristicNote = (metric: MetricComparison): Markup | string => {
  const label = heuristicPairsLabel(metric);
  return label === null ? "" : html` <span class="heuristic muted">(${label})</span>`;
};

export function runComparePage(viewer: Viewer, candidate: RunSummary, baseline: RunSummary, comparison: RunComparison): Markup {
  const body = html`<section><table id="run-summaries"><thead><tr><th></th><th>${candidate.runId} (candidate)</th><th>${baseline.runId} (baseline)</th></tr></thead><tbody>
${SUMMARY_ROWS.map(([key, label]) => html`<tr data-count="${key}"><th>${label}</th><td>${candidate[key]}</td><td>${baseline[key]}</td></tr>`)}</tbody></table></section>
<section><h2>Metrics on ${comparison.pairedCases} paired cases</h2>${unpairedNote(comparison)}<table id="metric-differences"><thead><tr><th>metric</th><th>candidate</th><th>baseline</th><th>difference</th><th>interval (paired bootstrap, 95%)</th></tr></thead><tbody>
${comparison.metrics.map((metric) => html`<tr data-metric="${metric.metric}"><td>${labelOfMetric(metric.metric)}${heuristicNote(metric)}</td><td>${fixed(metric.candidateMean)}</td><td>${fixed(metric.baselineMean)}</td><td>${fixed(metric.interval.meanDifference)}</td><td>${metric.intervalWithheld === null ? `${fixed(metric.interval.low)} … ${fixed(metric.interval.high)} (${metric.interval.pairs} pairs)` : metric.intervalWithheld}</td></tr>`)}
</tbody></table></section>
<section><h2>Flipped cases</h2><p>McNemar exact p = ${fixed(comparison.mcnemar.pValue)}</p>
<h3>Regressed (passed in the baseline, not now)</h3>${flipped("regressed", comparison.regressed)}
<h3>Fixed (not passed in the baseline, passed now)</h3>${flipped("fixed", comparison.fixed)}</section>`;
  return page(`${candidate.runId} vs ${baseline.runId}`, viewer, body);
}
