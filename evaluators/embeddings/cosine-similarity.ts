/**
 * Cosine similarity of two embedding vectors, in −1..1. Null when it is not
 * defined (a zero vector, or vectors of different lengths from a misconfigured
 * endpoint), so no NaN can reach a stored result.
 */
export function cosineSimilarity(left: readonly number[], right: readonly number[]): number | null {
  if (left.length === 0 || left.length !== right.length) return null;
  let dot = 0;
  let leftNorm = 0;
  let rightNorm = 0;
  for (let index = 0; index < left.length; index += 1) {
    const a = left[index]!;
    const b = right[index]!;
    dot += a * b;
    leftNorm += a * a;
    rightNorm += b * b;
  }
  if (leftNorm === 0 || rightNorm === 0 || !Number.isFinite(dot)) return null;
  // Rounding can put a vector's similarity with itself a hair above 1.
  return Math.max(-1, Math.min(1, dot / Math.sqrt(leftNorm * rightNorm)));
}
