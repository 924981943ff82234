/** The range and filter form shared by the "Quality over time" and "Failures" pages. */
import { html } from "hono/html";
import type { QualityScope } from "../../store/ports/quality-reader.js";
import type { Markup } from "./layout.js";

export const isoMinute = (epochMs: number) => new Date(epochMs).toISOString().slice(0, 16);

export function boardFilters(action: string, scope: QualityScope, services: readonly string[]): Markup {
  return html`<form class="filters" method="get" action="${action}">
<label>service<select name="service"><option value="">all services</option>${services.map((service) => html`<option value="${service}" ${service === scope.service ? "selected" : ""}>${service}</option>`)}</select></label>
<label>run<input name="run" value="${scope.runId ?? ""}"></label>
<label>from (UTC)<input name="from" value="${isoMinute(scope.fromMs)}"></label>
<label>to (UTC)<input name="to" value="${isoMinute(scope.toMs)}"></label>
<label>&nbsp;<button type="submit">Show</button></label></form>
<p class="muted" id="bucket">${isoMinute(scope.fromMs)} – ${isoMinute(scope.toMs)} UTC, one point per ${bucketText(scope.bucketSeconds)}.</p>`;
}

function bucketText(seconds: number): string {
  if (seconds % 86_400 === 0) return seconds === 86_400 ? "day" : `${seconds / 86_400} days`;
  if (seconds % 3600 === 0) return seconds === 3600 ? "hour" : `${seconds / 3600} hours`;
  if (seconds % 60 === 0) return seconds === 60 ? "minute" : `${seconds / 60} minutes`;
  return `${seconds} seconds`;
}
