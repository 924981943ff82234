/**
 * The golden scenarios' small policy corpus, question, fake answer and Eval
 * Case. Every golden trace (LangChain with OpenInference, LangChain with
 * ragscope's adapter, OTel GenAI, OpenLLMetry) tells this same request, so the
 * Case Results differ only by what each convention can carry.
 */
import { evalCase, type EvalCase } from "../../../contracts/eval-case.js";

export interface PolicyChunk {
  chunkId: string;
  documentId: string;
  documentVersion: string;
  sectionId: string;
  text: string;
  effectiveFrom?: string;
  effectiveTo?: string;
}

export const policyChunks: readonly PolicyChunk[] = [
  { chunkId: "leave_v3_s2", documentId: "leave_policy", documentVersion: "v3", sectionId: "s2", effectiveFrom: "2026-01-01", text: "年假结转：未使用的年假最多可结转 5 天到下一年度，结转部分须在次年 3 月 31 日前休完。" },
  { chunkId: "leave_v2_s2", documentId: "leave_policy", documentVersion: "v2", sectionId: "s2", effectiveTo: "2025-12-31", text: "年假结转：未使用的年假不可结转到下一年度，年底自动清零。" },
  { chunkId: "leave_v3_s3", documentId: "leave_policy", documentVersion: "v3", sectionId: "s3", effectiveFrom: "2026-01-01", text: "年假申请：年假需至少提前三个工作日在 HR 系统中提交申请。" },
  { chunkId: "leave_v3_s4", documentId: "leave_policy", documentVersion: "v3", sectionId: "s4", effectiveFrom: "2026-01-01", text: "病假：员工每年享有 10 天带薪病假，需提供医院证明。" },
  { chunkId: "expense_v1_s1", documentId: "expense_policy", documentVersion: "v1", sectionId: "s1", text: "差旅报销：出差住宿费按城市等级报销，一线城市每晚不超过 600 元。" },
  { chunkId: "remote_v1_s1", documentId: "remote_work_policy", documentVersion: "v1", sectionId: "s1", text: "远程办公：每周最多可申请两天远程办公，需直属经理批准。" },
];

export const question = "未使用的年假可以结转到下一年吗？";
export const fakeAnswer = "可以。未使用的年假最多可结转 5 天到下一年度，须在次年 3 月 31 日前休完。";
export const retrievalTopK = 3;

export const goldenRun = { runId: "run_golden", caseId: "leave_carry_over_001", caseVersion: "v1" } as const;

export const goldenCase: EvalCase = evalCase.parse({
  case_id: goldenRun.caseId,
  case_version: goldenRun.caseVersion,
  dataset_id: "golden_interop",
  dataset_version: "1",
  input: question,
  // The chunk id too: OTel GenAI's retrieval documents carry only `{ id, score }`.
  gold_evidence: [{ chunk_id: "leave_v3_s2", document_id: "leave_policy", document_version: "v3", section_id: "s2", text: policyChunks[0]!.text }],
  reference_answer: fakeAnswer,
});
