/**
 * Do the answer's numbers, dates and entities agree with the reference
 * answer's (seed 004 §五.2 "数字、时间、实体是否准确")?
 *
 * number_agreement = distinct reference numbers the answer also states
 *                    (numbersAgree: same value, same unit or no unit on one
 *                    side; durations equal in other units agree, 1年 =
 *                    12个月, 1 week = 7 days) / distinct reference numbers;
 * date_agreement   = distinct reference dates the answer also states
 *                    (datesAgree: 7月8日 agrees with 2026-07-08) / distinct
 *                    reference dates;
 * entity_agreement = distinct reference entities whose text, after
 *                    normalizeText without spaces, occurs in the answer /
 *                    distinct reference entities.
 * Each is not applicable when the reference has none of that kind.
 *
 * A contradiction is a reference number the answer does not state while the
 * answer states another value of the same measure (reference "15天", answer
 * "7天"; reference "1年", answer "6个月"). Counting units (个, 件, 次, 人) are left out: two
 * counts of them are usually counts of different things.
 */
import { applicable, notApplicable, type MetricValue } from "../metric-value.js";
import { datesAgree, type DateMention } from "./date-mentions.js";
import type { EntityMention } from "./entity-mentions.js";
import { extractFacts, type FactMentions } from "./fact-mentions.js";
import { compactText } from "./normalize-text.js";
import { COUNT_UNITS, measureOf, numbersAgree, type NumberMention } from "./number-mentions.js";

export interface NumberContradiction {
  unit: string;
  reference: NumberMention;
  /** The answer's values in that unit that no reference number has. */
  answer: NumberMention[];
}

export interface FactAgreement {
  numberAgreement: MetricValue;
  dateAgreement: MetricValue;
  entityAgreement: MetricValue;
  missingNumbers: NumberMention[];
  missingDates: DateMention[];
  missingEntities: EntityMention[];
  contradictions: NumberContradiction[];
}

/** The first mention of each distinct fact, by a key. */
function distinct<T>(mentions: readonly T[], key: (mention: T) => string): T[] {
  const seen = new Map<string, T>();
  for (const mention of mentions) if (!seen.has(key(mention))) seen.set(key(mention), mention);
  return [...seen.values()];
}

function fraction(found: number, total: number, what: string): MetricValue {
  return total === 0 ? notApplicable(`the reference answer states no ${what}`) : applicable(found / total);
}

export function numberIsStated(reference: Pick<NumberMention, "value" | "unit">, answer: FactMentions): boolean {
  return answer.numbers.some((mention) => numbersAgree(reference, mention));
}

export function dateIsStated(reference: DateMention, answer: FactMentions): boolean {
  return answer.dates.some((mention) => datesAgree(reference, mention));
}

export function compareFacts(answerText: string, reference: FactMentions, answer: FactMentions = extractFacts(answerText)): FactAgreement {
  // 满一年（12个月）states one duration, not two.
  const numbers = distinct(reference.numbers, (mention) => {
    const measure = measureOf(mention);
    return `${measure.amount}|${measure.dimension}`;
  });
  const dates = distinct(reference.dates, (mention) => mention.iso);
  const entities = distinct(reference.entities, (mention) => compactText(mention.name)).filter((mention) => compactText(mention.name) !== "");
  const compactAnswer = compactText(answerText);

  const missingNumbers = numbers.filter((mention) => !numberIsStated(mention, answer));
  const missingDates = dates.filter((mention) => !dateIsStated(mention, answer));
  const missingEntities = entities.filter((mention) => !compactAnswer.includes(compactText(mention.name)));

  const contradictions: NumberContradiction[] = [];
  for (const missing of missingNumbers) {
    if (missing.unit === null || COUNT_UNITS.has(missing.unit)) continue;
    // Another value of the same measure: 15天 against 7天, and 1年 against 6个月.
    const others = answer.numbers.filter((mention) => mention.unit !== null && measureOf(mention).dimension === measureOf(missing).dimension && !numbers.some((stated) => numbersAgree(stated, mention)));
    if (others.length > 0) contradictions.push({ unit: missing.unit, reference: missing, answer: others });
  }

  return {
    numberAgreement: fraction(numbers.length - missingNumbers.length, numbers.length, "number"),
    dateAgreement: fraction(dates.length - missingDates.length, dates.length, "date"),
    entityAgreement: fraction(entities.length - missingEntities.length, entities.length, "entity"),
    missingNumbers,
    missingDates,
    missingEntities,
    contradictions,
  };
}

export function factAgreement(answer: string, reference: string): FactAgreement {
  return compareFacts(answer, extractFacts(reference));
}
