/**
 * Named things in an answer (seed 004 §五.2 "实体是否准确"), found without a
 * model:
 *
 * - identifiers: a Latin letter, letters or digits, then one or more "-" or
 *   "_" parts, with at least one digit (ABC-123, GPT-4o, SKU_2026), or two or
 *   more capitals followed by digits (SKU123);
 * - quoted terms: 「…」 『…』 “…” 《…》 "…" (up to 60 characters);
 * - capitalised English names of two or more words, joined by spaces and
 *   optionally "of" or "de" (Eiffel Tower, Bank of China), after dropping
 *   leading sentence words and weekdays (The, In, For, Monday, …). Read
 *   after dates are blanked, so "July 8" is not a name.
 *
 * Single capitalised words are not taken: every English sentence starts with
 * one. Chinese names outside quotes are not found (that needs a dictionary).
 *
 * Expects NFKC text (fact-mentions.ts normalises first).
 */
import { scanAndMask, type Span } from "./masked-scan.js";

export type EntityKind = "identifier" | "quoted" | "name";

export interface EntityMention extends Span {
  kind: EntityKind;
  /** The entity as written, without quotes. */
  name: string;
  text: string;
}

const IDENTIFIER = /(?<![A-Za-z0-9_-])(?:[A-Za-z][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)+|[A-Z]{2,}[0-9]+[A-Z0-9]*)(?![A-Za-z0-9_-])/g;
const QUOTED = /「([^」\n]{1,60})」|『([^』\n]{1,60})』|“([^”\n]{1,60})”|《([^》\n]{1,60})》|"([^"\n]{1,60})"/g;
const WORD = "(?:[A-Z][a-z]+(?:['’][a-z]+)?|[A-Z]{2,})";
const NAME = new RegExp(`(?<![A-Za-z])${WORD}(?:\\s+(?:(?:of|de)\\s+)?${WORD})+(?![A-Za-z])`, "g");

/** Capitalised words that start sentences rather than names. */
const LEADING_WORDS = new Set(["The", "A", "An", "In", "On", "At", "For", "To", "Of", "And", "But", "Or", "If", "When", "This", "That", "These", "Those", "Our", "Your", "Its", "It", "We", "You", "They", "He", "She", "Yes", "No", "Please", "According", "See", "Note",
  "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]);

export function findIdentifiers(text: string): { identifiers: EntityMention[]; rest: string } {
  const scan = scanAndMask(text, IDENTIFIER, (match) => (/\d/.test(match[0]) ? { kind: "identifier" as const, name: match[0] } : null));
  return { identifiers: scan.found, rest: scan.rest };
}

export function findQuotedTerms(text: string): EntityMention[] {
  return scanAndMask(text, QUOTED, (match) => {
    const name = match.slice(1).find((group) => group !== undefined)!.trim();
    return name === "" ? null : { kind: "quoted" as const, name };
  }).found;
}

export function findNames(text: string): EntityMention[] {
  return scanAndMask(text, NAME, (match) => {
    const words = match[0].split(/\s+/);
    while (words.length > 0 && LEADING_WORDS.has(words[0]!)) words.shift();
    return words.length >= 2 ? { kind: "name" as const, name: words.join(" ") } : null;
  }).found;
}
