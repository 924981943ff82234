/**
 * Context assembly: pack retrieved chunks into the prompt under a token budget.
 *
 * Chunks are taken in rank order; a chunk that does not fit in what is left of
 * the budget is dropped whole (reason "token_budget") and the next one is
 * tried. Nothing is cut mid-text. Tokens are counted by pipeline/text-terms.ts
 * (one per Han character, one per English word).
 *
 * The default budget is tight on purpose (examples/README.md "Designed flaws"):
 * a long first chunk pushes the evidence ranked below it out of the prompt,
 * which is how the seed case loses its evidence (CONTEXT_TRUNCATED).
 */
import type { RankedChunk } from "./lexical-retriever.js";
import { countTokens } from "./text-terms.js";

export const DEFAULT_CONTEXT_TOKEN_BUDGET = 34;

export interface DroppedChunk {
  chunkId: string;
  reason: string;
}

export interface AssembledContext {
  /** Packed chunk texts, one per line, in prompt order. */
  text: string;
  /** Packed chunks in prompt order (which is rank order). */
  chunks: RankedChunk[];
  dropped: DroppedChunk[];
  tokenCount: number;
  tokenBudget: number;
}

export function assembleContext(candidates: readonly RankedChunk[], tokenBudget: number): AssembledContext {
  const chunks: RankedChunk[] = [];
  const dropped: DroppedChunk[] = [];
  let tokenCount = 0;
  for (const candidate of candidates) {
    const tokens = countTokens(candidate.chunk.text);
    if (tokenCount + tokens > tokenBudget) {
      dropped.push({ chunkId: candidate.chunk.chunk_id, reason: "token_budget" });
      continue;
    }
    chunks.push(candidate);
    tokenCount += tokens;
  }
  return {
    text: chunks.map((candidate) => candidate.chunk.text).join("\n"),
    chunks,
    dropped,
    tokenCount,
    tokenBudget,
  };
}
