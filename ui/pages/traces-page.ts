/** The Traces page: filters, the newest traces first, keyset paging; the first page refreshes itself (live-script.ts). */
import { filterInput } from "./filter-input.js";
import { html } from "./markup.js";
// A latency of 0.04 ms is not "0.0": one place, or two significant digits where one would write it as 0.
import { rounded } from "../../report/format-value.js";
import { UNATTRIBUTED } from "../../evaluators/root-cause/root-cause-labels.js";
import { rootCauseMeaningText } from "./root-cause-meaning.js";
import { qualityStatus } from "../../contracts/case-result.js";
import type { TracePage, TraceSummary } from "../../store/ports/trace-reader.js";
import { traceAddress } from "./trace-address.js";
import type { FinalVerdict, HumanVerdict } from "../../evaluators/reviewed-verdict.js";
import { optional, page, verdictBadge, type Markup, type Viewer } from "./layout.js";
import { encodeCursor, FILTER_PARAMETERS, ROOT_CAUSE_FILTER_VALUES } from "./trace-query.js";
import { utcTime } from "./utc-time.js";

export interface ListedTrace extends TraceSummary {
  human: HumanVerdict | null;
  /** The verdict every surface counts (evaluators/reviewed-verdict.ts): the reviewers' where they decided, else the automatic one. */
  final: FinalVerdict;
}

/**
 * A listed trace's final verdict: marked human when reviewers decided it; when their agreed pass was set aside
 * (the request did not complete), the failed verdict with the reason, never the pass and never silently.
 */
export function listedVerdict(trace: Pick<ListedTrace, "final">): Markup {
  const final = trace.final;
  if (final.reviewedBy.length > 0) return verdictBadge(final.verdict, true);
  if (final.reviewSetAside === null) return verdictBadge(final.verdict, false);
  return html`${verdictBadge(final.verdict, false)} <span class="review-state muted" data-review-state="set-aside">${final.reviewSetAside}</span>`;
}

const clip = (text: string | null, length = 120) => (text === null ? null : text.length > length ? `${text.slice(0, length)}…` : text);

export function traceRows(traces: readonly ListedTrace[]): Markup {
  return html`${traces.map(
    (trace) => html`<tr data-case-result-id="${trace.caseResultId}">
<td>${utcTime(trace.startedAt)}</td>
<td><a href="${traceAddress(trace.caseResultId, trace.traceId)}">${trace.traceId || trace.caseResultId}</a></td>
<td>${optional(trace.serviceName)}</td><td>${optional(trace.tenantId)}</td><td>${optional(trace.route)}</td><td>${optional(trace.runId)}</td><td>${optional(trace.datasetId)}</td>
<td>${listedVerdict(trace)}</td>
<td title="${rootCauseMeaningText(trace.rootCause)}">${optional(trace.rootCause)}</td><td class="latency" title="${trace.latencyMs ?? ""}">${optional(trace.latencyMs === null ? null : rounded(trace.latencyMs, 1))}</td>
<td class="text" title="${trace.query ?? ""}">${optional(clip(trace.query))}</td><td class="text" title="${trace.output ?? ""}">${optional(clip(trace.output))}</td></tr>`,
  )}`;
}

/** A filter's choices; `shown` gives an option's text where the value alone would not say what it selects. */
function select(name: string, label: string, values: readonly string[], chosen: string | null, shown: (value: string) => string = (value) => value): Markup {
  return html`<label>${label}<select name="${name}"><option value="">any</option>${values.map((value) => html`<option value="${value}" ${value === chosen ? "selected" : ""}>${shown(value)}</option>`)}</select></label>`;
}

/** UNATTRIBUTED is no label: its option says which requests it lists, as the Failures page names them. */
const rootCauseOption = (value: string): string => (value === UNATTRIBUTED ? `${UNATTRIBUTED} (failed, without a root-cause label)` : value);

/**
 * The address of the page after this one, or null at the end of the list. The live list's rows endpoint sends it
 * too (header LIST_END_HEADER): rows refreshed at the top move the page's last row, and with it where the next
 * page starts.
 */
export function olderTracesHref(parameters: URLSearchParams, next: TracePage["next"]): string | null {
  if (next === null) return null;
  const nextParameters = new URLSearchParams(parameters);
  nextParameters.set("after", encodeCursor(next));
  return `/traces?${nextParameters.toString()}`;
}

/** The header of the live list's rows: where the page after them starts; empty at the end of the list. */
export const LIST_END_HEADER = "Ragscope-Older-Traces";

/** Why the list is empty, naming the filters given (a metric bound that no trace's value meets is not a typo in the service). */
function emptyListMessage(parameters: URLSearchParams): string {
  const given = FILTER_PARAMETERS.filter((name) => (parameters.get(name) ?? "").trim() !== "").map((name) => `${name}=${parameters.get(name)!.trim()}`);
  if (given.length === 0) return "No traces stored yet: send spans to this collector's OTLP/HTTP receiver (ragscope serve prints its address), or run ragscope demo.";
  return `No stored trace meets ${given.join(", ")}: a service, tenant, route, run or dataset must match exactly (so must a trace id or case result id given as q), and a metric bound matches only traces with a value of that metric beyond it; widen or clear them.`;
}

export function tracesPage(viewer: Viewer, parameters: URLSearchParams, listed: TracePage & { traces: ListedTrace[] }, error: string | null): Markup {
  const value = (name: string) => parameters.get(name) ?? "";
  const input = (name: string, label: string, placeholder = "") => filterInput(name, label, value(name), placeholder);
  const older = olderTracesHref(parameters, listed.next);
  // A query in error lists nothing, and its live refresh would ask again for the same 400 every time a trace arrives.
  const live = !parameters.has("after") && error === null;
  const body = html`<form class="filters" method="get" action="/traces">
${input("service", "service")}${input("tenant", "tenant")}${input("route", "route")}${input("run", "run")}${input("dataset", "dataset")}
${select("verdict", "verdict", qualityStatus.options, parameters.get("verdict"))}${select("root_cause", "root cause", ROOT_CAUSE_FILTER_VALUES, parameters.get("root_cause"), rootCauseOption)}
${input("metric", "metric", "context_recall")}${input("below", "below", "0.5")}${input("above", "above")}
${input("from", "from (UTC)", "2026-07-08T09:00")}${input("to", "to (UTC)", "2026-07-08T10:00")}${input("q", "text in query or answer, or a trace id", "refund, or a 32-hex trace id")}
<label>&nbsp;<button type="submit">Filter</button></label></form>
${error === null ? "" : html`<p class="error" id="error">${error}</p>`}
<p class="muted" id="live-status" data-mode="${live ? "starting" : "off"}">${live ? "Live: new traces appear at the top." : error === null ? "Older page (not refreshed)." : "Not refreshed: fix the filters above."}</p>
<table id="traces"><thead><tr><th>started (UTC)</th><th>trace</th><th>service</th><th>tenant</th><th>route</th><th>run</th><th>dataset</th><th>verdict</th><th>root cause</th><th>latency (ms)</th><th>query</th><th>answer</th></tr></thead>
<tbody id="trace-rows" ${live ? html`data-live="/traces/rows?${parameters.toString()}" data-events="/api/traces/stream"` : ""}>${traceRows(listed.traces)}</tbody></table>
<p id="list-end">${older !== null ? html`<a id="older" href="${older}">Older traces →</a>` : error === null ? html`<span class="muted">End of the list.</span>` : ""}</p>
${listed.traces.length === 0 && error === null ? html`<p id="list-empty" class="muted">${emptyListMessage(parameters)}</p>` : ""}`;
  return page("Traces", viewer, body, ["/static/live.js"]);
}
