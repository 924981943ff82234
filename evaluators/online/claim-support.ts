/**
 * Is one claim supported by the context, without a model (issue 6: "each
 * checked for support in the context by content words, numbers and
 * entities")?
 *
 * A claim is supported when both hold:
 * 1. words: the distinct content units of the claim (content-units.ts) found
 *    in the context / all its distinct content units >= CLAIM_SUPPORT_THRESHOLD
 *    (0.6, the same "mostly" as key-point coverage: a paraphrase may change a
 *    third of the wording; a sentence that only shares its topic word with the
 *    context does not pass);
 * 2. facts: every number (with its unit), date and entity the claim states is
 *    stated in the context too (text/fact-mentions.ts, fact-agreement.ts). A
 *    changed number is the classic hallucination, and its words alone match.
 *    A claim may be less precise than its source: a claim's date is stated
 *    when a context date has every component the claim names ("September
 *    1933" and "1933年" are stated by "September 1, 1933"), and a bare year
 *    ("in 1933": a whole number from 1000 to 2999 without a unit; "1933年" is
 *    read as a date already) is stated by a context date of that year.
 * A sentence with fewer than MIN_CLAIM_UNITS (2) distinct content units and
 * no fact ("好的。", "可以。", "Yes.") is not a claim: nothing in it can be
 * checked against a context.
 */
import type { DateMention } from "../text/date-mentions.js";
import { numberIsStated } from "../text/fact-agreement.js";
import { extractFacts, type FactMentions } from "../text/fact-mentions.js";
import type { NumberMention } from "../text/number-mentions.js";
import { compactText } from "../text/normalize-text.js";
import { BoundedMemo } from "../text/bounded-memo.js";
import { unitRecall, unitSet } from "./content-units.js";

export const CLAIM_SUPPORT_THRESHOLD = 0.6;
export const MIN_CLAIM_UNITS = 2;

export interface ClaimVerdict {
  claim: string;
  supported: boolean;
  /** Share of the claim's content units found in the context; null when it has none. */
  unitRecall: number | null;
  /** Numbers, dates and entities of the claim the context does not state, as written. */
  missingFacts: string[];
}

/** The context, prepared once for many claims. */
export interface SupportContext {
  readonly units: ReadonlySet<string>;
  readonly facts: FactMentions;
  readonly compact: string;
}

/**
 * The context's facts and compact text are worked out when a claim first
 * needs them: only a claim that states a number or a date reads the facts,
 * only one that names an entity reads the compact text, and many answers
 * state neither. Both are pure functions of the text, so when they are
 * computed changes nothing but the time.
 */
class PreparedContext implements SupportContext {
  readonly units: ReadonlySet<string>;
  private factsOfText: FactMentions | undefined;
  private compactOfText: string | undefined;

  constructor(readonly text: string) {
    this.units = unitSet(text);
  }

  get facts(): FactMentions {
    return (this.factsOfText ??= extractFacts(this.text));
  }

  get compact(): string {
    return (this.compactOfText ??= compactText(this.text));
  }
}

/**
 * Remembered per context text (bounded-memo.ts, about 8 MB at most): the same
 * packed context is checked by several evaluators of a trace and recurs
 * across traces; a SupportContext is read-only, so sharing it changes nothing.
 * Its size is counted as the compact text would be (about the text's length,
 * whether or not it was worked out yet) and the units.
 */
const prepared = new BoundedMemo<PreparedContext>(4_000_000, 65_536, (support) => support.text.length + 4 * support.units.size);

export function prepareSupportContext(context: string): SupportContext {
  return prepared.get(context, (text) => new PreparedContext(text));
}

/** Every component the claim's date names (year, month, day) equals the context date's. */
function dateIsSupported(claim: DateMention, context: FactMentions): boolean {
  return context.dates.some(
    (stated) =>
      (claim.year === null || claim.year === stated.year) &&
      (claim.month === null || claim.month === stated.month) &&
      (claim.day === null || claim.day === stated.day),
  );
}

/** A whole number that reads as a year: 1000–2999 without a unit. */
function readsAsYear(mention: Pick<NumberMention, "value" | "unit">): boolean {
  return Number.isInteger(mention.value) && mention.value >= 1000 && mention.value <= 2999 && mention.unit === null;
}

function numberIsSupported(claim: NumberMention, context: FactMentions): boolean {
  if (numberIsStated(claim, context)) return true;
  return readsAsYear(claim) && context.dates.some((stated) => stated.year === claim.value);
}

/** Null when the text is no claim (nothing to check). */
export function checkClaim(claim: string, context: SupportContext): ClaimVerdict | null {
  const words = unitRecall(claim, context.units);
  const facts = extractFacts(claim);
  const factCount = facts.numbers.length + facts.dates.length + facts.entities.length;
  if (words.found.length + words.missing.length < MIN_CLAIM_UNITS && factCount === 0) return null;
  const missingFacts = [
    ...facts.numbers.filter((mention) => !numberIsSupported(mention, context.facts)).map((mention) => mention.text.trim()),
    ...facts.dates.filter((mention) => !dateIsSupported(mention, context.facts)).map((mention) => mention.text.trim()),
    ...facts.entities.filter((mention) => compactText(mention.name) !== "" && !context.compact.includes(compactText(mention.name))).map((mention) => mention.name),
  ];
  const wordsSupported = words.recall === null || words.recall >= CLAIM_SUPPORT_THRESHOLD;
  return { claim, supported: wordsSupported && missingFacts.length === 0, unitRecall: words.recall, missingFacts };
}
