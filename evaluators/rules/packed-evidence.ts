/**
 * What the packed chunks hold as the prompt holds them. A chunk cut to fit
 * the budget (`context_chunks[].truncated`) is in the context only up to the
 * cut: it covers only the evidence characters the context text still has,
 * and only its tokens the context text still has count as context. The
 * context metrics (recall, precision, evidence density) measure the prompt
 * the generator was given, not the chunk as it was retrieved: a gold chunk
 * whose evidence sentence was cut off holds no evidence there (seed 004 §四:
 * Evidence Density = 有效证据 Token 数 / 上下文总 Token 数, of the context).
 */
import type { GoldEvidence } from "../../contracts/eval-case.js";
import type { EvidenceCoverageOptions } from "../evidence/evidence-coverage-options.js";
import { holdersAmong } from "../evidence/evidence-set-coverage.js";
import { coverOfChunk, textCover, type ChunkCover } from "../evidence/match-evidence.js";
import type { PackedChunk } from "../evidence/packed-chunks.js";
import { countCovered } from "../evidence/text-coverage.js";
import { tokenize } from "../text/normalize-text.js";

/** What a packed chunk covers of the evidence in the prompt: a cut chunk only what the context text still holds. */
export function coverInContext(chunk: PackedChunk, evidence: GoldEvidence, contextText: string | null): ChunkCover {
  const cover = coverOfChunk(chunk, evidence);
  if (!chunk.truncated || cover.covered === null) return cover;
  const inContext = textCover(contextText, evidence.text, "contained");
  if (inContext === null) return { rule: cover.rule, covered: null, share: 0 };
  const surviving = cover.covered === "all" ? inContext : inContext.map((flag, position) => flag & (cover.covered as Uint8Array)[position]!);
  return { rule: cover.rule, covered: surviving, share: surviving.length === 0 ? 0 : countCovered(surviving) / surviving.length };
}

/**
 * For each packed chunk, whether it holds any of the gold evidence in the
 * prompt (enough alone, or an indispensable piece of a split:
 * evidence-set-coverage.ts), a cut chunk by what the context text kept of
 * it. A chunk id packed twice is one chunk, as in chunksHoldingEvidence.
 */
export function packedChunksHoldingEvidence(packed: readonly PackedChunk[], gold: readonly GoldEvidence[], contextText: string | null, options: EvidenceCoverageOptions): boolean[] {
  const key = (chunk: PackedChunk): string | PackedChunk => chunk.chunk_id ?? chunk;
  const distinct = [...new Map(packed.map((chunk) => [key(chunk), chunk] as const)).values()];
  const holdingIds = new Set<string | PackedChunk>();
  for (const evidence of gold) {
    holdersAmong(
      distinct.map((chunk) => coverInContext(chunk, evidence, contextText)),
      options,
    ).forEach((holder, index) => {
      if (holder) holdingIds.add(key(distinct[index]!));
    });
  }
  return packed.map((chunk) => holdingIds.has(key(chunk)));
}

/**
 * The tokens (normalize-text.ts tokenize) of a packed chunk that are in the
 * prompt: all of them for a chunk packed whole; for a cut one, the longest
 * run of its tokens from its start — or, when the cut kept its end, from its
 * end — that the context text holds in order. A word the cut split is not
 * counted. Null for a cut chunk when the trace recorded no context text, or
 * when the chunk's text was not recorded: what reached the prompt is unknown.
 */
export function tokensInContext(chunk: PackedChunk, contextText: string | null): number | null {
  if (chunk.text === null) return null;
  const tokens = tokenize(chunk.text);
  if (!chunk.truncated) return tokens.length;
  if (contextText === null) return null;
  const haystack = joined(tokenize(contextText));
  const held = (run: readonly string[]) => haystack.includes(joined(run));
  const fromStart = longestHeldRun(tokens.length, (length) => held(tokens.slice(0, length)));
  const fromEnd = longestHeldRun(tokens.length, (length) => held(tokens.slice(tokens.length - length)));
  return Math.max(fromStart, fromEnd);
}

/** Tokens joined so that a run matches only whole tokens in order. */
function joined(tokens: readonly string[]): string {
  return `\u0000${tokens.join("\u0000")}\u0000`;
}

/** The largest length in [0, total] for which `holds` is true; `holds` is monotone (a shorter run of a held run is held). */
function longestHeldRun(total: number, holds: (length: number) => boolean): number {
  let low = 0;
  let high = total;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (holds(middle)) low = middle;
    else high = middle - 1;
  }
  return low;
}
