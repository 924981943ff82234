/**
 * A filter form's text input. Its value is the text as given, so that the filter sent again matches what it matched;
 * an input shows that text with its control and bidirectional formatting characters applied (a right-to-left override
 * from a link reverses what the reviewer reads in the box), so a value holding one is also written beside the box,
 * where the page shows those characters by their code (markup.ts).
 */
import { holdsControlCharacters } from "../../core/control-characters.js";
import { html } from "./markup.js";
import type { Markup } from "./layout.js";

/** Tab, newline and carriage return are not shown by code in an input either. */
const KEPT = "\t\n\r";

export function filterInput(name: string, label: string, value: string, placeholder = ""): Markup {
  const shown = holdsControlCharacters(value, KEPT) ? html`<span class="muted filter-as-sent" data-filter="${name}">holds: ${value}</span>` : "";
  const box = placeholder === "" ? html`<input name="${name}" value="${value}">` : html`<input name="${name}" value="${value}" placeholder="${placeholder}">`;
  return html`<label>${label}${box}${shown}</label>`;
}
