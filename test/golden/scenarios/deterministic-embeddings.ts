/**
 * An embedding that needs no model and no network: character bigrams hashed
 * into a fixed number of dimensions, L2-normalised. Similar texts (shared
 * words, shared Chinese characters) get similar vectors, and the same text
 * always gets the same vector, so retrieval in the golden chain is
 * reproducible to the last digit.
 */
import { Embeddings } from "@langchain/core/embeddings";

const DIMENSIONS = 64;

export function embedText(text: string): number[] {
  const vector = new Array<number>(DIMENSIONS).fill(0);
  const characters = [...text.toLowerCase().replace(/\s+/g, " ")];
  for (let index = 0; index + 1 < characters.length; index += 1) {
    const bigram = characters[index]! + characters[index + 1]!;
    let hash = 2166136261;
    for (const unit of bigram) hash = Math.imul(hash ^ unit.codePointAt(0)!, 16777619) >>> 0;
    vector[hash % DIMENSIONS]! += 1;
  }
  const norm = Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0)) || 1;
  return vector.map((value) => value / norm);
}

export class DeterministicEmbeddings extends Embeddings {
  constructor() {
    super({});
  }

  async embedDocuments(documents: string[]): Promise<number[][]> {
    return documents.map(embedText);
  }

  async embedQuery(document: string): Promise<number[]> {
    return embedText(document);
  }
}
