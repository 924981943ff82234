/**
 * Requests written into an embedded data folder through the store's own
 * write port (the collector's sink), then the store closed — which brings the
 * dashboards' rollups up to date — so a CLI subprocess can open the folder
 * and read them back as a user's store. Built through the contracts' zod
 * schemas, so every default is the real one.
 */
import assert from "node:assert/strict";
import { caseResult, type CaseResult, type FeedbackEntry } from "../../contracts/case-result.js";
import { evaluationResult, type EvaluationResult } from "../../contracts/evaluation-result.js";
import { openClickHouseStore } from "../../store/clickhouse/clickhouse-store.js";

export interface PlannedRequest {
  caseResultId: string;
  /** 32 hex digits. */
  traceId: string;
  runId?: string;
  caseId?: string;
  service?: string;
  tenant?: string | null;
  sessionId?: string | null;
  startedAtMs: number;
  feedback?: Omit<FeedbackEntry, "value" | "comment" | "span_id" | "chunk_id">[];
}

export function plannedCaseResult(planned: PlannedRequest): CaseResult {
  const startedAt = new Date(planned.startedAtMs).toISOString();
  return caseResult.parse({
    case_result_id: planned.caseResultId,
    run_id: planned.runId ?? "",
    case_id: planned.caseId ?? "",
    case_version: planned.caseId === undefined ? "" : "v1",
    execution_status: "completed",
    quality_status: "not_evaluated",
    input_snapshot_uri: null,
    output: "an answer",
    rag_observation: {
      retrieved_chunks: null,
      context: null,
      citations: null,
      query: `question of ${planned.caseResultId}`,
      service_name: planned.service ?? "support-bot",
      tenant_id: planned.tenant ?? null,
      session_id: planned.sessionId ?? null,
      feedback: planned.feedback ?? [],
    },
    trace_id: planned.traceId,
    execution_error: { type: "none", message: null },
    started_at: startedAt,
    completed_at: new Date(planned.startedAtMs + 2_000).toISOString(),
  });
}

/** One Evaluation Result of a Case Result with these metric values (outcome measured). */
export function measured(caseResultId: string, evaluatorId: string, values: Record<string, number>, evaluatedAtMs: number): EvaluationResult {
  return evaluationResult.parse({
    evaluation_result_id: `er_${caseResultId}_${evaluatorId}`,
    case_result_id: caseResultId,
    evaluator_id: evaluatorId,
    evaluator_version: "1",
    metric_values: values,
    outcome: "measured",
    reason: "test values",
    confidence: { value: 1, semantics: "deterministic_rule" },
    review_required: false,
    error_type: "none",
    evaluated_at: new Date(evaluatedAtMs).toISOString(),
  });
}

/** `datasets`: the dataset of each case id (the column an evaluator fills from the Eval Case). */
export async function writeToFolder(dataPath: string, batch: { caseResult: CaseResult; evaluationResults: EvaluationResult[] }[], datasets: Record<string, string> = {}): Promise<void> {
  const store = await openClickHouseStore({ url: null, username: "default", password: "", database: "ragscope", dataPath }, { sink: { datasetOf: (caseId) => datasets[caseId] ?? "" } });
  try {
    const written = await store.results.write(batch);
    assert.ok(written.ok, written.ok ? "" : written.error.message);
  } finally {
    await store.close();
  }
}
