/**
 * Items in a sentence: "a", "a and b", "a, b and c" (or "or"). The notes that say why a value is not available name
 * the sums, counts or values they concern this way.
 */
export function listedInWords(items: readonly string[], conjunction: "and" | "or"): string {
  return items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} ${conjunction} ${items.at(-1)!}`;
}
