/**
 * How much of a gold evidence text a chunk text covers: character n-gram
 * coverage on the compact form of both texts (normalizeText, then every space
 * removed: NFKC, lower case, punctuation and spaces gone), counted in Unicode
 * code points so Chinese (no spaces) and English are measured the same way.
 *
 * A character of the evidence is covered when it lies inside some window of
 * COVERAGE_NGRAM_CHARACTERS consecutive evidence characters that also occurs
 * in the chunk. Equivalently: the union of all common substrings of at least
 * that length. The coverage is covered characters / evidence characters.
 *
 * Why n-gram coverage rather than longest-common-substring (LCS) coverage:
 * - LCS coverage credits one piece: a chunk that holds the evidence with one
 *   interruption (a page header, a line the chunker inserted, one character
 *   that normalises differently) is credited with the longer half only. The
 *   n-gram union credits every piece of at least n characters.
 * - The n-gram union is exact union arithmetic: what two chunks cover
 *   together is the union of their masks, so pieces split across chunks sum
 *   without counting an overlap twice. Greedy LCS tiling has no such union.
 * - It runs in linear time (rolling hash, below); LCS needs a suffix
 *   structure per pair, and repeated LCS tiling is quadratic or worse.
 * - The minimum length keeps accidental overlap out: a fragment shorter than
 *   n characters ("退款", "the") never covers anything; 8 compact characters
 *   are a clause in Chinese and about two words in English.
 * The cost is that a scattered set of n-grams can be credited without their
 * order; the minimum coverage (match-evidence.ts) keeps that from deciding.
 *
 * Evidence shorter than n characters is too short to be told from an
 * accidental occurrence ("退款" is in every refund document): it is covered
 * only by a chunk whose whole compact text equals it; ids are the way to
 * match such evidence. Where ids already say a chunk is the evidence and the
 * question is only whether its text survived in a longer text (a chunk cut to
 * fit the prompt), `shortEvidence: "contained"` covers it when it occurs whole.
 *
 * Cost: O(|chunk| + |evidence|) per (chunk, evidence) pair: one rolling hash
 * pass over the chunk, a bucket look-up per window, an n-character check on a
 * hit, and one sweep over the evidence. The evidence's n-gram table is built
 * once per evidence text; the normalised code points of a text are memoised
 * (bounded) because every evaluator of a trace matches the same chunks.
 */
import { compactText } from "../text/normalize-text.js";

/** Window length in compact characters (code points). */
export const COVERAGE_NGRAM_CHARACTERS = 8;

const HASH_BASE = 0x01000193;

/** Normalised, space-free text as code points, ready to be hashed. */
export interface CompactCharacters {
  readonly codePoints: Int32Array;
}

/** An evidence text prepared for coverage queries. */
export interface EvidenceTextIndex {
  readonly characters: Int32Array;
  /** Window length: COVERAGE_NGRAM_CHARACTERS, or the whole text when shorter (then only an equal text covers it). */
  readonly windowLength: number;
  /** For each window start, the id of its distinct n-gram. */
  readonly windowIds: Int32Array;
  /** Start of one occurrence of each distinct n-gram. */
  readonly representatives: Int32Array;
  /** Window hash → ids of the distinct n-grams with that hash. */
  readonly buckets: ReadonlyMap<number, readonly number[]>;
}

/**
 * A memo bounded by the number of code points it holds, oldest entry out
 * first: the same chunk texts are matched by every evaluator of a trace.
 */
class BoundedMemo<Value> {
  private readonly entries = new Map<string, { value: Value; size: number }>();
  private total = 0;

  constructor(
    private readonly capacity: number,
    private readonly compute: (key: string) => Value,
    private readonly sizeOf: (value: Value) => number,
  ) {}

  get(key: string): Value {
    const known = this.entries.get(key);
    if (known !== undefined) return known.value;
    const value = this.compute(key);
    const size = this.sizeOf(value) + 1;
    if (size > this.capacity) return value;
    this.entries.set(key, { value, size });
    this.total += size;
    for (const [oldestKey, oldest] of this.entries) {
      if (this.total <= this.capacity) break;
      this.entries.delete(oldestKey);
      this.total -= oldest.size;
    }
    return value;
  }
}

function toCodePoints(text: string): Int32Array {
  const compact = compactText(text);
  const codePoints = new Int32Array(compact.length);
  let length = 0;
  for (const character of compact) codePoints[length++] = character.codePointAt(0)!;
  return codePoints.subarray(0, length);
}

/** About 8 MB of code points at most. */
const compactMemo = new BoundedMemo<Int32Array>(1 << 21, toCodePoints, (codePoints) => codePoints.length);

export function compactCharacters(text: string): Int32Array {
  return compactMemo.get(text);
}

function power(base: number, exponent: number): number {
  let result = 1;
  for (let step = 0; step < exponent; step += 1) result = Math.imul(result, base);
  return result;
}

/**
 * Polynomial hashes (mod 2^32) of every window of `length` characters,
 * computed by rolling: each step removes the outgoing character and adds the
 * incoming one. Collisions are resolved by comparing characters on a hit.
 */
function forEachWindowHash(characters: Int32Array, length: number, visit: (start: number, hash: number) => void): void {
  if (characters.length < length || length === 0) return;
  const outgoingWeight = power(HASH_BASE, length - 1);
  let hash = 0;
  for (let index = 0; index < length; index += 1) hash = (Math.imul(hash, HASH_BASE) + characters[index]!) | 0;
  visit(0, hash);
  for (let start = 1; start + length <= characters.length; start += 1) {
    hash = (hash - Math.imul(characters[start - 1]!, outgoingWeight)) | 0;
    hash = (Math.imul(hash, HASH_BASE) + characters[start + length - 1]!) | 0;
    visit(start, hash);
  }
}

function sameWindow(left: Int32Array, leftStart: number, right: Int32Array, rightStart: number, length: number): boolean {
  for (let offset = 0; offset < length; offset += 1) if (left[leftStart + offset] !== right[rightStart + offset]) return false;
  return true;
}

function buildIndex(text: string): EvidenceTextIndex {
  const characters = toCodePoints(text);
  const windowLength = Math.min(COVERAGE_NGRAM_CHARACTERS, characters.length);
  const windowCount = windowLength === 0 ? 0 : characters.length - windowLength + 1;
  const windowIds = new Int32Array(windowCount);
  const representatives: number[] = [];
  const buckets = new Map<number, number[]>();
  forEachWindowHash(characters, windowLength, (start, hash) => {
    let bucket = buckets.get(hash);
    if (bucket === undefined) {
      bucket = [];
      buckets.set(hash, bucket);
    }
    let id = bucket.find((candidate) => sameWindow(characters, representatives[candidate]!, characters, start, windowLength));
    if (id === undefined) {
      id = representatives.length;
      representatives.push(start);
      bucket.push(id);
    }
    windowIds[start] = id;
  });
  return { characters, windowLength, windowIds, representatives: Int32Array.from(representatives), buckets };
}

const evidenceMemo = new BoundedMemo<EvidenceTextIndex>(1 << 20, buildIndex, (index) => index.characters.length * 3);

/** The evidence text prepared for coverage queries (memoised). */
export function indexEvidenceText(text: string): EvidenceTextIndex {
  return evidenceMemo.get(text);
}

/**
 * One flag per evidence character: 1 when the chunk text covers it. Linear in
 * both lengths: the chunk's windows mark which distinct evidence n-grams occur
 * in it, then one sweep marks the characters of those windows.
 */
export function coveredCharacters(evidence: EvidenceTextIndex, chunkText: string, shortEvidence: "equal" | "contained" = "equal"): Uint8Array {
  const covered = new Uint8Array(evidence.characters.length);
  const length = evidence.windowLength;
  if (length === 0) return covered;
  const chunk = compactCharacters(chunkText);
  if (evidence.characters.length < COVERAGE_NGRAM_CHARACTERS && shortEvidence === "equal") {
    if (chunk.length === evidence.characters.length && sameWindow(evidence.characters, 0, chunk, 0, chunk.length)) covered.fill(1);
    return covered;
  }
  const occurs = new Uint8Array(evidence.representatives.length);
  let distinctFound = 0;
  forEachWindowHash(chunk, length, (start, hash) => {
    const bucket = evidence.buckets.get(hash);
    if (bucket === undefined) return;
    for (const id of bucket) {
      if (occurs[id] === 0 && sameWindow(evidence.characters, evidence.representatives[id]!, chunk, start, length)) {
        occurs[id] = 1;
        distinctFound += 1;
      }
    }
  });
  if (distinctFound === 0) return covered;
  let coveredUntil = 0;
  for (let start = 0; start < evidence.windowIds.length; start += 1) {
    if (occurs[evidence.windowIds[start]!] === 0) continue;
    for (let position = Math.max(start, coveredUntil); position < start + length; position += 1) covered[position] = 1;
    coveredUntil = start + length;
  }
  return covered;
}

export function countCovered(covered: Uint8Array): number {
  let count = 0;
  for (const flag of covered) count += flag;
  return count;
}
