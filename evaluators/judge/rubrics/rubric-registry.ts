/**
 * The rubric of each judged metric, and the version of the whole set (a judge's
 * `promptVersion`). Bump RUBRIC_SET_VERSION whenever any rubric's version moves.
 */
import type { JudgeMetric } from "../judge.js";
import { answerCorrectnessRubric } from "./answer-correctness.js";
import { answerRelevanceRubric } from "./answer-relevance.js";
import { citationSupportRubric } from "./citation-support.js";
import { completenessRubric } from "./completeness.js";
import { contextPrecisionRubric } from "./context-precision.js";
import { contextSufficiencyRubric } from "./context-sufficiency.js";
import { faithfulnessRubric } from "./faithfulness.js";
import type { JudgeRubric } from "./judge-rubric.js";

export const RUBRIC_SET_VERSION = "judge-rubrics@1";

const rubrics: Record<JudgeMetric, JudgeRubric> = {
  faithfulness: faithfulnessRubric,
  answer_relevance: answerRelevanceRubric,
  context_precision_judged: contextPrecisionRubric,
  context_sufficiency_judged: contextSufficiencyRubric,
  completeness_judged: completenessRubric,
  citation_support: citationSupportRubric,
  answer_correctness: answerCorrectnessRubric,
};

export function rubricFor(metric: JudgeMetric): JudgeRubric {
  return rubrics[metric];
}
