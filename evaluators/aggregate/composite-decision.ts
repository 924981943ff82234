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
 *
 * A term whose evaluation errored on some case (a judge's timeout or refusal) is a mean over the other cases, which
 * cannot stand for the run: a judge that declines exactly the worst answers leaves the good ones. The gate reads a rule
 * on that metric itself as ERROR (errored-evaluations.ts), so a score averaging it is an error too, never a pass on
 * the partial mean: compositeErrors names each such term with its counts by error type and the fix.
 */
import { notApplicable, type MetricValue } from "../metric-value.js";
import { isMetricName, METRIC_SEMANTICS } from "../metric-catalog.js";
import type { CompositeScore, CompositeTerm } from "./composite-score.js";
import type { EvaluatedCase } from "./evaluated-case.js";
import { erroredEvaluationsOf, erroredFixHint, erroredOnCases } from "./errored-evaluations.js";
import { CONFIGURE_A_JUDGE, whoScoredIt } from "./judged-metric-missing.js";
import { meanOfMetric } from "./metric-mean.js";
import { withoutHeuristicJudgements } from "./without-heuristic-judgements.js";

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

/**
 * The metric a term's value was read from (quality-score.ts): a heuristic the seed does not define as a rule metric
 * takes no part and is read as the judged metric asking the same question (completeness → completeness_judged).
 */
function decidingMetricOf(metric: string): string {
  if (!isMetricName(metric)) return metric;
  const entry = METRIC_SEMANTICS[metric];
  return entry.semantics === "heuristic" && entry.ruleInSeed === undefined && entry.judgedAs !== undefined ? entry.judgedAs : metric;
}

export interface CompositeErrors {
  /** The errored evaluations of the terms' metrics, by error type (`http_error`, `refusal`, …), summed over the terms. */
  byType: Record<string, number>;
  /** Names each errored term, its counts by error type, and the fix. */
  reason: string;
}

/**
 * The terms whose evaluation errored on some case, or null when none did. `evaluatedCases`: the cases the score was
 * computed from; the heuristic judge's results are left out, as the score leaves them out.
 */
export function compositeErrors(composite: CompositeScore, evaluatedCases: readonly EvaluatedCase[]): CompositeErrors | null {
  const cases = withoutHeuristicJudgements(evaluatedCases);
  const errored = composite.terms
    .map((term) => {
      const metric = decidingMetricOf(term.metric);
      return { term, metric, errors: erroredEvaluationsOf(cases, metric), measured: meanOfMetric(cases, metric).caseCount };
    })
    .filter((item) => item.errors.cases > 0);
  if (errored.length === 0) return null;
  const byType: Record<string, number> = {};
  for (const { errors } of errored) for (const [type, count] of Object.entries(errors.byType)) byType[type] = (byType[type] ?? 0) + count;
  const described = errored
    .map(({ term, metric, errors, measured }) => `${term.term} (${metric}) ${erroredOnCases(errors, measured)}`)
    .join("; ");
  const score = composite.score.applicable ? `the weighted score ${rounded(composite.score.value)}` : "the weighted score";
  return {
    byType,
    reason: `${score} averages terms that could not be measured on every case: ${described}; the mean of the other cases cannot stand for the run — a grader error is never a pass, and --allow-missing does not cover it${erroredFixHint(errored.some(({ errors }) => errors.byJudge))}`,
  };
}

function rounded(value: number): string {
  return String(Math.round(value * 1000) / 1000);
}

/**
 * The composite's value for a decision: the score when every term of its weights has a value on every case, else not
 * applicable — a term that errored on some case first (compositeErrors), then one with no value.
 * `evaluatedCases`: the cases the score was computed from, heuristic judgements included when there were any (they
 * tell "only the heuristic judge scored it" from "no judge scored it").
 */
export function compositeForDecision(composite: CompositeScore, evaluatedCases: readonly EvaluatedCase[]): MetricValue {
  const errors = compositeErrors(composite, evaluatedCases);
  if (errors !== null) return notApplicable(errors.reason);
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
