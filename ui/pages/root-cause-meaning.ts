/**
 * A root-cause label's meaning as the web UI shows it: the English first, for
 * readers who do not read Chinese, then the seed's own wording (004 §十) in
 * parentheses and as the title, so the contract's text stays visible.
 */
import { html } from "./markup.js";
import { rootCauseMeaning } from "../../evaluators/root-cause/root-cause-labels.js";
import type { Markup } from "./layout.js";

/** Empty for a name that is no label (UNATTRIBUTED, or one a newer evaluator wrote): nothing is guessed. */
export function rootCauseMeaningMarkup(label: string): Markup | "" {
  const meaning = rootCauseMeaning(label);
  if (meaning === null) return "";
  if (meaning.seedWording === null) return html`<span class="root-cause-meaning">${meaning.english}</span>`;
  return html`<span class="root-cause-meaning" title="Seed 004 §十: ${meaning.seedWording}">${meaning.english}</span> <span class="muted seed-wording" lang="zh">(${meaning.seedWording})</span>`;
}

/** The same as text, where no markup can go (a title, a select's option): the English, then the seed's wording in parentheses. */
export function rootCauseMeaningText(label: string | null): string {
  const meaning = label === null ? null : rootCauseMeaning(label);
  if (meaning === null) return "";
  return meaning.seedWording === null ? meaning.english : `${meaning.english} (${meaning.seedWording})`;
}
