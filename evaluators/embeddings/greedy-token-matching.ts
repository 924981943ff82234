/**
 * BERTScore-style greedy token matching (seed 004 §九.2 "BERTScore"; Zhang et
 * al., "BERTScore: Evaluating Text Generation with BERT", ICLR 2020): every
 * token of the candidate (the answer) is matched to its most similar token of
 * the reference by cosine similarity of their contextual embeddings, and
 * every reference token to its most similar candidate token.
 *
 *   precision = mean over candidate tokens of max cosine to a reference token
 *   recall    = mean over reference tokens of max cosine to a candidate token
 *   F1        = 2 · precision · recall / (precision + recall)
 *
 * BERTScore-style, not BERTScore: no idf weighting (every token counts the
 * same) and no baseline rescaling (values are raw cosines, so unrelated texts
 * of a model whose vectors share a direction still score well above 0), and
 * the token vectors are whatever the endpoint's model returns (a decoder's
 * hidden states, not a chosen BERT layer). Values are comparable only within
 * one model.
 *
 * Null when the matching is not defined (no tokens, vectors of different
 * lengths, a zero vector, or precision + recall = 0), so no NaN is stored.
 */

export interface TokenMatching {
  precision: number;
  recall: number;
  f1: number;
}

/** A token's vector: a number array, or the Float64Array the token embeddings client keeps. */
export type TokenVector = ArrayLike<number>;

function normalised(vectors: readonly TokenVector[]): Float64Array[] | null {
  const result: Float64Array[] = [];
  for (const vector of vectors) {
    let norm = 0;
    for (let index = 0; index < vector.length; index += 1) norm += vector[index]! * vector[index]!;
    norm = Math.sqrt(norm);
    if (!(norm > 0) || !Number.isFinite(norm)) return null;
    result.push(Float64Array.from(vector, (value) => value / norm));
  }
  return result;
}

export function greedyTokenMatching(candidate: readonly TokenVector[], reference: readonly TokenVector[]): TokenMatching | null {
  if (candidate.length === 0 || reference.length === 0) return null;
  const dimension = candidate[0]!.length;
  if (dimension === 0 || [...candidate, ...reference].some((vector) => vector.length !== dimension)) return null;
  const left = normalised(candidate);
  const right = normalised(reference);
  if (left === null || right === null) return null;

  const bestForCandidate = new Float64Array(left.length).fill(-Infinity);
  const bestForReference = new Float64Array(right.length).fill(-Infinity);
  for (let i = 0; i < left.length; i += 1) {
    const a = left[i]!;
    for (let j = 0; j < right.length; j += 1) {
      const b = right[j]!;
      let dot = 0;
      for (let k = 0; k < dimension; k += 1) dot += a[k]! * b[k]!;
      if (dot > bestForCandidate[i]!) bestForCandidate[i] = dot;
      if (dot > bestForReference[j]!) bestForReference[j] = dot;
    }
  }
  const mean = (values: Float64Array) => values.reduce((sum, value) => sum + Math.max(-1, Math.min(1, value)), 0) / values.length;
  const precision = mean(bestForCandidate);
  const recall = mean(bestForReference);
  if (precision + recall === 0) return null;
  return { precision, recall, f1: (2 * precision * recall) / (precision + recall) };
}
