/**
 * A stored time as every page shows it: "2026-07-08 09:00:00.000" in a
 * <time> element whose datetime is the stored ISO 8601 text, under a column or
 * row headed "(UTC)". Pages showed the list's form, the raw ISO text and
 * others side by side; one form lets a reviewer compare times across pages.
 * Text that is not an ISO time in UTC is shown as it is.
 */
import { html } from "./markup.js";
import type { Markup } from "./layout.js";

const ISO_UTC = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2}(?:\.\d+)?)Z$/;

export function utcTime(iso: string): Markup {
  const parts = ISO_UTC.exec(iso);
  return parts === null ? html`${iso}` : html`<time datetime="${iso}">${parts[1]} ${parts[2]}</time>`;
}
