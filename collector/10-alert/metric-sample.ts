/**
 * One metric value of one evaluated trace, as the alert evaluator reads it:
 * rule metrics of every trace and judge metrics of the sampled ones. Values
 * that are not applicable (null) are not samples.
 */
import type { CaseResult } from "../../contracts/case-result.js";
import type { EvaluationResult } from "../../contracts/evaluation-result.js";

export interface MetricSample {
  metric: string;
  value: number;
  caseResultId: string;
  traceId: string;
  serviceName: string | null;
  tenantId: string | null;
  route: string | null;
}

export function metricSamples(evaluations: readonly { caseResult: CaseResult; evaluationResults: readonly EvaluationResult[] }[]): MetricSample[] {
  const samples: MetricSample[] = [];
  for (const { caseResult, evaluationResults } of evaluations) {
    const observation = caseResult.rag_observation;
    for (const result of evaluationResults) {
      for (const [metric, value] of Object.entries(result.metric_values)) {
        if (value === null || !Number.isFinite(value)) continue;
        samples.push({ metric, value, caseResultId: caseResult.case_result_id, traceId: caseResult.trace_id, serviceName: observation.service_name, tenantId: observation.tenant_id, route: observation.route });
      }
    }
  }
  return samples;
}
