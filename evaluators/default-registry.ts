/** The evaluators ragscope runs by default, in the order their results are reported. */
import { EvaluatorRegistry } from "./evaluator-registry.js";
import { answerAbstentionEvaluator } from "./rules/answer-abstention.js";
import { answerCompletenessEvaluator } from "./rules/answer-completeness.js";
import { answerFactAgreementEvaluator } from "./rules/answer-fact-agreement.js";
import { answerReferenceMatchEvaluator } from "./rules/answer-reference-match.js";
import { citationAccuracyEvaluator } from "./rules/citation-accuracy.js";
import { contextCoverageEvaluator } from "./rules/context-coverage.js";
import { performanceUsageEvaluator } from "./rules/performance-usage.js";
import { retrievalRankingEvaluator } from "./rules/retrieval-ranking.js";
import { citationCoverageEvaluator } from "./rules/citation-coverage.js";
import { citationEvidenceEvaluator } from "./rules/citation-evidence.js";
import { citationFreshnessEvaluator } from "./rules/citation-freshness.js";
import { contextEvidenceDensityEvaluator } from "./rules/context-evidence-density.js";
import { contextRedundancyEvaluator } from "./rules/context-redundancy.js";
import { contextSufficiencyEvaluator } from "./rules/context-sufficiency.js";
import { contextTruncationEvaluator } from "./rules/context-truncation.js";
import { retrievalCoverageEvaluator } from "./rules/retrieval-coverage.js";
import { retrievalFreshnessEvaluator } from "./rules/retrieval-freshness.js";
import { retrievalPermissionEvaluator } from "./rules/retrieval-permission.js";
import { retrievalUpliftEvaluator } from "./rules/retrieval-uplift.js";
import { heuristicGroundednessEvaluator } from "./online/heuristic-groundedness.js";
import { permissionLeakEvaluator } from "./online/permission-leak.js";
import { promptInjectionEvaluator } from "./online/prompt-injection.js";
import { sensitiveDataInAnswerEvaluator } from "./online/sensitive-data-in-answer.js";

export function createDefaultRegistry(): EvaluatorRegistry {
  return new EvaluatorRegistry()
    .register(retrievalRankingEvaluator)
    .register(contextCoverageEvaluator)
    .register(citationAccuracyEvaluator)
    .register(answerReferenceMatchEvaluator)
    .register(answerCompletenessEvaluator)
    .register(answerFactAgreementEvaluator)
    .register(answerAbstentionEvaluator)
    .register(performanceUsageEvaluator)
    .register(retrievalCoverageEvaluator)
    .register(retrievalFreshnessEvaluator)
    .register(retrievalPermissionEvaluator)
    .register(retrievalUpliftEvaluator)
    .register(contextRedundancyEvaluator)
    .register(contextEvidenceDensityEvaluator)
    .register(contextSufficiencyEvaluator)
    .register(contextTruncationEvaluator)
    .register(citationEvidenceEvaluator)
    .register(citationFreshnessEvaluator)
    .register(citationCoverageEvaluator)
    .register(heuristicGroundednessEvaluator)
    .register(sensitiveDataInAnswerEvaluator)
    .register(permissionLeakEvaluator)
    .register(promptInjectionEvaluator);
}
