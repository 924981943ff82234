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
 * Cost: each text (chunk or evidence) is prepared once — normalised, its
 * window hashes computed by rolling hash and put in an open-addressing table:
 * O(length). A (chunk, evidence) pair then costs O(|evidence|): one table
 * look-up per evidence window (an n-character check on a hash hit) and one
 * sweep marking covered characters. Prepared texts are memoised, bounded by
 * the characters they hold, because every evaluator of a trace matches the
 * same chunks against the same evidence.
 */
import { compactText } from "../text/normalize-text.js";

/** Window length in compact characters (code points). */
export const COVERAGE_NGRAM_CHARACTERS = 8;

const HASH_BASE = 0x01000193;

/** A text prepared for coverage queries: its compact characters and a table of its windows. */
export interface PreparedText {
  /** Compact characters as code points. */
  readonly characters: Int32Array;
  /** Rolling hash of the window starting at each position (COVERAGE_NGRAM_CHARACTERS long). */
  readonly hashes: Int32Array;
  /** Open-addressing table (linear probing) of window starts, one per distinct window; -1 is empty. */
  readonly slots: Int32Array;
  readonly slotShift: number;
}

/**
 * A memo bounded by the size of what it holds, oldest entry out first: the
 * same chunk texts are matched by every evaluator of a trace.
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
function windowHashes(characters: Int32Array, length: number): Int32Array {
  if (characters.length < length) return new Int32Array(0);
  const hashes = new Int32Array(characters.length - length + 1);
  const outgoingWeight = power(HASH_BASE, length - 1);
  let hash = 0;
  for (let index = 0; index < length; index += 1) hash = (Math.imul(hash, HASH_BASE) + characters[index]!) | 0;
  hashes[0] = hash;
  for (let start = 1; start < hashes.length; start += 1) {
    hash = (hash - Math.imul(characters[start - 1]!, outgoingWeight)) | 0;
    hash = (Math.imul(hash, HASH_BASE) + characters[start + length - 1]!) | 0;
    hashes[start] = hash;
  }
  return hashes;
}

/** Table slot of a hash: the top bits of a multiplicative scramble (the polynomial hash's low bits are poorly mixed). */
const slotOf = (hash: number, shift: number) => Math.imul(hash, 0x9e3779b1) >>> shift;

function sameWindow(left: Int32Array, leftStart: number, right: Int32Array, rightStart: number, length: number): boolean {
  for (let offset = 0; offset < length; offset += 1) if (left[leftStart + offset] !== right[rightStart + offset]) return false;
  return true;
}

function prepare(text: string): PreparedText {
  const characters = toCodePoints(text);
  const length = COVERAGE_NGRAM_CHARACTERS;
  const hashes = windowHashes(characters, length);
  // A table at most half full keeps probe sequences short; a repeated window is stored once, so a
  // repetitive text ("aaaa…") cannot build a long probe chain.
  const bits = Math.max(4, Math.ceil(Math.log2(hashes.length * 2 + 1)));
  const slotShift = 32 - bits;
  const mask = (1 << bits) - 1;
  const slots = new Int32Array(1 << bits).fill(-1);
  for (let start = 0; start < hashes.length; start += 1) {
    const hash = hashes[start]!;
    let slot = slotOf(hash, slotShift);
    let present = false;
    while (slots[slot] !== -1) {
      const stored = slots[slot]!;
      if (hashes[stored] === hash && sameWindow(characters, stored, characters, start, length)) {
        present = true;
        break;
      }
      slot = (slot + 1) & mask;
    }
    if (!present) slots[slot] = start;
  }
  return { characters, hashes, slots, slotShift };
}

/** Prepared texts: about 16 bytes per character, 16 MB at most. */
const preparedMemo = new BoundedMemo<PreparedText>(1 << 20, prepare, (prepared) => prepared.characters.length);

/** The text prepared for coverage queries (memoised). */
export function prepareText(text: string): PreparedText {
  return preparedMemo.get(text);
}

function containsWhole(chunk: Int32Array, evidence: Int32Array): boolean {
  for (let start = 0; start + evidence.length <= chunk.length; start += 1) if (sameWindow(chunk, start, evidence, 0, evidence.length)) return true;
  return false;
}

/**
 * One flag per evidence character: 1 when the chunk text covers it. O(|evidence|)
 * once both texts are prepared: each evidence window is looked up in the
 * chunk's table, then the characters of the windows found are marked.
 */
export function coveredCharacters(evidence: PreparedText, chunkText: string, shortEvidence: "equal" | "contained" = "equal"): Uint8Array {
  const covered = new Uint8Array(evidence.characters.length);
  if (evidence.characters.length === 0) return covered;
  const chunk = prepareText(chunkText);
  if (evidence.characters.length < COVERAGE_NGRAM_CHARACTERS) {
    // Shorter than a window (at most 7 characters): a direct comparison is constant work per chunk position.
    const holds =
      shortEvidence === "equal"
        ? chunk.characters.length === evidence.characters.length && sameWindow(chunk.characters, 0, evidence.characters, 0, evidence.characters.length)
        : containsWhole(chunk.characters, evidence.characters);
    if (holds) covered.fill(1);
    return covered;
  }
  // Each evidence window is looked up in the chunk's table (a probe, and a character check on a hash hit).
  const length = COVERAGE_NGRAM_CHARACTERS;
  const { slots, slotShift, hashes: chunkHashes, characters: chunkCharacters } = chunk;
  const { hashes: evidenceHashes, characters: evidenceCharacters } = evidence;
  const mask = slots.length - 1;
  let coveredUntil = 0;
  for (let start = 0; start < evidenceHashes.length; start += 1) {
    const hash = evidenceHashes[start]!;
    let found = false;
    for (let slot = slotOf(hash, slotShift); slots[slot] !== -1; slot = (slot + 1) & mask) {
      const stored = slots[slot]!;
      if (chunkHashes[stored] === hash && sameWindow(chunkCharacters, stored, evidenceCharacters, start, length)) {
        found = true;
        break;
      }
    }
    if (!found) continue;
    for (let position = Math.max(start, coveredUntil); position < start + length; position += 1) covered[position] = 1;
    coveredUntil = start + length;
  }
  return covered;
}

export function countCovered(covered: Uint8Array): number {
  let count = 0;
  for (let position = 0; position < covered.length; position += 1) count += covered[position]!;
  return count;
}
