/** The range and filter form shared by the "Quality over time" and "Failures" pages. */
import { filterInput } from "./filter-input.js";
import { html } from "./markup.js";
import type { QualityScope } from "../../store/ports/quality-reader.js";
import type { Markup } from "./layout.js";

export const isoMinute = (epochMs: number) => new Date(epochMs).toISOString().slice(0, 16);

export function boardFilters(action: string, scope: QualityScope, services: readonly string[]): Markup {
  // A service the range does not hold (from a link or an edited address) stays chosen: the select showed "all
  // services" while the board was filtered by it, and the next "Show" dropped the filter.
  const offered = scope.service === undefined || services.includes(scope.service) ? services : [...services, scope.service];
  return html`<form class="filters" method="get" action="${action}">
<label>service<select name="service"><option value="">all services</option>${offered.map((service) => html`<option value="${service}" ${service === scope.service ? "selected" : ""}>${service}</option>`)}</select></label>
${filterInput("run", "run", scope.runId ?? "")}
<label>from (UTC)<input name="from" value="${isoMinute(scope.fromMs)}"></label>
<label>to (UTC)<input name="to" value="${isoMinute(scope.toMs)}"></label>
<label>&nbsp;<button type="submit">Show</button></label></form>
<p class="muted" id="bucket">${isoMinute(scope.fromMs)} – ${isoMinute(scope.toMs)} UTC, one point per ${bucketText(scope.bucketSeconds)}.</p>`;
}

/**
 * A board's page for a query it refused (400): the error, above the same form holding the values as they were given,
 * so they can be corrected where they are rather than typed again from the address bar.
 */
export function boardRefusedPage(action: string, parameters: URLSearchParams, error: string): Markup {
  const given = (name: string) => parameters.get(name) ?? "";
  return html`<p class="error" id="error">${error}</p>
<form class="filters" method="get" action="${action}">
${filterInput("service", "service", given("service"))}
${filterInput("run", "run", given("run"))}
${filterInput("from", "from (UTC)", given("from"))}
${filterInput("to", "to (UTC)", given("to"))}
<label>&nbsp;<button type="submit">Show</button></label></form>`;
}

/**
 * Why a board is empty (every value "no data", no failing request): no stored request started in the range, or
 * none of them matches the run or service asked for (a run id is typed, and a mistyped one read as a run that
 * measured nothing).
 */
export function emptyBoardMessage(scope: QualityScope): Markup {
  const filters = [scope.service === undefined ? null : `service=${scope.service}`, scope.runId === undefined ? null : `run=${scope.runId}`].filter((filter) => filter !== null);
  return html`<p id="board-empty" class="muted">No stored request started in this range${filters.length === 0 ? "" : ` with ${filters.join(", ")}`}: ${filters.length === 0 ? "widen from/to, or send traces (ragscope serve prints its OTLP address) or run ragscope eval" : "check the run id on the Runs page, clear the filter or widen from/to"}.</p>`;
}

function bucketText(seconds: number): string {
  if (seconds % 86_400 === 0) return seconds === 86_400 ? "day" : `${seconds / 86_400} days`;
  if (seconds % 3600 === 0) return seconds === 3600 ? "hour" : `${seconds / 3600} hours`;
  if (seconds % 60 === 0) return seconds === 60 ? "minute" : `${seconds / 60} minutes`;
  return `${seconds} seconds`;
}
