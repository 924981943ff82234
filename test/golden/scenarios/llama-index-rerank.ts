/**
 * The Python golden's scenario (python/llama_index_policy_rag.py): the policy
 * corpus and question of policy-corpus.ts, asked of a LlamaIndex query engine
 * that retrieves the top 3 chunks, reranks them with StructuredLLMRerank and
 * keeps the best 2, then answers. The fake chat-completions endpoint answers
 * the rerank call with the relevance scores below (LlamaIndex numbers the
 * retrieved chunks from 1, in the store's order) and the answer call with the
 * golden answer; each call reports its own token usage.
 */
import { Ragscope } from "../../../contracts/span-attributes.js";
import { fakeModelName } from "./langchain-rag-chain.js";
import { fakeAnswer, goldenRun, policyChunks, question, retrievalTopK } from "./policy-corpus.js";

export const rerankTopN = 2;

/** What the reranking LLM answers for the store's top 3: the current policy (retrieved second) first. */
export const rerankRelevances: readonly { document_number: number; relevance: number }[] = [
  { document_number: 2, relevance: 9 },
  { document_number: 1, relevance: 6 },
  { document_number: 3, relevance: 1 },
];

export const rerankUsage = { promptTokens: 211, completionTokens: 38 } as const;
export const answerUsage = { promptTokens: 137, completionTokens: [...fakeAnswer].length } as const;

/** The reranked top chunks: the store's ranking reordered by the scripted relevances, best `rerankTopN` kept. */
export function rerankedRanking(storeRanking: readonly string[]): { chunkId: string; relevance: number }[] {
  return [...rerankRelevances]
    .sort((left, right) => right.relevance - left.relevance)
    .slice(0, rerankTopN)
    .map((choice) => ({ chunkId: storeRanking[choice.document_number - 1]!, relevance: choice.relevance }));
}

/** The scenario JSON the Python app reads. */
export function llamaIndexScenario(idSeed: number): Record<string, unknown> {
  return {
    idSeed,
    question,
    answer: fakeAnswer,
    chunks: policyChunks,
    topK: retrievalTopK,
    model: fakeModelName,
    rerank: { topN: rerankTopN, relevances: rerankRelevances, usage: rerankUsage },
    answerUsage,
    linkage: { [Ragscope.runId]: goldenRun.runId, [Ragscope.caseId]: goldenRun.caseId, [Ragscope.caseVersion]: goldenRun.caseVersion },
  };
}
