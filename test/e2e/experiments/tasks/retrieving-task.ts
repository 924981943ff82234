/**
 * A task with a traced retrieval and generation: it retrieves the chunk named
 * in the case's metadata.retrieve (the gold chunk for a case meant to pass,
 * another one otherwise) and answers with metadata.answer, at a cost of
 * 0.01 USD per case (seed §七: cost per successful task).
 */
import type { EvalCase } from "../../../../contracts/eval-case.js";
import { traceGenerate, traceRetrieve } from "../../../../instrumentation/index.js";

export default async function retrievingTask(evalCase: EvalCase): Promise<string> {
  const metadata = evalCase.metadata as { retrieve?: { document: string; chunk: string; text: string }; answer?: string };
  const retrieved = metadata.retrieve ?? { document: "doc_unrelated", chunk: "chunk_unrelated", text: "Opening hours are nine to five." };
  await traceRetrieve({ query: evalCase.input, topK: 5, retriever: "test-retriever" }, () => [{ chunkId: retrieved.chunk, documentId: retrieved.document, text: retrieved.text, score: 0.9 }]);
  const answer = metadata.answer ?? "The documents do not say.";
  const generated = await traceGenerate({ model: "test-model" }, () => ({ text: answer, inputTokens: 100, outputTokens: 20, cost: 0.01 }));
  return generated.text;
}
