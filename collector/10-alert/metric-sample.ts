/**
 * One metric value of one evaluated trace, as the alert evaluator reads it:
 * rule metrics of every trace and judge metrics of the sampled ones. Values
 * that are not applicable (null) are not samples.
 *
 * A value of the heuristic judge (the collector's judge when it is enabled
 * without an LLM endpoint, evaluators/judge/heuristic-judge.ts) is marked
 * `heuristicJudgement`: its result carries heuristic confidence semantics
 * (case-verdict.ts isHeuristicJudgement), so the sample can tell it from an
 * LLM judge's, and the evaluator keeps it out of the window's interval
 * (alert-evaluator.ts says why).
 */
import type { CaseResult } from "../../contracts/case-result.js";
import type { EvaluationResult } from "../../contracts/evaluation-result.js";
import { isHeuristicJudgement } from "../../evaluators/case-verdict.js";

export interface MetricSample {
  metric: string;
  value: number;
  caseResultId: string;
  traceId: string;
  serviceName: string | null;
  tenantId: string | null;
  route: string | null;
  /** A heuristic judge's measurement of a judged metric: counted as left out, never in an alert's interval. */
  heuristicJudgement: boolean;
}

export function metricSamples(evaluations: readonly { caseResult: CaseResult; evaluationResults: readonly EvaluationResult[] }[]): MetricSample[] {
  const samples: MetricSample[] = [];
  for (const { caseResult, evaluationResults } of evaluations) {
    const observation = caseResult.rag_observation;
    for (const result of evaluationResults) {
      const heuristicJudgement = isHeuristicJudgement(result);
      for (const [metric, value] of Object.entries(result.metric_values)) {
        if (value === null || !Number.isFinite(value)) continue;
        samples.push({ metric, value, caseResultId: caseResult.case_result_id, traceId: caseResult.trace_id, serviceName: observation.service_name, tenantId: observation.tenant_id, route: observation.route, heuristicJudgement });
      }
    }
  }
  return samples;
}
