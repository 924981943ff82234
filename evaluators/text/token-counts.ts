/** Multisets of tokens, for overlap counts (SQuAD's `Counter(a) & Counter(b)`). */

export function countTokens(tokens: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
  return counts;
}

/** Size of the multiset intersection: each token counts min(times in a, times in b). */
export function overlapCount(first: readonly string[], second: readonly string[]): number {
  const available = countTokens(second);
  let overlap = 0;
  for (const token of first) {
    const left = available.get(token) ?? 0;
    if (left > 0) {
      overlap += 1;
      available.set(token, left - 1);
    }
  }
  return overlap;
}

/** overlapCount from both sides' counts (countTokens), for callers that compare each of many texts with many: no map is built per pair. */
export function overlapOfCounts<Key>(first: ReadonlyMap<Key, number>, second: ReadonlyMap<Key, number>): number {
  const [smaller, larger] = first.size <= second.size ? [first, second] : [second, first];
  let overlap = 0;
  for (const [token, count] of smaller) overlap += Math.min(count, larger.get(token) ?? 0);
  return overlap;
}
