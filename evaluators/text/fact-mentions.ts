/**
 * The checkable facts of a text — dates, numbers with units and entities — in
 * one pass (seed 004 §五.2 "数字、时间、实体是否准确", §九.1).
 *
 * Order matters and is fixed: the text is NFKC-normalised (full-width digits
 * and letters become ASCII), identifiers are found first (ABC-123 is not the
 * number 123), then dates (2026-07-08 is not the numbers 2026, 7, 8), then
 * numbers in what is left. Quoted terms are read from the whole text, so a
 * quoted "3天无理由" still gives the number 3 day; names from the text without
 * dates, so "July 8" is not a name.
 */
import { findDates, type DateMention } from "./date-mentions.js";
import { findIdentifiers, findNames, findQuotedTerms, type EntityMention } from "./entity-mentions.js";
import { findNumbers, type NumberMention } from "./number-mentions.js";

export interface FactMentions {
  numbers: NumberMention[];
  dates: DateMention[];
  entities: EntityMention[];
}

export function extractFacts(text: string): FactMentions {
  const normalized = text.normalize("NFKC");
  const { identifiers, rest: withoutIdentifiers } = findIdentifiers(normalized);
  const { dates, rest: withoutDates } = findDates(withoutIdentifiers);
  const { numbers } = findNumbers(withoutDates);
  const entities = [...identifiers, ...findQuotedTerms(normalized), ...findNames(withoutDates)].sort((first, second) => first.start - second.start);
  return { numbers, dates, entities };
}
