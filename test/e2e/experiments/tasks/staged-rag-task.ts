/**
 * A traced task whose every stage the case scripts in its metadata, through
 * the SDK's stage wrappers as an application calls them:
 * `retrieve` (the retriever's chunks, in order), `rerank` (the reranker's
 * output as chunk ids from `retrieve`, in its order; `"throw"` makes the
 * reranker throw, so the task throws mid-way), `context` (the packed prompt:
 * `chunks` in prompt order, a `budget` in characters that cuts the joined
 * texts, the chunk the cut falls in recorded as truncated), `answer` and
 * `cite` (the chunk ids the answer cites).
 */
import type { EvalCase } from "../../../../contracts/eval-case.js";
import { traceCite, traceContext, traceGenerate, traceRerank, traceRetrieve, type ChunkRecord } from "../../../../instrumentation/index.js";

interface Script {
  retrieve: { chunk: string; document: string; text: string }[];
  rerank?: string[] | "throw";
  context?: { chunks: string[]; budget?: number };
  answer: string;
  cite?: string[];
}

/** Joins the chunks' texts in prompt order and cuts at the budget; the chunk the cut falls in is truncated, later ones dropped. */
function packContext(chunks: ChunkRecord[], budget: number | undefined) {
  const packed: string[] = [];
  const truncated: string[] = [];
  const dropped: { chunkId: string; reason: string }[] = [];
  let used = 0;
  for (const chunk of chunks) {
    const text = chunk.text ?? "";
    const separator = packed.length > 0 ? 1 : 0;
    if (budget === undefined || used + separator + text.length <= budget) {
      packed.push(chunk.chunkId);
      used += separator + text.length;
      continue;
    }
    const room = budget - used - separator;
    if (room > 0 && truncated.length === 0 && dropped.length === 0) {
      packed.push(chunk.chunkId);
      truncated.push(chunk.chunkId);
      used = budget;
    } else {
      dropped.push({ chunkId: chunk.chunkId, reason: "token budget" });
    }
  }
  const byId = new Map(chunks.map((chunk) => [chunk.chunkId, chunk.text ?? ""]));
  const text = packed.map((id) => byId.get(id)!).join("\n");
  return { text: budget === undefined ? text : text.slice(0, budget), chunkIds: packed, truncatedChunkIds: truncated, droppedChunks: dropped };
}

export default async function stagedRagTask(evalCase: EvalCase): Promise<string> {
  const script = evalCase.metadata as unknown as Script;
  const retrieved: ChunkRecord[] = script.retrieve.map((chunk, index) => ({ chunkId: chunk.chunk, documentId: chunk.document, text: chunk.text, score: 1 - index / 10 }));
  await traceRetrieve({ query: evalCase.input, topK: 5, retriever: "scripted" }, () => retrieved);
  let ranked = retrieved;
  if (script.rerank !== undefined) {
    const order = script.rerank;
    ranked = await traceRerank({ query: evalCase.input, input: retrieved, topK: 5 }, () => {
      if (order === "throw") throw new Error("reranker backend unavailable (HTTP 503)");
      return order.map((id, index) => ({ ...retrieved.find((chunk) => chunk.chunkId === id)!, score: 1 - index / 10 }));
    });
  }
  const wanted = script.context?.chunks ?? ranked.map((chunk) => chunk.chunkId);
  const budget = script.context?.budget;
  const context = packContext(
    wanted.map((id) => ranked.find((chunk) => chunk.chunkId === id)!),
    budget,
  );
  await traceContext({ ...(budget === undefined ? {} : { tokenBudget: budget }) }, () => context);
  const generated = await traceGenerate({ model: "scripted-model" }, () => ({ text: script.answer, inputTokens: 50, outputTokens: 10 }));
  if (script.cite !== undefined) await traceCite(() => script.cite!);
  return generated.text;
}
