/**
 * A task that answers in two LLM calls (a draft, then the answer), each recording the input tokens the case's
 * metadata.input_tokens gives and 10 output tokens: a request's usage is the sum over its calls
 * (collector/06-rebuild/request-usage.ts), so two calls each within a bound can add up beyond it.
 */
import type { EvalCase } from "../../../../contracts/eval-case.js";
import { traceGenerate } from "../../../../instrumentation/index.js";

export default async function twoCallsTask(evalCase: EvalCase): Promise<string> {
  const metadata = evalCase.metadata as { input_tokens?: number; answer?: string };
  if (metadata.input_tokens === undefined || metadata.answer === undefined) throw new Error(`case ${evalCase.case_id}: metadata.input_tokens and metadata.answer are needed`);
  const { input_tokens: inputTokens, answer } = metadata;
  await traceGenerate({ model: "test-model" }, () => ({ text: "a draft", inputTokens, outputTokens: 10 }));
  const generated = await traceGenerate({ model: "test-model" }, () => ({ text: answer, inputTokens, outputTokens: 10 }));
  return generated.text;
}
