/** How a reviewer's label reads on the trace and review pages. */
import { html } from "./markup.js";
import type { Markup } from "./layout.js";

/**
 * A reviewer's label as they gave it. A root cause is stored as a label of metric `root_cause` whose note is the
 * cause (review-page.ts) and whose verdict is the store's placeholder: shown as the cause, not as a "fail" verdict
 * the reviewer never chose.
 */
export function humanLabelText(label: { metric: string; verdict: string; note: string }): Markup {
  if (label.metric === "root_cause") return label.note === "" ? html`root cause withdrawn (none)` : html`root cause ${label.note}`;
  return html`${label.metric} ${label.verdict}${label.note === "" ? "" : html` — ${label.note}`}`;
}
