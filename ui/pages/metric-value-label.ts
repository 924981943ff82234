/**
 * How the trace page names a metric beside one of its stored values: by where that value came from. The metric
 * catalog labels a metric "(heuristic)" when its evaluator reads it heuristically in general — answer.abstention
 * reads an answer's refusal phrases — but a value the trace itself carried is no guess: the application set
 * `ragscope.answer.abstained`, the evaluator took that flag over any phrase (decideAbstention), and the result says
 * so with its confidence (deterministic_rule). Labelled "(heuristic)" it read as something the collector guessed.
 * Only values the collector or an evaluator guessed keep the catalog's label.
 */
import type { CaseResult } from "../../contracts/case-result.js";
import { Ragscope } from "../../contracts/span-attributes.js";
import { labelOfMetric } from "../../evaluators/metric-catalog.js";
import { answerAbstentionEvaluator } from "../../evaluators/rules/answer-abstention.js";

/** Where answer.abstention's values come from when the trace carried its flag: `abstained` is the flag, `abstention_correct` the flag against the case. */
export const FROM_TRACE_ABSTENTION_FLAG: Readonly<Record<string, string>> = {
  abstained: ` (from the trace: ${Ragscope.abstained})`,
  abstention_correct: ` (from the trace's ${Ragscope.abstained} and the case's answerable)`,
};

/** The metric `name` as the trace page shows it beside a value of the evaluator `evaluatorId` for this Case Result. */
export function labelOfMetricValue(name: string, evaluatorId: string, caseResult: CaseResult): string {
  const fromTrace = FROM_TRACE_ABSTENTION_FLAG[name];
  if (evaluatorId === answerAbstentionEvaluator.id && caseResult.rag_observation.abstained !== null && fromTrace !== undefined) return `${name}${fromTrace}`;
  return labelOfMetric(name);
}
