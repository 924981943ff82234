/**
 * A task that retrieves the chunks named in the case's metadata.retrieve, in
 * that order and as often as they are listed (a retriever that returns one
 * chunk twice), and answers with metadata.answer.
 */
import type { EvalCase } from "../../../../contracts/eval-case.js";
import { traceGenerate, traceRetrieve } from "../../../../instrumentation/index.js";

interface ListedChunk {
  document: string;
  chunk: string;
  text: string;
}

export default async function listedChunksTask(evalCase: EvalCase): Promise<string> {
  const metadata = evalCase.metadata as { retrieve?: ListedChunk[]; answer?: string };
  await traceRetrieve({ query: evalCase.input, topK: 5, retriever: "test-retriever" }, () =>
    (metadata.retrieve ?? []).map((listed, index) => ({ chunkId: listed.chunk, documentId: listed.document, text: listed.text, score: 0.9 - index * 0.1 })),
  );
  const answer = metadata.answer ?? "The documents do not say.";
  const generated = await traceGenerate({ model: "test-model" }, () => ({ text: answer, inputTokens: 100, outputTokens: 20, cost: 0.01 }));
  return generated.text;
}
