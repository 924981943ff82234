/**
 * Builds Case Results for evaluator tests through the contract's own zod
 * schema, so defaults are the real ones. Fields not given are "not available".
 */
import { caseResult, type CaseResult, type RetrievedChunk } from "../../contracts/case-result.js";
import { evalCase, type EvalCase, type EvalCaseInput } from "../../contracts/eval-case.js";
import type { EvaluationResult } from "../../contracts/evaluation-result.js";
import { createDefaultRegistry } from "../../evaluators/default-registry.js";
import { evaluateCaseResult, type CaseEvaluation } from "../../evaluators/evaluate-case-result.js";

type ChunkInput = Partial<RetrievedChunk> & Pick<RetrievedChunk, "chunk_id">;

export function chunks(list: ChunkInput[]): RetrievedChunk[] {
  return list.map((chunk, index) => ({
    rank: index + 1,
    text: null,
    score: null,
    document_id: null,
    document_version: null,
    section_id: null,
    effective_from: null,
    effective_to: null,
    acl: null,
    tenant_id: null,
    ...chunk,
  }));
}

export interface CaseResultInput {
  output?: string | null;
  retrieved?: ChunkInput[] | null;
  contextChunkIds?: string[] | null;
  truncated?: string[];
  context?: string | null;
  citations?: string[] | null;
  abstained?: boolean | null;
  caseId?: string;
}

export function buildCaseResult(input: CaseResultInput = {}): CaseResult {
  const truncated = new Set(input.truncated ?? []);
  return caseResult.parse({
    case_result_id: "cr_test",
    run_id: "run_test",
    case_id: input.caseId ?? "case_test",
    case_version: "v1",
    execution_status: "completed",
    quality_status: "not_evaluated",
    input_snapshot_uri: null,
    output: input.output ?? null,
    rag_observation: {
      retrieved_chunks: input.retrieved === undefined || input.retrieved === null ? null : chunks(input.retrieved),
      context: input.context ?? null,
      context_chunks: input.contextChunkIds ? input.contextChunkIds.map((chunk_id, index) => ({ chunk_id, position: index + 1, truncated: truncated.has(chunk_id) })) : null,
      citations: input.citations === undefined ? null : input.citations,
      abstained: input.abstained ?? null,
    },
    trace_id: "0af7651916cd43dd8448eb211c80319c",
    execution_error: { type: "none", message: null },
    started_at: "2026-07-08T09:31:12.000Z",
    completed_at: "2026-07-08T09:31:15.000Z",
  });
}

export function buildCase(overrides: Partial<EvalCaseInput> = {}): EvalCase {
  return evalCase.parse({ case_id: "case_test", case_version: "v1", dataset_id: "d", dataset_version: "1", input: "q", ...overrides });
}

/** The seed's own example (shared/seeds/000_166131c131cdea70.txt): case and Case Result. */
export function seedExample(): { evalCase: EvalCase; caseResult: CaseResult } {
  return {
    evalCase: buildCase({
      case_id: "rag_refund_member_points_001",
      case_version: "v2",
      input: "我用了优惠券只退一件商品，积分会扣回吗？",
      citation_requirement: "必须引用生效中的会员积分规则",
      gold_evidence: [{ document_id: "refund_policy_member_points", section_id: "section_2", text: "部分退款后，会员积分按实际保留金额重新计算", effective_time: "2026-07-01" }],
    }),
    caseResult: buildCaseResult({
      caseId: "rag_refund_member_points_001",
      output: "积分不会受影响，优惠券也会原路退回",
      retrieved: [
        { chunk_id: "refund_general_01", text: "符合条件的商品可按退款规则处理", score: 0.91, document_id: "refund_policy_general" },
        { chunk_id: "refund_member_points_02", text: "部分退款后，会员积分按实际保留金额重新计算", score: 0.87, document_id: "refund_policy_member_points", section_id: "section_2" },
      ],
      contextChunkIds: ["refund_general_01"],
      context: "符合条件的商品可按退款规则处理",
      citations: ["refund_general_01"],
    }),
  };
}

/** A scripted LLM judge's Evaluation Result of one metric (`judge.<metric>`): passed (1) or failed (0). */
export function judgeVerdict(caseResultId: string, metric: string, passed: boolean): EvaluationResult {
  return {
    evaluation_result_id: `er_${caseResultId}_${metric}`,
    case_result_id: caseResultId,
    evaluator_id: `judge.${metric}`,
    evaluator_version: "rubric-1+judge-a",
    metric_values: { [metric]: passed ? 1 : 0 },
    outcome: passed ? "passed" : "failed",
    reason: "scripted judge verdict",
    evidence_refs: [],
    confidence: { value: 0.9, semantics: "judge_self_report" },
    review_required: false,
    error_type: "none",
    evaluated_at: "2026-07-08T09:00:00.000Z",
  };
}

/** The seed example evaluated by the default evaluators under another id and start time: a written trace for the rollup tests. */
export function seedEvaluation(caseResultId: string, startedAt: string): CaseEvaluation {
  const { caseResult, evalCase } = seedExample();
  return evaluateCaseResult(createDefaultRegistry(), { ...caseResult, case_result_id: caseResultId, started_at: startedAt }, evalCase, "2026-07-08T09:32:01.000Z");
}
