/**
 * A baseline that differs from the example task on known cases: three cases
 * the example passes get a wrong answer here, and the case the example fails
 * on permissions (a customer retrieves a finance-only chunk) asks as finance staff.
 */
import type { EvalCase } from "../../../../contracts/eval-case.js";
import { createPolicyAssistant, replayForCase } from "../../../../examples/policy-assistant/index.js";

export const WRONG_ANSWER_CASES = ["rag_coupon_per_order_001", "rag_e_invoice_001", "rag_points_expiry_001"];
export const STAFF_CASES = ["rag_refund_arrival_001"];

const assistant = createPolicyAssistant();

export default async function baselineTask(evalCase: EvalCase, context: { runId: string }): Promise<string> {
  const replay = replayForCase(evalCase, context.runId);
  const staff = STAFF_CASES.includes(evalCase.case_id);
  const result = await assistant.answer(replay.question, { ...replay.request, ...(staff ? { principalGroups: ["finance_staff"] } : {}) });
  return WRONG_ANSWER_CASES.includes(evalCase.case_id) ? "请联系客服咨询。" : result.answer;
}
