/**
 * The seed's weighted quality score (004 §六.2):
 *   Score = 0.25 R + 0.25 F + 0.25 C + 0.15 Comp + 0.10 Cit
 * R answer relevance, F faithfulness, C answer correctness, Comp completeness,
 * Cit citation accuracy, each in [0, 1].
 *
 * Terms whose metric has no value (no evaluator produced it, e.g. the judge
 * metrics when no judge ran) are listed in `missingTerms`, and the score is
 * then the weighted mean of the present terms — Σ wᵢ·vᵢ / Σ wᵢ over present i —
 * with `renormalised: true`, `coveredWeight` (the weights it stands on) and a
 * note saying so. It is never silently renormalised, and never reported
 * without the hard gates (quality-score.ts): the seed warns that a weighted
 * sum hides severe problems.
 */
import { applicable, notApplicable, type MetricValue } from "../metric-value.js";
import { METRIC } from "../metric-catalog.js";

export type CompositeTermName = "R" | "F" | "C" | "Comp" | "Cit";

export interface CompositeTermDefinition {
  term: CompositeTermName;
  metric: string;
  weight: number;
}

/** Metric names are the seed's gate names (004 §十三). */
export const COMPOSITE_TERMS: readonly CompositeTermDefinition[] = [
  { term: "R", metric: METRIC.answer_relevance, weight: 0.25 },
  { term: "F", metric: METRIC.faithfulness, weight: 0.25 },
  { term: "C", metric: METRIC.answer_correctness, weight: 0.25 },
  { term: "Comp", metric: METRIC.completeness, weight: 0.15 },
  { term: "Cit", metric: METRIC.citation_accuracy, weight: 0.1 },
];

export interface CompositeTerm extends CompositeTermDefinition {
  value: MetricValue;
}

export interface CompositeScore {
  score: MetricValue;
  terms: CompositeTerm[];
  missingTerms: CompositeTermName[];
  /** Sum of the weights of the present terms; 1 when nothing is missing. */
  coveredWeight: number;
  renormalised: boolean;
  note: string;
}

export function compositeScore(values: Partial<Record<CompositeTermName, MetricValue>>, definitions: readonly CompositeTermDefinition[] = COMPOSITE_TERMS): CompositeScore {
  const terms = definitions.map((definition) => ({ ...definition, value: values[definition.term] ?? notApplicable(`no value for ${definition.metric}`) }));
  const present = terms.filter((term) => term.value.applicable);
  const missingTerms = terms.filter((term) => !term.value.applicable).map((term) => term.term);
  const coveredWeight = present.reduce((sum, term) => sum + term.weight, 0);
  const totalWeight = terms.reduce((sum, term) => sum + term.weight, 0);
  if (present.length === 0) return { score: notApplicable("none of the score's metrics has a value"), terms, missingTerms, coveredWeight: 0, renormalised: false, note: "no term available" };
  const weighted = present.reduce((sum, term) => sum + term.weight * (term.value.applicable ? term.value.value : 0), 0);
  const renormalised = missingTerms.length > 0;
  const note = renormalised
    ? `renormalised over the present terms (weight ${round(coveredWeight)} of ${round(totalWeight)}); missing: ${terms.filter((term) => !term.value.applicable).map((term) => `${term.term} (${term.metric})`).join(", ")}`
    : "all terms present";
  return { score: applicable(weighted / coveredWeight), terms, missingTerms, coveredWeight, renormalised, note };
}

function round(value: number): string {
  return String(Math.round(value * 1000) / 1000);
}
