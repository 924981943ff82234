/**
 * What a list of chunks covers of one piece of gold evidence together.
 *
 * Chunk boundaries rarely fall where the evidence's do: a passage is split
 * across two chunks, or a chunk holds the end of one passage and the start of
 * the next. So the covered characters of several chunks are summed as a union
 * (a character covered by two overlapping chunks counts once), and the
 * evidence is covered at the first position in the list (the rank, for a
 * ranking) where the union reaches the minimum coverage. A chunk that ids
 * identify as the evidence covers all of it (match-evidence.ts).
 *
 * A chunk holds the evidence within a list when it covers enough on its own,
 * or when the list covers it enough and without that chunk it would not: the
 * pieces of a split evidence each hold it; a redundant copy, or a chunk that
 * shares only a stray phrase, does not.
 *
 * Cost: one ChunkCover per (chunk, evidence) pair (linear, text-coverage.ts)
 * and O(evidence characters) per chunk for the union.
 */
import type { GoldEvidence } from "../../contracts/eval-case.js";
import { DEFAULT_EVIDENCE_COVERAGE_OPTIONS, type EvidenceCoverageOptions } from "./evidence-coverage-options.js";
import { coverOfChunk, type ChunkCover, type ChunkLike, type MatchRule } from "./match-evidence.js";

/** The union of what chunks covered so far. */
export class CoverageUnion {
  private all = false;
  private mask: Uint8Array | null = null;
  private count = 0;

  /** Adds a chunk's cover; returns how many characters it added (Infinity when it covers all of a not yet whole union). */
  add(cover: ChunkCover): number {
    if (cover.covered === null || this.all) return 0;
    if (cover.covered === "all") {
      this.all = true;
      return Number.POSITIVE_INFINITY;
    }
    const covered = cover.covered;
    if (this.mask === null) this.mask = new Uint8Array(covered.length);
    let added = 0;
    for (let position = 0; position < covered.length; position += 1) {
      if (covered[position] === 1 && this.mask[position] === 0) {
        this.mask[position] = 1;
        added += 1;
      }
    }
    this.count += added;
    return added;
  }

  get share(): number {
    if (this.all) return 1;
    return this.mask === null || this.mask.length === 0 ? 0 : this.count / this.mask.length;
  }

  reaches(options: EvidenceCoverageOptions): boolean {
    return (this.all || this.mask !== null) && this.share >= options.minCoverage;
  }
}

export interface EvidenceSetCover {
  /** 1-based position at which the chunks so far first cover enough of the evidence; null when they never do. */
  coveredAt: number | null;
  /** The rule of the chunk at coveredAt. */
  rule: MatchRule | null;
  /** 0-based positions of the chunks that added covered characters, up to coveredAt (the whole list when never covered). */
  contributors: number[];
  /** Share of the evidence the whole list covers. */
  share: number;
}

export function coverEvidenceWith(covers: readonly ChunkCover[], options: EvidenceCoverageOptions): EvidenceSetCover {
  const union = new CoverageUnion();
  const contributors: number[] = [];
  let coveredAt: number | null = null;
  let rule: MatchRule | null = null;
  covers.forEach((cover, position) => {
    const added = union.add(cover);
    if (coveredAt !== null) return;
    if (added > 0) contributors.push(position);
    if (union.reaches(options)) {
      coveredAt = position + 1;
      rule = cover.rule;
    }
  });
  return { coveredAt, rule, contributors, share: union.share };
}

export function coverEvidence(chunks: readonly ChunkLike[], evidence: GoldEvidence, options: EvidenceCoverageOptions = DEFAULT_EVIDENCE_COVERAGE_OPTIONS): EvidenceSetCover {
  return coverEvidenceWith(
    chunks.map((chunk) => coverOfChunk(chunk, evidence)),
    options,
  );
}

/**
 * Which of the covers hold the evidence within the list: enough alone, or
 * indispensable to a union that is enough. Linear: a per-character count of
 * covering chunks tells what each chunk alone adds.
 */
export function holdersAmong(covers: readonly ChunkCover[], options: EvidenceCoverageOptions): boolean[] {
  const holds = covers.map((cover) => cover.covered !== null && cover.share >= options.minCoverage);
  const union = new CoverageUnion();
  for (const cover of covers) union.add(cover);
  if (!union.reaches(options)) return holds;
  const wholeCovers = covers.filter((cover) => cover.covered === "all").length;
  const masks = covers.map((cover) => (cover.covered instanceof Uint8Array ? cover.covered : null));
  const length = masks.find((mask) => mask !== null)?.length ?? 0;
  const coveringChunks = new Int32Array(length);
  for (const mask of masks) if (mask !== null) for (let position = 0; position < length; position += 1) coveringChunks[position]! += mask[position]!;
  let textCovered = 0;
  for (const count of coveringChunks) if (count > 0) textCovered += 1;
  return covers.map((cover, index) => {
    if (holds[index]) return true;
    if (wholeCovers > 0) return false; // a chunk the ids name as the evidence covers it without this one
    const mask = masks[index];
    if (mask === null || mask === undefined || length === 0) return false;
    let onlyHere = 0;
    for (let position = 0; position < length; position += 1) if (mask[position] === 1 && coveringChunks[position] === 1) onlyHere += 1;
    return onlyHere > 0 && (textCovered - onlyHere) / length < options.minCoverage;
  });
}

/**
 * For each chunk, whether it holds any of the gold evidence within the list.
 * A chunk id listed twice is one chunk: its second copy neither holds
 * evidence of its own nor makes the first redundant.
 */
export function chunksHoldingEvidence(chunks: readonly ChunkLike[], gold: readonly GoldEvidence[], options: EvidenceCoverageOptions = DEFAULT_EVIDENCE_COVERAGE_OPTIONS): boolean[] {
  // A chunk without an id is its own entry: never taken for a copy of another.
  const key = (chunk: ChunkLike): string | ChunkLike => chunk.chunk_id ?? chunk;
  const distinct = [...new Map(chunks.map((chunk) => [key(chunk), chunk] as const)).values()];
  const holdingIds = new Set<string | ChunkLike>();
  for (const evidence of gold) {
    holdersAmong(
      distinct.map((chunk) => coverOfChunk(chunk, evidence)),
      options,
    ).forEach((holder, index) => {
      if (holder) holdingIds.add(key(distinct[index]!));
    });
  }
  return chunks.map((chunk) => holdingIds.has(key(chunk)));
}
