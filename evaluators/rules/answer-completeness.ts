/**
 * Completeness (seed 004 §五.4): covered key points / all key points of the
 * case, with the coverage rule of text/key-point-coverage.ts (content-token
 * recall ≥ 0.6, or every number and date of the key point stated), on the
 * answer without its inline citation markers (text/citation-markers.ts).
 *
 * Default threshold ">= 0.8": the seed asks whether the key points are "全部
 * 覆盖" (all covered), and with up to four key points 0.8 still means all of
 * them; beyond that it forgives one miss per five key points, the margin a
 * lexical heuristic standing in for a judge needs. A rubric can demand ">= 1".
 */
import type { Evaluator, MetricDescriptor } from "../evaluator.js";
import { notApplicable } from "../metric-value.js";
import { withoutCitationMarkers } from "../text/citation-markers.js";
import { keyPointCoverage } from "../text/key-point-coverage.js";
import { metricKeys } from "../metric-keys.js";

const metrics: MetricDescriptor[] = [
  { name: "completeness", description: "key points of the case the answer covers / all key points", range: [0, 1], direction: "higher_is_better", defaultThreshold: ">= 0.8", decideWith: "configure an LLM judge (LOCAL-JUDGE.md): the rule then reads its completeness_judged", judgedAs: "completeness_judged" },
];

const notApplicableBecause = (reason: string) => ({ values: { completeness: notApplicable(reason) }, reason: `not applicable: ${reason}`, evidence: [] });

/** The metrics this evaluator produces (generation layer). */
export const answerCompletenessMetrics = metricKeys(["completeness"]);

export const answerCompletenessEvaluator: Evaluator = {
  id: "answer.completeness",
  // 2: the answer is read without its inline citation markers, whose ids could pass for a key point's number.
  version: "2",
  layer: "generation",
  description: "Fraction of the case's key points the answer covers",
  requires: ["case", "key_points"],
  costClass: "rule",
  confidence: "heuristic",
  metrics,
  evaluate({ caseResult, evalCase }) {
    if (!evalCase) return notApplicableBecause("the trace is not linked to an Eval Case");
    if (caseResult.output === null) return notApplicableBecause("the trace recorded no answer");
    const coverage = keyPointCoverage(withoutCitationMarkers(caseResult.output, caseResult.rag_observation.citations), evalCase.key_points);
    if (!coverage.completeness.applicable) return notApplicableBecause(coverage.completeness.reason);
    const total = coverage.verdicts.length;
    const reason =
      coverage.missing.length === 0
        ? `all ${total} key point${total === 1 ? "" : "s"} covered`
        : `${total - coverage.missing.length} of ${total} key points covered; missing: ${coverage.missing.map((point) => `"${point}"`).join(", ")}`;
    return { values: { completeness: coverage.completeness }, reason, evidence: [] };
  },
};
