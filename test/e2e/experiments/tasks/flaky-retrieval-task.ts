/**
 * A retrieval that ranks the case's relevant chunk first on every repeat but
 * the second, where it comes third: repeat 2 fails `hit_at_1 >= 1` while
 * repeats 1 and 3 meet it.
 */
import type { EvalCase } from "../../../../contracts/eval-case.js";
import { traceGenerate, traceRetrieve } from "../../../../instrumentation/index.js";

export default async function flakyRetrievalTask(_evalCase: EvalCase, context: { repeat: number }): Promise<string> {
  const relevant = { chunkId: "refund-1", documentId: "refund-policy", text: "Refunds are possible within 30 days of delivery.", score: 0.9 };
  const others = [
    { chunkId: "hours-1", documentId: "opening-hours", text: "The shop opens at nine.", score: 0.8 },
    { chunkId: "points-1", documentId: "member-points", text: "Members collect one point per euro.", score: 0.7 },
  ];
  const ranked = context.repeat === 2 ? [others[0]!, others[1]!, relevant] : [relevant, ...others];
  await traceRetrieve({ query: "refunds", topK: 3, retriever: "test-retriever" }, () => ranked);
  const generated = await traceGenerate({ model: "test-model" }, () => ({ text: "Refunds are possible within 30 days of delivery.", inputTokens: 50, outputTokens: 10 }));
  return generated.text;
}
