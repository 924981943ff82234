/**
 * Online traffic at any size from a few evaluated templates: the index-th
 * request is a template's Case Result and Evaluation Results with ids of its
 * own, its own start time, tenant and service, session, and a latency that
 * varies — for the dashboards-at-scale benchmark and the tests of panels
 * under a memory bound, written through the real sink as the collector writes.
 *
 * Sessions as applications have them: a template's request without a session
 * id keeps none (a quarter of the dashboard dataset's); the others are
 * sessions of three requests of one tenant and service, one after another in
 * that pair's traffic. Before, every clone kept its template's session id, so
 * a store held a few dozen sessions, each across every tenant and service and
 * the whole 30 days — no application's traffic looks like that.
 */
import type { CaseEvaluation } from "../../evaluators/evaluate-case-result.js";

export interface ClonePlan {
  /** Start of the first request, epoch ms. */
  startMs: number;
  /** Time between two requests' starts, ms. */
  spacingMs: number;
  services: readonly string[];
  tenants: readonly string[];
}

/** Metric values (non-null) a Case Result's evaluations hold. */
export function metricValuesOf(evaluation: CaseEvaluation): number {
  return evaluation.evaluationResults.reduce((total, result) => total + Object.values(result.metric_values).filter((value) => value !== null).length, 0);
}

/** Requests a cloned session holds. */
const REQUESTS_PER_SESSION = 3;

function greatestCommonDivisor(left: number, right: number): number {
  return right === 0 ? left : greatestCommonDivisor(right, left % right);
}

export function clonedRequest(template: CaseEvaluation, index: number, plan: ClonePlan): CaseEvaluation {
  const id = `cr_${index.toString(36).padStart(8, "0")}`;
  // The index-th request's tenant and service repeat every `pairs` requests: a session's requests are that far apart.
  const pairs = (plan.services.length * plan.tenants.length) / greatestCommonDivisor(plan.services.length, plan.tenants.length);
  const sessionId = template.caseResult.rag_observation.session_id === null ? null : `session_${index % pairs}_${Math.floor(index / (pairs * REQUESTS_PER_SESSION))}`;
  const started = new Date(plan.startMs + Math.floor(index * plan.spacingMs)).toISOString();
  const jitter = 0.5 + ((index * 7919) % 1000) / 1000;
  const caseResult = {
    ...template.caseResult,
    case_result_id: id,
    trace_id: `trace_${id}`,
    run_id: "",
    case_id: "",
    started_at: started,
    completed_at: started,
    rag_observation: { ...template.caseResult.rag_observation, service_name: plan.services[index % plan.services.length]!, tenant_id: plan.tenants[index % plan.tenants.length]!, session_id: sessionId },
  };
  return {
    caseResult,
    evaluationResults: template.evaluationResults.map((result) => ({
      ...result,
      evaluation_result_id: `${result.evaluation_result_id}_${index}`,
      case_result_id: id,
      metric_values: "latency_ms" in result.metric_values ? { ...result.metric_values, latency_ms: (result.metric_values.latency_ms ?? 0) * jitter } : result.metric_values,
    })),
  };
}
