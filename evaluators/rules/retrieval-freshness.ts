/**
 * expired_chunk_rate (seed 004 §三.5 "过期文档召回率"): retrieved chunks whose
 * document version was not in force at the case's effective time /
 * retrieved chunks that carry an effective time. "Not in force" is expired or
 * not yet in force (retrieval-effective-time.ts has the rule and which instant
 * is used). Chunks without effective times cannot be judged and are left out
 * of both counts; when none carries one the metric is not applicable.
 *
 * Informational per case (lower is better): a retriever without a time filter
 * returns old versions by design, and what harms the answer — an old version
 * packed or cited — is judged by citation.freshness and root-cause attribution.
 */
import type { Evaluator, MetricDescriptor } from "../evaluator.js";
import { applicable, notApplicable } from "../metric-value.js";
import { carriesEffectiveTime, chunkWithBounds, carriesUnreadableEffectiveTime, effectiveAtOf, isNotInForce, NO_EFFECTIVE_AT, unreadableEffectiveTimeNote, versionStatus } from "./retrieval-effective-time.js";
import { chunkLabel } from "../../contracts/case-result.js";
import { metricKeys } from "../metric-keys.js";

const metrics: MetricDescriptor[] = [
  {
    name: "expired_chunk_rate",
    description: "retrieved chunks not in force at the case's effective time / retrieved chunks carrying an effective time",
    range: [0, 1],
    direction: "lower_is_better",
    defaultThreshold: null,
  },
];

/** The metrics this evaluator produces (retrieval layer). */
export const retrievalFreshnessMetrics = metricKeys(["expired_chunk_rate"]);

export const retrievalFreshnessEvaluator: Evaluator = {
  id: "retrieval.freshness",
  // 2: a chunk whose effective bound is not a date (or does not exist) is neither in force nor expired, and not counted.
  version: "2",
  layer: "retrieval",
  description: "Share of retrieved chunks whose document version was not in force when the question was asked",
  requires: [],
  costClass: "rule",
  confidence: "deterministic_rule",
  metrics,
  evaluate({ caseResult, evalCase }) {
    const chunks = caseResult.rag_observation.retrieved_chunks;
    const dated = (chunks ?? []).filter(carriesEffectiveTime);
    const effectiveAt = effectiveAtOf(caseResult, evalCase);
    const missing = chunks === null ? "the trace recorded no retrieval" : dated.length === 0 ? "no retrieved chunk carries an effective time" : effectiveAt === null ? NO_EFFECTIVE_AT : null;
    const unreadable = unreadableEffectiveTimeNote(chunks ?? []);
    if (missing !== null || effectiveAt === null) return { values: { expired_chunk_rate: notApplicable(missing ?? "") }, reason: `not applicable: ${missing}${unreadable === null ? "" : `; ${unreadable}`}`, evidence: [] };
    const stale = dated.filter((chunk) => isNotInForce(versionStatus(chunk, effectiveAt.instant)));
    const undated = (chunks ?? []).filter((chunk) => !carriesEffectiveTime(chunk) && !carriesUnreadableEffectiveTime(chunk)).length;
    const at = `at ${effectiveAt.text} (${effectiveAt.source})`;
    const reason =
      stale.length === 0
        ? `every dated retrieved chunk was in force ${at}`
        : `${stale.length} of ${dated.length} dated chunks not in force ${at}: ${stale.map(chunkWithBounds).join(", ")}`;
    return {
      values: { expired_chunk_rate: applicable(stale.length / dated.length) },
      reason: [reason, undated > 0 ? `${undated} chunk(s) carry no effective time` : null, unreadable].filter((part) => part !== null).join("; "),
      evidence: stale.map(chunkLabel),
    };
  },
};
