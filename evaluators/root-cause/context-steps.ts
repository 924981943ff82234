/**
 * Context steps: the evidence was retrieved but the prompt lost it, or the
 * prompt buried it.
 */
import { evidenceDensity } from "../rules/context-evidence-density.js";
import { findTruncatedEvidence } from "../rules/context-truncation.js";
import { followedDistractor } from "./followed-distractor.js";
import { answerLayerFailed, goldLabel, HEURISTIC_READING, type AttributionFacts } from "./attribution-facts.js";
import type { RootCauseFinding } from "./root-cause-attribution.js";
import type { RootCauseStep } from "./root-cause-step.js";
import { chunkLabel } from "../../contracts/case-result.js";
import { METRIC, type MetricName } from "../metric-catalog.js";
import { thresholdFor } from "../judge/judge-thresholds.js";
import { parseThreshold, satisfies } from "../threshold.js";

/** Below this share of evidence tokens the context is mostly noise (seed 004 §四.4 Evidence Density). */
export const NOISY_EVIDENCE_DENSITY = 0.1;

export const contextTruncatedStep: RootCauseStep = {
  label: "CONTEXT_TRUNCATED",
  when: "gold evidence was in the final ranking but was dropped from the context or cut so its text is gone (context-truncation.ts)",
  decide(facts) {
    if (facts.evalCase === null) return null;
    const findings = findTruncatedEvidence(facts.caseResult, facts.evalCase);
    if (findings === null || findings.lost.length === 0) return null;
    return {
      reason: findings.lost.map((entry) => `gold #${entry.goldIndex + 1} in ${entry.chunkId} ${entry.how.replaceAll("_", " ")}${entry.droppedReason ? ` (${entry.droppedReason})` : ""}`).join("; "),
      chunkIds: findings.lost.map((entry) => entry.chunkId),
      metrics: [METRIC.evidence_truncated, METRIC.evidence_truncated_rate, METRIC.context_recall],
      confidence: "deterministic_rule",
    };
  },
};

/**
 * A context precision that failed its pass rule, judged by something able to
 * judge it: an LLM judge's context_precision_judged (the judge's result
 * failed: the rubric's >= 0.5, or the case rubric's entry), or the rule's
 * context_precision against the case rubric's entry (it has no default
 * threshold). The heuristic judge's measurement is never a failure.
 */
function failedContextPrecision(facts: AttributionFacts): { metric: MetricName; value: number; rule: string } | null {
  const judged = facts.metric(METRIC.context_precision_judged);
  if (judged !== null && judged.outcome === "failed" && judged.semantics !== "heuristic") {
    return { metric: METRIC.context_precision_judged, value: judged.value, rule: thresholdFor(METRIC.context_precision_judged, facts.evalCase).source };
  }
  const rubric = facts.evalCase?.rubric;
  const entry = rubric !== undefined && typeof rubric !== "string" && !Array.isArray(rubric) ? rubric[METRIC.context_precision] : undefined;
  const measured = facts.metric(METRIC.context_precision);
  if (entry === undefined || measured === null) return null;
  const threshold = parseThreshold(entry);
  if (!threshold.ok || satisfies(measured.value, threshold.value)) return null;
  return { metric: METRIC.context_precision, value: measured.value, rule: threshold.value.source };
}

/**
 * CONTEXT_NOISY: the context holds too much that does not help (seed 004 §十
 * 上下文噪声过多). Either
 * - all gold evidence reached the context and an answer-layer evaluator
 *   failed, and the evidence is under NOISY_EVIDENCE_DENSITY of the context's
 *   tokens, or the packed chunk the answer follows most (largest share of the
 *   answer's bigrams) is a distractor, not an evidence chunk; or
 * - a context precision failed its pass rule (failedContextPrecision): the
 *   share of the context that is relevant is what "noisy" measures, and this
 *   step comes after every retrieval cause (missing evidence is a miss, not
 *   noise) and before the answer's own causes, upstream first.
 */
export const contextNoisyStep: RootCauseStep = {
  label: "CONTEXT_NOISY",
  when: `all gold evidence was in the context, the answer failed, and evidence density < ${NOISY_EVIDENCE_DENSITY} or the answer follows a distractor chunk more than any evidence chunk; or a context precision (an LLM judge's context_precision_judged, or context_precision against the case rubric) failed its pass rule`,
  decide(facts) {
    const buried = buriedEvidence(facts);
    if (buried !== null) return buried;
    const precision = failedContextPrecision(facts);
    if (precision === null) return null;
    return {
      reason: `${precision.metric} ${precision.value} misses ${precision.rule}: most of the context does not help answer the question`,
      metrics: [precision.metric],
      confidence: precision.metric === METRIC.context_precision ? "deterministic_rule" : "heuristic",
    };
  },
};

/** The gold evidence reached the context but is buried in it (the first way of CONTEXT_NOISY). */
function buriedEvidence(facts: AttributionFacts): RootCauseFinding | null {
  const failedAnswer = answerLayerFailed(facts);
  if (facts.gold.length === 0 || !facts.gold.every((trail) => trail.inContext === true) || failedAnswer.length === 0 || facts.packed === null) return null;
  const density = evidenceDensity(facts.caseResult, facts.evalCase);
  if (density.value.applicable && density.value.value < NOISY_EVIDENCE_DENSITY) {
    return { reason: `${HEURISTIC_READING} evidence is ${density.evidenceTokens} of ${density.contextTokens} context tokens`, chunkIds: density.evidenceChunkIds, metrics: [METRIC.evidence_density, METRIC.context_precision], confidence: "heuristic" };
  }
  const followed = followedDistractor(facts);
  if (followed === null) return null;
  const { distractor, evidence } = followed;
  return {
    reason: `${HEURISTIC_READING} the answer follows distractor ${chunkLabel(distractor)} (${followed.share.toFixed(2)} of its bigrams) more than the evidence${evidence ? ` ${chunkLabel(evidence)} (${followed.evidenceShare.toFixed(2)})` : ""}; failed: ${failedAnswer.map((result) => result.evaluator_id).join(", ")}; evidence: ${facts.gold.map(goldLabel).join(", ")}`,
    chunkIds: [chunkLabel(distractor), ...(evidence ? [chunkLabel(evidence)] : [])],
    metrics: [METRIC.context_precision, METRIC.evidence_density],
    confidence: "heuristic",
  };
}
