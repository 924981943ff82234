/**
 * One minimal failed case per root-cause label, each built so that exactly
 * the condition of its step holds and the conditions of every earlier step do
 * not. The execution labels' cases did not complete (their verdict is failed
 * whatever their evaluators found: case-verdict.ts).
 */
import type { CaseResult } from "../../../../contracts/case-result.js";
import type { EvalCase, EvalCaseInput } from "../../../../contracts/eval-case.js";
import type { EvaluationResult } from "../../../../contracts/evaluation-result.js";
import type { AttributionOptions } from "../../../../evaluators/root-cause/attribution-facts.js";
import type { RootCauseLabel } from "../../../../evaluators/root-cause/root-cause-labels.js";
import { buildCase, seedExample } from "../../../support/case-results.js";
import { storedResult } from "../aggregate/evaluated-cases.js";
import { caseResultWith, type ChunkInput, type ObservationInput } from "../rules/build-case-result.js";

export interface Scenario {
  caseResult: CaseResult;
  evalCase: EvalCase | null;
  results: EvaluationResult[];
  options?: AttributionOptions;
}

export const EVIDENCE_TEXT = "员工每年享有5天年假";
export const gold: ChunkInput = { chunk_id: "g", document_id: "leave", section_id: "annual", text: EVIDENCE_TEXT };
export const noise = (id: string, text = "加班费按小时工资的1.5倍计算"): ChunkInput => ({ chunk_id: id, document_id: "payroll", text });

export function leaveCase(overrides: Partial<EvalCaseInput> = {}): EvalCase {
  return buildCase({ gold_evidence: [{ document_id: "leave", section_id: "annual", text: EVIDENCE_TEXT }], ...overrides });
}

export function failedCase(observation: ObservationInput): CaseResult {
  return caseResultWith(observation, { quality_status: "failed" });
}

export const failedResult = (evaluatorId: string, metrics: Record<string, number | null>) => storedResult("cr_test", evaluatorId, metrics, "failed");

/** Evidence retrieved, packed and in the context text: the retrieval and context layers are fine. */
const evidenceInContext = (observation: ObservationInput = {}): ObservationInput => ({ retrieved: [gold], packed: ["g"], context: EVIDENCE_TEXT, ...observation });

export const SCENARIOS: Record<RootCauseLabel, () => Scenario> = {
  PERMISSION_LEAK: () => ({
    caseResult: failedCase(evidenceInContext({ retrieved: [{ ...gold, acl: ["hr"] }], principal_groups: ["sales"] })),
    evalCase: leaveCase(),
    results: [failedResult("retrieval.permission", { permission_violation_rate: 1 })],
  }),
  SHOULD_ABSTAIN: () => ({
    caseResult: failedCase({ retrieved: [noise("n")], packed: ["n"], output: "年假可以折现", abstained: false }),
    evalCase: buildCase({ answerable: false }),
    results: [failedResult("answer.abstention", { abstained: 0, abstention_correct: 0 })],
  }),
  OVER_ABSTAIN: () => ({
    caseResult: failedCase(evidenceInContext({ output: "资料不足，无法回答", abstained: true })),
    evalCase: leaveCase(),
    results: [failedResult("answer.abstention", { abstained: 1, abstention_correct: 0 })],
  }),
  DATA_MISSING: () => ({
    caseResult: failedCase({ retrieved: [noise("n")], packed: ["n"], output: "加班费按1.5倍计算" }),
    evalCase: leaveCase(),
    results: [failedResult("retrieval.ranking", { recall_at_k: 0 })],
    options: { corpusDocumentIds: new Set(["payroll"]) },
  }),
  DATA_OUTDATED: () => ({
    caseResult: failedCase({
      retrieved: [
        { chunk_id: "old", document_id: "leave", section_id: "annual", document_version: "v1", text: "员工每年享有3天年假", effective_to: "2026-06-30" },
        { ...gold, document_version: "v2", effective_from: "2026-07-01" },
      ],
      packed: ["old", "g"],
      citations: ["old"],
      output: "员工每年享有3天年假",
    }),
    evalCase: leaveCase({ environment_requirements: { effective_at: "2026-07-08" } }),
    results: [failedResult("citation.freshness", { citation_expired_rate: 1 })],
  }),
  DATA_CONFLICT: () => ({
    caseResult: failedCase({
      retrieved: [
        { ...gold, document_version: "v1" },
        { ...gold, chunk_id: "g2", document_version: "v2", text: "员工每年享有5天年假，另加2天" },
      ],
      packed: ["g", "g2"],
      output: "员工每年享有7天年假",
    }),
    evalCase: leaveCase(),
    results: [failedResult("answer.fact_agreement", { number_agreement: 0 })],
  }),
  CHUNK_BAD: () => ({
    caseResult: failedCase({
      retrieved: [
        { chunk_id: "head", text: "第一章 总则。员工每年享有5天年假，" },
        { chunk_id: "tail", text: "未休年假可顺延一年。第二章 病假" },
      ],
      packed: ["head", "tail"],
      output: "员工每年享有5天年假",
    }),
    evalCase: buildCase({ gold_evidence: [{ document_id: "leave", text: "员工每年享有5天年假，未休年假可顺延一年" }] }),
    results: [failedResult("retrieval.ranking", { recall_at_k: 0 })],
  }),
  QUERY_REWRITE_BAD: () => ({
    caseResult: failedCase({ query: "年假有几天", rewritten_query: "病假 证明 要求", retrieved: [noise("n", "病假需提供医院证明")], packed: ["n"], output: "病假需提供医院证明" }),
    evalCase: leaveCase(),
    results: [failedResult("retrieval.ranking", { recall_at_k: 0 })],
  }),
  RETRIEVAL_MISS: () => ({
    caseResult: failedCase({ retrieved: [noise("n")], packed: ["n"], output: "加班费按1.5倍计算" }),
    evalCase: leaveCase(),
    results: [failedResult("retrieval.ranking", { recall_at_k: 0 })],
  }),
  RERANK_BAD: () => ({
    caseResult: failedCase({
      preRerank: [gold, noise("n1")],
      retrieved: [noise("n1"), noise("n2"), noise("n3"), noise("n4"), noise("n5"), gold],
      packed: ["n1", "n2"],
      output: "加班费按1.5倍计算",
    }),
    evalCase: leaveCase(),
    results: [failedResult("retrieval.ranking", { recall_at_k: 0 }), storedResult("cr_test", "retrieval.uplift", { rerank_uplift: -0.61 })],
  }),
  CONTEXT_TRUNCATED: () => {
    const { caseResult, evalCase } = seedExample();
    return { caseResult: { ...caseResult, quality_status: "failed" }, evalCase, results: [failedResult("context.coverage", { context_recall: 0 })] };
  },
  CONTEXT_NOISY: () => ({
    caseResult: failedCase(evidenceInContext({ retrieved: [gold, noise("d", "员工每年享有10天病假，病假需证明")], packed: ["g", "d"], context: null, output: "员工每年享有10天病假" })),
    evalCase: leaveCase(),
    results: [failedResult("answer.completeness", { completeness: 0 })],
  }),
  FORMAT_ERROR: () => ({
    caseResult: failedCase(evidenceInContext({ output: "", abstained: false })),
    evalCase: leaveCase(),
    results: [failedResult("answer.reference_match", { exact_match: 0 })],
  }),
  HALLUCINATION: () => ({
    caseResult: failedCase(evidenceInContext({ output: "员工每年享有5天年假。未使用的年假可以折现。" })),
    evalCase: leaveCase(),
    results: [failedResult("judge.answer_correctness", { answer_correctness: 0.5 })],
  }),
  REASONING_ERROR: () => ({
    caseResult: failedCase(evidenceInContext({ output: "员工每年享有10天年假" })),
    evalCase: leaveCase({ reference_answer: "每年5天年假" }),
    results: [failedResult("answer.fact_agreement", { number_agreement: 0 })],
  }),
  INCOMPLETE_ANSWER: () => ({
    caseResult: failedCase(evidenceInContext({ output: "员工每年享有5天年假。" })),
    evalCase: leaveCase({ key_points: ["每年5天年假", "需提前一周申请"] }),
    results: [failedResult("answer.completeness", { completeness: 0.5 })],
  }),
  CITATION_ERROR: () => ({
    caseResult: failedCase(evidenceInContext({ retrieved: [gold, noise("n")], citations: ["n"], output: "员工每年享有5天年假。" })),
    evalCase: leaveCase(),
    results: [failedResult("citation.accuracy", { citation_accuracy: 0, citation_validity: 0 })],
  }),
  // An LLM judge read the answer as not responding to the question (answer_relevance 1 of 3 → 0.33, below >= 0.66).
  QUERY_UNDERSTANDING: () => ({
    caseResult: failedCase(evidenceInContext({ output: "员工每年享有5天年假。" })),
    evalCase: leaveCase({ input: "年假怎么申请？" }),
    results: [{ ...failedResult("judge.answer_relevance", { answer_relevance: 1 / 3 }), confidence: { value: "high", semantics: "judge_self_report" } }],
  }),
  // The task threw in the rerank: the request span and the rerank span ended in error (the collector's execution_error).
  SYSTEM_ERROR: () => ({
    caseResult: caseResultWith(
      {
        retrieved: [gold],
        output: null,
        stage_timings: [
          { stage: "request", span_name: "rag.request", duration_ms: 50, status: "error" },
          { stage: "retrieve", span_name: "rag.retrieve", duration_ms: 5, status: "unset" },
          { stage: "rerank", span_name: "rag.rerank", duration_ms: 20, status: "error" },
        ],
      },
      { execution_status: "failed", execution_error: { type: "system_error", message: "reranker backend unavailable (HTTP 503)" } },
    ),
    evalCase: leaveCase(),
    results: [storedResult("cr_test", "retrieval.ranking", { recall_at_k: 1 })],
  }),
  TIMEOUT: () => ({
    caseResult: caseResultWith({ retrieved: [gold], output: null }, { execution_status: "failed", execution_error: { type: "timeout", message: "the task did not answer within 100 ms (--timeout-ms)" } }),
    evalCase: leaveCase(),
    results: [],
  }),
  ENVIRONMENT_ERROR: () => ({
    caseResult: caseResultWith({ output: null }, { execution_status: "failed", execution_error: { type: "environment_error", message: "the index is not mounted" } }),
    evalCase: leaveCase(),
    results: [],
  }),
};
