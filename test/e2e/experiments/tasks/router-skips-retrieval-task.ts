/**
 * A router: the refund question goes through retrieval, which ranks the case's chunk first; every other question is
 * answered by the model alone, with no retrieval recorded.
 */
import type { EvalCase } from "../../../../contracts/eval-case.js";
import { traceGenerate, traceRetrieve } from "../../../../instrumentation/index.js";

export default async function routerTask(evalCase: EvalCase): Promise<string> {
  if (evalCase.case_id === "refund_window") {
    await traceRetrieve({ query: evalCase.input, topK: 2, retriever: "test-retriever" }, () => [
      { chunkId: "refund-1", documentId: "refund-policy", text: "Refunds are possible within 30 days of delivery.", score: 0.9 },
      { chunkId: "hours-1", documentId: "opening-hours", text: "The shop opens at nine.", score: 0.5 },
    ]);
  }
  const generated = await traceGenerate({ model: "test-model" }, () => ({ text: "Refunds are possible within 30 days of delivery.", inputTokens: 50, outputTokens: 10 }));
  return generated.text;
}
