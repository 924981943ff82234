/**
 * The README's toy pipeline ("Instrumenting a RAG service") as an eval task: a search that ignores ACLs returns the
 * staff-only fraud playbook for a customer, and the rerank drops it, so it never reaches the context or the answer.
 * The request carries the customer's groups and tenant (traceRequest joins the request span eval opens).
 */
import type { EvalCase } from "../../../../contracts/eval-case.js";
import { traceCite, traceContext, traceGenerate, traceRequest, traceRerank, traceRetrieve } from "../../../../instrumentation/index.js";

const corpus = [
  { chunkId: "refund-1", documentId: "refund-policy", documentVersion: "v3", text: "Refunds reach the original payment method within 7 days.", acl: ["staff", "customer"] },
  { chunkId: "points-1", documentId: "member-points", documentVersion: "v2", text: "Member points expire 12 months after they are earned.", acl: ["staff", "customer"] },
  { chunkId: "fraud-1", documentId: "fraud-playbook", documentVersion: "v1", text: "Escalate refunds above 5000 to the fraud team.", acl: ["staff"] },
];
const words = (text: string) => new Set(text.toLowerCase().match(/[a-z0-9]+/g));
// Every chunk, best overlap first, whoever asks: the ACLs are not looked at.
const search = (query: string) =>
  corpus.map((chunk) => ({ ...chunk, score: [...words(query)].filter((word) => words(chunk.text).has(word)).length })).sort((left, right) => right.score - left.score);

export default async function aclIgnoringSearchTask(evalCase: EvalCase): Promise<string> {
  return traceRequest({ query: evalCase.input, tenantId: "acme", principalId: "user-7", principalGroups: ["customer"] }, async () => {
    const retrieved = await traceRetrieve({ query: evalCase.input, topK: 3 }, () => search(evalCase.input));
    // The rerank keeps what the customer may read, so the fraud playbook is dropped before the context.
    const reranked = await traceRerank({ query: evalCase.input, input: retrieved, topK: 2 }, () => retrieved.filter((chunk) => chunk.acl.includes("customer")).slice(0, 2));
    const context = await traceContext({ tokenBudget: 2000 }, () => ({ text: reranked.map((chunk) => chunk.text).join("\n"), chunkIds: reranked.map((chunk) => chunk.chunkId) }));
    const generation = await traceGenerate({ model: "toy-model" }, () => ({ text: reranked[0]!.text, inputTokens: context.text.length, outputTokens: 12 }));
    await traceCite(() => [reranked[0]!.chunkId]);
    return generation.text;
  });
}
