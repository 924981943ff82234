/**
 * Every metric an evaluator produces, as typed keys: the union of the keys
 * each evaluator module exports (rules, online checks, judge rubrics). Root
 * cause, gates, aggregates, dashboards and alert rules name metrics through
 * `METRIC.<name>` and `MetricName`, never through free strings.
 *
 * And how each metric's values are to be read (METRIC_SEMANTICS): the one
 * place the boards, the report, the web UI, `eval` and the release gate learn
 * which metrics are heuristics — labelled as such wherever shown, and never
 * deciding a gate.
 */
import { embeddingSimilarityMetrics } from "./embeddings/embedding-similarity.js";
import { tokenMatchingMetrics } from "./embeddings/token-matching-similarity.js";
import { judgeMetrics } from "./judge/judge.js";
import { createDefaultRegistry } from "./default-registry.js";
import type { MetricDescriptor } from "./evaluator.js";
import { heuristicGroundednessMetrics } from "./online/heuristic-groundedness.js";
import { permissionLeakMetrics } from "./online/permission-leak.js";
import { promptInjectionMetrics } from "./online/prompt-injection.js";
import { sensitiveDataInAnswerMetrics } from "./online/sensitive-data-in-answer.js";
import { answerAbstentionMetrics } from "./rules/answer-abstention.js";
import { answerCompletenessMetrics } from "./rules/answer-completeness.js";
import { answerFactAgreementMetrics } from "./rules/answer-fact-agreement.js";
import { answerReferenceMatchMetrics } from "./rules/answer-reference-match.js";
import { citationAccuracyMetrics } from "./rules/citation-accuracy.js";
import { citationCoverageMetrics } from "./rules/citation-coverage.js";
import { citationEvidenceMetrics } from "./rules/citation-evidence.js";
import { citationFreshnessMetrics } from "./rules/citation-freshness.js";
import { contextCoverageMetrics } from "./rules/context-coverage.js";
import { contextEvidenceDensityMetrics } from "./rules/context-evidence-density.js";
import { contextRedundancyMetrics } from "./rules/context-redundancy.js";
import { contextSufficiencyMetrics } from "./rules/context-sufficiency.js";
import { contextTruncationMetrics } from "./rules/context-truncation.js";
import { performanceUsageMetrics } from "./rules/performance-usage.js";
import { retrievalCoverageMetrics } from "./rules/retrieval-coverage.js";
import { retrievalFreshnessMetrics } from "./rules/retrieval-freshness.js";
import { retrievalPermissionMetrics } from "./rules/retrieval-permission.js";
import { retrievalRankingMetrics } from "./rules/retrieval-ranking.js";
import { retrievalUpliftMetrics } from "./rules/retrieval-uplift.js";

export const METRIC = Object.freeze({
  ...retrievalRankingMetrics,
  ...retrievalCoverageMetrics,
  ...retrievalFreshnessMetrics,
  ...retrievalPermissionMetrics,
  ...retrievalUpliftMetrics,
  ...contextCoverageMetrics,
  ...contextRedundancyMetrics,
  ...contextEvidenceDensityMetrics,
  ...contextSufficiencyMetrics,
  ...contextTruncationMetrics,
  ...citationAccuracyMetrics,
  ...citationEvidenceMetrics,
  ...citationFreshnessMetrics,
  ...citationCoverageMetrics,
  ...answerReferenceMatchMetrics,
  ...answerCompletenessMetrics,
  ...answerFactAgreementMetrics,
  ...answerAbstentionMetrics,
  ...performanceUsageMetrics,
  ...heuristicGroundednessMetrics,
  ...sensitiveDataInAnswerMetrics,
  ...permissionLeakMetrics,
  ...promptInjectionMetrics,
  ...judgeMetrics,
  ...embeddingSimilarityMetrics,
  ...tokenMatchingMetrics,
});

export type MetricName = keyof typeof METRIC;

export function isMetricName(name: string): name is MetricName {
  return Object.hasOwn(METRIC, name);
}

/**
 * How a metric's values are read: `deterministic_rule` — an exact rule;
 * `heuristic` — a rule standing in for a judge (word overlap, patterns,
 * refusal phrases) or an auxiliary similarity (seed 004 §九.2), whose values
 * are a reason to look, never a pass (case-verdict.ts); `judge` — a judge's,
 * read per result (an LLM judge's decides, the heuristic judge's is labelled
 * by HEURISTIC_JUDGE_NAME_SUFFIX below).
 * A rule metric is its evaluator's declared confidence: answer.abstention is
 * declared heuristic, exact only on some answers.
 */
export type MetricSemantics = "deterministic_rule" | "heuristic" | "judge";

export interface MetricSemanticsEntry {
  semantics: MetricSemantics;
  /** The evaluator producing it (empty for judged metrics, whose evaluator is judge.<metric>). */
  evaluatorId: string;
  /** MetricDescriptor.decideWith: what to gate on instead of this heuristic. */
  decideWith?: string;
  /** MetricDescriptor.judgedAs: the judged metric asking the same question. */
  judgedAs?: string;
  /** MetricDescriptor.ruleInSeed: the seed defines this heuristic as a rule metric, so a gate decides on it. */
  ruleInSeed?: string;
}

function entriesOf(evaluatorId: string, semantics: MetricSemantics, metrics: readonly Pick<MetricDescriptor, "name" | "decideWith" | "judgedAs" | "ruleInSeed">[]): [string, MetricSemanticsEntry][] {
  return metrics.map((metric) => {
    const { decideWith, judgedAs, ruleInSeed } = metric;
    return [metric.name, { semantics, evaluatorId, ...(decideWith === undefined ? {} : { decideWith }), ...(judgedAs === undefined ? {} : { judgedAs }), ...(ruleInSeed === undefined ? {} : { ruleInSeed }) }];
  });
}

const EMBEDDING_DECIDED_WITH = "an auxiliary similarity (seed 004 §九.2: 可以辅助，但不应单独作为 RAG 核心指标); configure an LLM judge (LOCAL-JUDGE.md) and gate on answer_correctness";

export const METRIC_SEMANTICS: Readonly<Record<MetricName, MetricSemanticsEntry>> = Object.freeze(
  Object.fromEntries([
    ...createDefaultRegistry().list().flatMap((evaluator) => entriesOf(evaluator.id, evaluator.confidence, evaluator.metrics)),
    // Their results carry heuristic semantics (embeddings/embedding-similarity.ts, token-matching-similarity.ts).
    ...entriesOf("embedding.answer_similarity", "heuristic", Object.keys(embeddingSimilarityMetrics).map((name) => ({ name, decideWith: EMBEDDING_DECIDED_WITH }))),
    ...entriesOf("embedding.answer_token_matching", "heuristic", Object.keys(tokenMatchingMetrics).map((name) => ({ name, decideWith: EMBEDDING_DECIDED_WITH }))),
    ...entriesOf("", "judge", Object.keys(judgeMetrics).map((name) => ({ name }))),
  ]) as Record<MetricName, MetricSemanticsEntry>,
);

/** A metric whose values are a heuristic's, by the catalog (a judged metric is read per result instead). */
export function isHeuristicMetric(name: string): boolean {
  return isMetricName(name) && METRIC_SEMANTICS[name].semantics === "heuristic";
}

/** How a heuristic metric is labelled beside its name or its board label, on every surface; display only. */
export const HEURISTIC_METRIC_LABEL_SUFFIX = " (heuristic)";

/**
 * How the heuristic judge's values of a judged metric are named beside the metric, on every surface (the boards, the
 * experiment report): a measurement, never a decision. Display only.
 */
export const HEURISTIC_JUDGE_NAME_SUFFIX = " (heuristic judge, measurement)";

/** A metric's name or board label as shown: with HEURISTIC_METRIC_LABEL_SUFFIX when the metric is a heuristic. */
export function labelOfMetric(name: string, label: string = name): string {
  return isHeuristicMetric(name) ? `${label}${HEURISTIC_METRIC_LABEL_SUFFIX}` : label;
}

/**
 * Whether one stored value of `metric` is a heuristic's reading, by the semantics its Evaluation Result recorded
 * (`confidence.semantics`). A heuristic metric's evaluator may read some values exactly: answer.abstention takes the
 * trace's own flag (ragscope.answer.abstained) or an answer that refuses in whole as exact, and its result says
 * deterministic_rule. Every other result of a heuristic metric is the heuristic's.
 */
export function isHeuristicReading(metric: string, resultSemantics: string): boolean {
  return isHeuristicMetric(metric) && resultSemantics !== "deterministic_rule";
}

/**
 * A heuristic metric's name or label beside an aggregate of its values (a mean, a count), by where those values came
 * from: HEURISTIC_METRIC_LABEL_SUFFIX when all of them are a heuristic's readings (or none is known), nothing when none
 * is (every `abstained` read from the trace's flag), "(heuristic for 3 of 5)" when some are. Display only: a heuristic
 * reading still decides nothing whatever the label.
 */
export function labelOfMetricValues(name: string, readings: { values: number; heuristicValues: number }, label: string = name): string {
  const { values, heuristicValues } = readings;
  if (!isHeuristicMetric(name) || values === 0 || heuristicValues >= values) return labelOfMetric(name, label);
  return heuristicValues === 0 ? label : `${label} (heuristic for ${heuristicValues} of ${values})`;
}

/** The stored names of the heuristic metrics, sorted (for SQL that labels them: dashboards/source/runs-dashboard.ts). */
export function heuristicMetricNames(): string[] {
  return Object.keys(METRIC_SEMANTICS).filter(isHeuristicMetric).sort();
}
