/**
 * One request of a case as the collector stores it, evaluated with the default registry: the contract suites send
 * the same case again (a new trace, start, service or tenant under the same Case Result id) and read what the stores
 * keep of each request.
 */
import type { CaseEvaluation } from "../../evaluators/evaluate-case-result.js";
import { createDefaultRegistry } from "../../evaluators/default-registry.js";
import { evaluateCaseResult } from "../../evaluators/evaluate-case-result.js";
import { buildCaseResult } from "./case-results.js";

export interface SentRequest {
  runId: string;
  caseResultId: string;
  caseId: string;
  traceId: string;
  /** ISO time: the request's start and end, and when it was evaluated. */
  startedAt: string;
  service: string;
  tenant?: string | null;
  partial?: boolean;
  output: string;
}

const registry = createDefaultRegistry();

export function evaluatedRequest(request: SentRequest): CaseEvaluation {
  const built = buildCaseResult({ caseId: request.caseId, output: request.output, retrieved: [{ chunk_id: `${request.caseId}_chunk`, text: "text", score: 0.5 }] });
  return evaluateCaseResult(
    registry,
    {
      ...built,
      run_id: request.runId,
      case_result_id: request.caseResultId,
      trace_id: request.traceId,
      started_at: request.startedAt,
      completed_at: request.startedAt,
      rag_observation: { ...built.rag_observation, service_name: request.service, tenant_id: request.tenant ?? null, partial_trace: request.partial ?? false },
    },
    null,
    request.startedAt,
  );
}
