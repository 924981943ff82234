/**
 * A ranking that names the same item twice is an input error, not something to
 * score: trec_eval refuses such a run ("duplicate docs"), and what a repeat
 * should count for (a second chance at the same evidence? a wasted slot?) has
 * no right answer. Finding the first repeat lets the error say what and where.
 */

export interface RepeatedId {
  readonly id: string;
  /** 1-based rank of the first occurrence. */
  readonly firstRank: number;
  /** 1-based rank of the second occurrence. */
  readonly repeatRank: number;
}

/** The first id that occurs twice, or null. A null entry (an item without an id) is skipped but keeps its rank. */
export function findRepeatedId(ids: readonly (string | null)[], seen: Map<string, number> = new Map()): RepeatedId | null {
  seen.clear();
  for (let index = 0; index < ids.length; index += 1) {
    const id = ids[index];
    if (id === null || id === undefined) continue;
    const firstRank = seen.get(id);
    if (firstRank !== undefined) return { id, firstRank, repeatRank: index + 1 };
    seen.set(id, index + 1);
  }
  return null;
}

export function repeatedIdMessage(repeated: RepeatedId, ranking: string): string {
  return `${ranking} lists ${JSON.stringify(repeated.id)} twice (ranks ${repeated.firstRank} and ${repeated.repeatRank}): a ranking names each item once, so it is not scored; de-duplicate the results before they are recorded, or give distinct items distinct ids`;
}
