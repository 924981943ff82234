/**
 * The weighted score as a decision reads it: the gate rules composite_score and overall_score_drop, and `eval`'s
 * overall-score line beside the hard thresholds.
 *
 * A renormalised score (composite-score.ts) stands on part of its weights — on citation accuracy's 0.10 alone when no
 * judge ran — and a threshold passed by it would say the run's quality was shown when a tenth of it was. So it is not
 * a measurement a decision reads: not applicable, with a reason naming the missing terms, who did (not) score each,
 * and what to configure (judged-metric-missing.ts, the wording of the gate's judged rules). The score itself is
 * unchanged where it is stored and shown. Terms of weight 0 (the gate file's score_weights) are not part of the score,
 * so they are never missing: a file that scores only some terms says so itself.
 */
import { notApplicable, type MetricValue } from "../metric-value.js";
import { isMetricName, METRIC_SEMANTICS } from "../metric-catalog.js";
import type { CompositeScore, CompositeTerm } from "./composite-score.js";
import type { EvaluatedCase } from "./evaluated-case.js";
import { CONFIGURE_A_JUDGE, whoScoredIt } from "./judged-metric-missing.js";
import { meanOfMetric } from "./metric-mean.js";

/** A judge measures the term's metric, or the judged metric its heuristic stands in for (completeness → completeness_judged). */
function judgedBy(metric: string): "judge" | "judged_metric" | null {
  if (!isMetricName(metric)) return null;
  const entry = METRIC_SEMANTICS[metric];
  if (entry.semantics === "judge") return "judge";
  return entry.semantics === "heuristic" && entry.judgedAs !== undefined ? "judged_metric" : null;
}

/** Why the term has no value, in the judged rules' words when a judge would give it one. */
function whyMissing(term: CompositeTerm, evaluatedCases: readonly EvaluatedCase[]): string {
  const judged = judgedBy(term.metric);
  if (judged === "judge") return whoScoredIt(meanOfMetric(evaluatedCases, term.metric).value.applicable);
  if (judged === "judged_metric" && isMetricName(term.metric)) {
    const entry = METRIC_SEMANTICS[term.metric];
    return `only a heuristic (${entry.evaluatorId}) measured it, which never decides, and no LLM judge scored ${entry.judgedAs}`;
  }
  return term.value.applicable ? "" : term.value.reason;
}

function rounded(value: number): string {
  return String(Math.round(value * 1000) / 1000);
}

/**
 * The composite's value for a decision: the score when every term of its weights has a value, else not applicable.
 * `evaluatedCases`: the cases the score was computed from, heuristic judgements included when there were any (they
 * tell "only the heuristic judge scored it" from "no judge scored it").
 */
export function compositeForDecision(composite: CompositeScore, evaluatedCases: readonly EvaluatedCase[]): MetricValue {
  if (!composite.score.applicable || !composite.renormalised) return composite.score;
  const missing = composite.terms.filter((term) => !term.value.applicable);
  const present = composite.terms.filter((term) => term.value.applicable);
  const totalWeight = composite.terms.reduce((sum, term) => sum + term.weight, 0);
  const needsJudge = missing.some((term) => judgedBy(term.metric) !== null);
  const described = missing.map((term) => `${term.term} (${term.metric}): ${whyMissing(term, evaluatedCases)}`).join("; ");
  return notApplicable(
    `the weighted score ${rounded(composite.score.value)} stands on weight ${rounded(composite.coveredWeight)} of ${rounded(totalWeight)} (renormalised over ${present.map((term) => `${term.term} (${term.metric})`).join(", ")}): a threshold read on it would pass on those terms alone — missing ${described}` +
      `${needsJudge ? ` — ${CONFIGURE_A_JUDGE}` : ""}; or leave a term out of the score with weight 0 in the gate file's score_weights`,
  );
}
