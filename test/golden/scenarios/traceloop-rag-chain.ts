/**
 * The golden request as a LangChain.js application traced with Traceloop's
 * OpenLLMetry instrumentations would run it: an LCEL chain whose retrieval
 * step is a function over the vector store's `similaritySearchWithScore`
 * (Traceloop's LangChain instrumentation has no retriever callback, so a
 * retriever appears only as a chain step, its `[Document, score]` pairs in
 * the step's `traceloop.entity.output`), a step that packs the documents
 * into the prompt's context, and the model called through the real openai
 * client (answered by the scripted fake endpoint, scenarios/fake-openai-fetch.ts).
 */
import type { DocumentInterface } from "@langchain/core/documents";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import type { ChatPromptValue } from "@langchain/core/prompt_values";
import { RunnableLambda, RunnablePassthrough, RunnableSequence, type Runnable } from "@langchain/core/runnables";
import type OpenAI from "openai";
import { buildPolicyStore, fakeModelName } from "./langchain-rag-chain.js";
import { retrievalTopK } from "./policy-corpus.js";

type ScoredDocument = [DocumentInterface, number];

export async function buildTraceloopPolicyChain(client: OpenAI): Promise<Runnable<string, string>> {
  const store = await buildPolicyStore();
  const retrieve = RunnableLambda.from(async (query: string): Promise<ScoredDocument[]> =>
    (await store.similaritySearchWithScore(query, retrievalTopK)).map(([document, score]) => [document, Math.round(score * 1e6) / 1e6]),
  ).withConfig({ runName: "retrieve" });
  const formatDocuments = RunnableLambda.from((hits: ScoredDocument[]) => hits.map(([document]) => document.pageContent).join("\n\n")).withConfig({
    runName: "formatDocuments",
  });
  const prompt = ChatPromptTemplate.fromMessages([
    ["system", "只根据下面的资料回答问题。\n\n{context}"],
    ["human", "{question}"],
  ]);
  const generate = RunnableLambda.from(async (value: ChatPromptValue): Promise<string> => {
    const messages = value.toChatMessages().map((message) => ({
      role: message.getType() === "system" ? ("system" as const) : ("user" as const),
      content: String(message.content),
    }));
    const completion = await client.chat.completions.create({ model: fakeModelName, messages });
    return completion.choices[0]?.message.content ?? "";
  }).withConfig({ runName: "generate" });
  return RunnableSequence.from([
    { context: retrieve.pipe(formatDocuments), question: new RunnablePassthrough() },
    prompt,
    generate,
  ]).withConfig({ runName: "policy_rag_chain" }) as Runnable<string, string>;
}
