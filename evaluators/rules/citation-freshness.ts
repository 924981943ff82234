/**
 * citation_expired_rate (seed 004 §五.5 "是否引用了过期版本"): distinct cited
 * chunks whose document version was not in force at the case's effective time
 * / distinct cited chunks that carry an effective time
 * (retrieval-effective-time.ts has the rule and the instant).
 *
 * Citation validity is two metrics, each saying one thing:
 * citation_validity (citation-accuracy.ts) — the cited id was packed into the
 * context, which implies it exists in the trace and was retrieved — and this
 * one, the cited version was in force. A valid citation passes both.
 * Any expired citation fails the case ("= 0"): the seed's case rules out
 * "使用已失效政策" outright.
 */
import type { Evaluator, MetricDescriptor } from "../evaluator.js";
import { applicable, notApplicable } from "../metric-value.js";
import { citedChunks } from "./citation-evidence.js";
import { carriesEffectiveTime, chunkWithBounds, effectiveAtOf, isNotInForce, NO_EFFECTIVE_AT, unreadableEffectiveTimeNote, versionStatus } from "./retrieval-effective-time.js";
import { chunkLabel } from "../../contracts/case-result.js";
import { metricKeys } from "../metric-keys.js";

const metrics: MetricDescriptor[] = [
  { name: "citation_expired_rate", description: "cited chunks not in force at the case's effective time / cited chunks carrying an effective time", range: [0, 1], direction: "lower_is_better", defaultThreshold: "= 0" },
];

/** The metrics this evaluator produces (generation layer). */
export const citationFreshnessMetrics = metricKeys(["citation_expired_rate"]);

export const citationFreshnessEvaluator: Evaluator = {
  id: "citation.freshness",
  // 2: a chunk whose effective bound is not a date (or does not exist) is neither in force nor expired, and not counted.
  version: "2",
  layer: "generation",
  description: "Does the answer cite a document version that was not in force when the question was asked",
  requires: [],
  costClass: "rule",
  confidence: "deterministic_rule",
  metrics,
  evaluate({ caseResult, evalCase }) {
    const cited = citedChunks(caseResult);
    const dated = (cited ?? []).filter(carriesEffectiveTime);
    const effectiveAt = effectiveAtOf(caseResult, evalCase);
    const missing = cited === null ? "the trace recorded no citation stage" : cited.length === 0 ? "the answer cites nothing" : dated.length === 0 ? "no cited chunk carries an effective time" : effectiveAt === null ? NO_EFFECTIVE_AT : null;
    const unreadable = unreadableEffectiveTimeNote(cited ?? []);
    if (missing !== null || effectiveAt === null) return { values: { citation_expired_rate: notApplicable(missing ?? "") }, reason: `not applicable: ${missing}${unreadable === null ? "" : `; ${unreadable}`}`, evidence: [] };
    const stale = dated.filter((chunk) => isNotInForce(versionStatus(chunk, effectiveAt.instant)));
    const reason =
      stale.length === 0
        ? `every dated citation was in force at ${effectiveAt.text}`
        : `cited version(s) not in force at ${effectiveAt.text} (${effectiveAt.source}): ${stale.map(chunkWithBounds).join(", ")}`;
    return { values: { citation_expired_rate: applicable(stale.length / dated.length) }, reason: unreadable === null ? reason : `${reason}; ${unreadable}`, evidence: stale.map(chunkLabel) };
  },
};
