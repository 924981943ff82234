/**
 * Do the answer's numbers, dates and entities agree with the reference
 * answer's (seed 004 §五.2 "数字、时间、实体是否准确", §九.1 rule checks)?
 * See text/fact-agreement.ts for extraction and matching; the answer is read
 * without its inline citation markers (answer-and-reference.ts), whose ids
 * ("refund-1") would otherwise count as numbers.
 *
 * number_agreement and date_agreement default to ">= 1": a wrong amount,
 * deadline or date is a wrong answer. entity_agreement has no default
 * threshold: entity finding without a model is the noisiest of the three.
 * Each is not applicable when the reference answer states none of its kind.
 * Contradictions (same unit, different value) are named in the reason.
 *
 * Several reference answers: each metric is the best over them (as the other
 * reference-based metrics), and the reason names the problems of the
 * reference the answer agrees with most.
 */
import { answerAndReference } from "./answer-and-reference.js";
import type { Evaluator, MetricDescriptor } from "../evaluator.js";
import { notApplicable, type MetricValue } from "../metric-value.js";
import { bestValue } from "../text/best-over-references.js";
import { factAgreement, type FactAgreement } from "../text/fact-agreement.js";
import { metricKeys } from "../metric-keys.js";

const metrics: MetricDescriptor[] = [
  { name: "number_agreement", description: "numbers (with units) of the reference answer the answer also states / all of them", range: [0, 1], direction: "higher_is_better", defaultThreshold: ">= 1", ruleInSeed: "004 §九.1 规则评测: 数字、日期、实体匹配" },
  { name: "date_agreement", description: "dates of the reference answer the answer also states / all of them", range: [0, 1], direction: "higher_is_better", defaultThreshold: ">= 1", ruleInSeed: "004 §九.1 规则评测: 数字、日期、实体匹配" },
  { name: "entity_agreement", description: "ids, quoted terms and capitalised names of the reference answer the answer also names / all of them", range: [0, 1], direction: "higher_is_better", defaultThreshold: null, ruleInSeed: "004 §九.1 规则评测: 数字、日期、实体匹配" },
];

function allNotApplicable(reason: string) {
  const value = notApplicable(reason);
  return { values: { number_agreement: value, date_agreement: value, entity_agreement: value }, reason: `not applicable: ${reason}`, evidence: [] };
}

/** Sum of the applicable values: which reference the answer agrees with most. */
const agreementSum = (agreement: FactAgreement) =>
  [agreement.numberAgreement, agreement.dateAgreement, agreement.entityAgreement].reduce((sum, value) => sum + (value.applicable ? value.value : 0), 0);

const formatNumber = (mention: { value: number; unit: string | null }) => `${mention.value}${mention.unit === null ? "" : ` ${mention.unit}`}`;

/** The metrics this evaluator produces (generation layer). */
export const answerFactAgreementMetrics = metricKeys(["number_agreement", "date_agreement", "entity_agreement"]);

export const answerFactAgreementEvaluator: Evaluator = {
  id: "answer.fact_agreement",
  // 2: durations agree across units (1年 = 12个月), and citation markers ([refund-1]) are no numbers of the answer.
  version: "2",
  layer: "generation",
  description: "Agreement of the answer's numbers, dates and entities with the reference answer",
  requires: ["case", "reference_answer"],
  costClass: "rule",
  confidence: "heuristic",
  metrics,
  evaluate({ caseResult, evalCase }) {
    const texts = answerAndReference(caseResult, evalCase);
    if (!texts.ok) return allNotApplicable(texts.error);
    const { answer, references } = texts.value;
    const agreements = references.map((reference) => factAgreement(answer, reference));
    const agreement = agreements.reduce((best, candidate) => (agreementSum(candidate) > agreementSum(best) ? candidate : best));
    const best = (pick: (candidate: FactAgreement) => MetricValue) => bestValue(agreements.map(pick));
    const problems = [
      ...agreement.contradictions.map((contradiction) => `contradiction: the reference says ${formatNumber(contradiction.reference)}, the answer says ${contradiction.answer.map(formatNumber).join(" / ")}`),
      ...agreement.missingNumbers.filter((mention) => !agreement.contradictions.some((contradiction) => contradiction.reference === mention)).map((mention) => `number ${formatNumber(mention)} ("${mention.text}") missing`),
      ...agreement.missingDates.map((mention) => `date ${mention.iso} ("${mention.text}") missing`),
      ...agreement.missingEntities.map((mention) => `entity "${mention.name}" missing`),
    ];
    const values = { number_agreement: best((candidate) => candidate.numberAgreement), date_agreement: best((candidate) => candidate.dateAgreement), entity_agreement: best((candidate) => candidate.entityAgreement) };
    const checked = Object.values(values).some((value) => value.applicable);
    const reason = !checked ? "the reference answer states no number, date or entity to check" : problems.length === 0 ? "every number, date and entity of the reference answer is in the answer" : problems.join("; ");
    return { values, reason, evidence: [] };
  },
};
