/**
 * A real LangChain.js RAG chain that needs no network: a VectorStoreRetriever
 * over an in-memory vector store with a deterministic embedding, a prompt
 * template, a fake chat model that reports token usage the way provider
 * models do (`usage_metadata` on the AIMessage), and a string output parser —
 * the LCEL shape of LangChain's own RAG tutorial.
 */
import { Document } from "@langchain/core/documents";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { StringOutputParser } from "@langchain/core/output_parsers";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { RunnableLambda, RunnablePassthrough, RunnableSequence, type Runnable } from "@langchain/core/runnables";
import type { ChatResult } from "@langchain/core/outputs";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { DeterministicEmbeddings } from "./deterministic-embeddings.js";
import { InMemoryVectorStore } from "./in-memory-vector-store.js";
import { fakeAnswer, policyChunks, retrievalTopK, type PolicyChunk } from "./policy-corpus.js";

export const fakeModelName = "fake-policy-model";

/** FakeListChatModel plus what real chat models report: a model name and token usage. */
export class MeteredFakeChatModel extends FakeListChatModel {
  override invocationParams(): Record<string, unknown> {
    return { model: fakeModelName };
  }

  override async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const text = this.responses[0] ?? "";
    const inputTokens = messages.reduce((total, message) => total + String(message.content).length, 0);
    const message = new AIMessage({
      content: text,
      usage_metadata: { input_tokens: inputTokens, output_tokens: text.length, total_tokens: inputTokens + text.length },
    });
    return { generations: [{ message, text }], llmOutput: {} };
  }
}

/** The corpus in the in-memory store, each chunk's ids in `Document.metadata` as LangChain loaders keep them. */
export async function buildPolicyStore(): Promise<InMemoryVectorStore> {
  const store = new InMemoryVectorStore(new DeterministicEmbeddings());
  await store.addDocuments(
    policyChunks.map(
      (chunk) =>
        new Document({
          pageContent: chunk.text,
          metadata: {
            chunk_id: chunk.chunkId,
            document_id: chunk.documentId,
            document_version: chunk.documentVersion,
            section_id: chunk.sectionId,
            ...(chunk.effectiveFrom ? { effective_from: chunk.effectiveFrom } : {}),
            ...(chunk.effectiveTo ? { effective_to: chunk.effectiveTo } : {}),
          },
        }),
    ),
  );
  return store;
}

/** The store's ranking for a query, for the scenarios that build their spans by hand. */
export async function retrievePolicyChunks(query: string, k: number): Promise<{ chunk: PolicyChunk; score: number }[]> {
  const store = await buildPolicyStore();
  const hits = await store.similaritySearchWithScore(query, k);
  return hits.map(([document, score]) => ({ chunk: policyChunks.find((chunk) => chunk.chunkId === document.metadata.chunk_id)!, score: Math.round(score * 1e6) / 1e6 }));
}

export async function buildPolicyChain(): Promise<Runnable<string, string>> {
  const store = await buildPolicyStore();
  const formatDocuments = RunnableLambda.from((documents: Document[]) => documents.map((document) => document.pageContent).join("\n\n")).withConfig({
    runName: "formatDocuments",
  });
  const prompt = ChatPromptTemplate.fromMessages([
    ["system", "只根据下面的资料回答问题。\n\n{context}"],
    ["human", "{question}"],
  ]);
  return RunnableSequence.from([
    { context: store.asRetriever({ k: retrievalTopK }).pipe(formatDocuments), question: new RunnablePassthrough() },
    prompt,
    new MeteredFakeChatModel({ responses: [fakeAnswer] }),
    new StringOutputParser(),
  ]).withConfig({ runName: "policy_rag_chain" }) as Runnable<string, string>;
}
