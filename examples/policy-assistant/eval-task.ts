/**
 * The task module of `ragscope eval` for the policy assistant: one Eval Case
 * in, the assistant's answer out. ragscope opens the request span with the
 * run and case linkage; the assistant's own request joins it and adds who is
 * asking (the case's `context`: tenant_id, principal_id, principal_groups).
 *
 *   ragscope eval --dataset examples/datasets/policy-regression.yaml --task examples/policy-assistant/eval-task.ts
 */
import type { EvalCase } from "../../contracts/eval-case.js";
import { replayForCase } from "./case-request.js";
import { createPolicyAssistant, RETRIEVER_NAME } from "./create-policy-assistant.js";
import { GENERATOR_MODEL, PROMPT_VERSION } from "./pipeline/extractive-generator.js";

const assistant = createPolicyAssistant();

/** What this pipeline runs: stored as the run's lineage. */
export const lineage = { retriever_version: RETRIEVER_NAME, prompt_version: PROMPT_VERSION, generator_model: GENERATOR_MODEL };

export default async function answerCase(evalCase: EvalCase, context: { runId: string }): Promise<string> {
  const replay = replayForCase(evalCase, context.runId);
  const result = await assistant.answer(replay.question, replay.request);
  return result.answer;
}
