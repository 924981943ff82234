/**
 * Every metric an evaluator produces, as typed keys: the union of the keys
 * each evaluator module exports (rules, online checks, judge rubrics). Root
 * cause, gates, aggregates, dashboards and alert rules name metrics through
 * `METRIC.<name>` and `MetricName`, never through free strings.
 */
import { embeddingSimilarityMetrics } from "./embeddings/embedding-similarity.js";
import { tokenMatchingMetrics } from "./embeddings/token-matching-similarity.js";
import { judgeMetrics } from "./judge/judge.js";
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
