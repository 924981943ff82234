/**
 * A second LangChain.js retriever setup, shaped like retrievers met in the
 * wild: a custom BaseRetriever that returns LangChain `Document`s carrying
 * their store id in `Document.id` and the similarity score in
 * `metadata.score`, and a `document_id` in the metadata only where the loader
 * knew one. The golden policy question's top two chunks come back as
 *   1. id leave_v3_s2, metadata { score, document_id: "leave_policy" }
 *   2. id leave_v2_s2, metadata { score }
 * so a rebuild must read the ids from the documents, the scores from the
 * metadata, and leave the second chunk's document id unknown (null).
 * The rest of the chain is the one of langchain-rag-chain.ts.
 */
import type { CallbackManagerForRetrieverRun } from "@langchain/core/callbacks/manager";
import { Document, type DocumentInterface } from "@langchain/core/documents";
import { StringOutputParser } from "@langchain/core/output_parsers";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { BaseRetriever } from "@langchain/core/retrievers";
import { RunnableLambda, RunnablePassthrough, RunnableSequence, type Runnable } from "@langchain/core/runnables";
import { MeteredFakeChatModel } from "./langchain-rag-chain.js";
import { fakeAnswer } from "./policy-corpus.js";

export interface ScoredHit {
  id: string;
  text: string;
  score: number;
  /** Absent: the loader recorded no document id for this chunk. */
  documentId?: string;
}

/** What the retriever returns for the golden question, best first. */
export const scoredHits: readonly ScoredHit[] = [
  { id: "leave_v3_s2", text: "年假结转：未使用的年假最多可结转 5 天到下一年度，结转部分须在次年 3 月 31 日前休完。", score: 0.91, documentId: "leave_policy" },
  { id: "leave_v2_s2", text: "年假结转：未使用的年假不可结转到下一年度，年底自动清零。", score: 0.74 },
];

class ScoredPolicyRetriever extends BaseRetriever {
  lc_namespace = ["ragscope", "golden"];

  override async _getRelevantDocuments(_query: string, _runManager?: CallbackManagerForRetrieverRun): Promise<DocumentInterface[]> {
    return scoredHits.map(
      (hit) => new Document({ id: hit.id, pageContent: hit.text, metadata: { score: hit.score, ...(hit.documentId ? { document_id: hit.documentId } : {}) } }),
    );
  }
}

export function buildScoredRetrieverChain(): Runnable<string, string> {
  const formatDocuments = RunnableLambda.from((documents: Document[]) => documents.map((document) => document.pageContent).join("\n\n")).withConfig({
    runName: "formatDocuments",
  });
  const prompt = ChatPromptTemplate.fromMessages([
    ["system", "只根据下面的资料回答问题。\n\n{context}"],
    ["human", "{question}"],
  ]);
  return RunnableSequence.from([
    { context: new ScoredPolicyRetriever().pipe(formatDocuments), question: new RunnablePassthrough() },
    prompt,
    new MeteredFakeChatModel({ responses: [fakeAnswer] }),
    new StringOutputParser(),
  ]).withConfig({ runName: "policy_rag_chain" }) as Runnable<string, string>;
}
