/**
 * How well a piece of text supports an answer to a question: the share of the
 * question's distinct terms the text contains, each weighted by its inverse
 * document frequency. 1 means every term of the question appears in the text.
 *
 * A question term the corpus never uses weighs the most, so a question about
 * something the corpus does not cover scores low everywhere; that is what lets
 * the generator abstain (pipeline/extractive-generator.ts).
 */
import type { LexicalIndex } from "./lexical-retriever.js";
import { roundScore } from "./lexical-retriever.js";
import { distinctTerms } from "./text-terms.js";

export function supportScore(index: LexicalIndex, question: string, text: string): number {
  const questionTerms = distinctTerms(question);
  if (questionTerms.length === 0) return 0;
  const textTerms = new Set(distinctTerms(text));
  let covered = 0;
  let total = 0;
  for (const term of questionTerms) {
    const weight = index.inverseDocumentFrequency(term);
    total += weight;
    if (textTerms.has(term)) covered += weight;
  }
  return total === 0 ? 0 : roundScore(covered / total);
}
