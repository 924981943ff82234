/**
 * The retrieving task (retrieving-task.ts) at the cost per case that
 * TEST_COST_PER_CASE gives, in USD: two runs of one dataset that differ only
 * in what a request costs, as after a switch to a cheaper model; and
 * TEST_ANSWER_ADDITION, when set, added to every answer (an answer that
 * says more than its context, for a judge to score lower); and
 * TEST_TIME_TO_FIRST_TOKEN_MS, when set, the time to first token each
 * generation records.
 */
import type { EvalCase } from "../../../../contracts/eval-case.js";
import { traceGenerate, traceRetrieve } from "../../../../instrumentation/index.js";

export default async function pricedTask(evalCase: EvalCase): Promise<string> {
  const metadata = evalCase.metadata as { retrieve?: { document: string; chunk: string; text: string }; answer?: string };
  if (!metadata.retrieve || metadata.answer === undefined) throw new Error(`case ${evalCase.case_id}: metadata.retrieve and metadata.answer are needed`);
  const { retrieve, answer } = metadata;
  const cost = Number(process.env.TEST_COST_PER_CASE);
  if (!Number.isFinite(cost)) throw new Error("TEST_COST_PER_CASE: a cost in USD is needed");
  await traceRetrieve({ query: evalCase.input, topK: 5, retriever: "test-retriever" }, () => [{ chunkId: retrieve.chunk, documentId: retrieve.document, text: retrieve.text, score: 0.9 }]);
  const firstToken = process.env.TEST_TIME_TO_FIRST_TOKEN_MS;
  const generated = await traceGenerate({ model: "test-model" }, () => ({
    text: `${answer}${process.env.TEST_ANSWER_ADDITION ?? ""}`,
    inputTokens: 100,
    outputTokens: 20,
    cost,
    ...(firstToken === undefined ? {} : { timeToFirstTokenMs: Number(firstToken) }),
  }));
  return generated.text;
}
