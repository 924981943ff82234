/**
 * A minimal in-memory vector store on LangChain's own VectorStore base class
 * (so `asRetriever()` gives the real VectorStoreRetriever and its callbacks):
 * cosine similarity over every stored vector, ties broken by insertion order.
 */
import type { DocumentInterface } from "@langchain/core/documents";
import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import { VectorStore } from "@langchain/core/vectorstores";

export class InMemoryVectorStore extends VectorStore {
  private readonly entries: { vector: number[]; document: DocumentInterface }[] = [];

  constructor(embeddings: EmbeddingsInterface) {
    super(embeddings, {});
  }

  _vectorstoreType(): string {
    return "in-memory-test";
  }

  async addDocuments(documents: DocumentInterface[]): Promise<void> {
    await this.addVectors(await this.embeddings.embedDocuments(documents.map((document) => document.pageContent)), documents);
  }

  async addVectors(vectors: number[][], documents: DocumentInterface[]): Promise<void> {
    vectors.forEach((vector, index) => this.entries.push({ vector, document: documents[index]! }));
  }

  async similaritySearchVectorWithScore(query: number[], k: number): Promise<[DocumentInterface, number][]> {
    return this.entries
      .map((entry, order) => ({ entry, order, score: cosine(query, entry.vector) }))
      .sort((left, right) => right.score - left.score || left.order - right.order)
      .slice(0, k)
      .map(({ entry, score }) => [entry.document, score]);
  }
}

function cosine(left: number[], right: number[]): number {
  let dot = 0;
  for (let index = 0; index < left.length; index += 1) dot += left[index]! * right[index]!;
  return dot;
}
