/** The evaluators ragscope runs by default, in the order their results are reported. */
import { EvaluatorRegistry } from "./evaluator-registry.js";
import { citationAccuracyEvaluator } from "./rules/citation-accuracy.js";
import { contextCoverageEvaluator } from "./rules/context-coverage.js";
import { performanceUsageEvaluator } from "./rules/performance-usage.js";
import { retrievalRankingEvaluator } from "./rules/retrieval-ranking.js";

export function createDefaultRegistry(): EvaluatorRegistry {
  return new EvaluatorRegistry()
    .register(retrievalRankingEvaluator)
    .register(contextCoverageEvaluator)
    .register(citationAccuracyEvaluator)
    .register(performanceUsageEvaluator);
}
