/**
 * The seed's rule for online experiments: change one main variable at a time
 * (一次实验尽量只调整一个主要变量). What the traces show of each request's
 * configuration, per variant, with the run-lineage field names
 * (contracts/run-lineage.ts): the generator model, whether a reranker ran,
 * and the retrieval depth (chunks retrieved). A field differs when the
 * variants' sets of values differ. Embedding model, chunk size, hybrid vs
 * vector search and prompt version are not on the traces; the report says so
 * instead of guessing.
 */
import type { CaseResult } from "../../contracts/case-result.js";

export interface LineageField {
  readonly field: string;
  /** Variant → the values its requests showed, sorted. */
  readonly values: Record<string, string[]>;
  readonly differs: boolean;
}

export const LINEAGE_NOT_ON_TRACES = ["embedding_model", "chunk_size", "retrieval_mode (hybrid vs vector)", "prompt_version"] as const;

const FACTS: readonly { field: string; read: (caseResult: CaseResult) => string }[] = [
  { field: "generator_model", read: (caseResult) => caseResult.rag_observation.generation.model ?? "(not recorded)" },
  { field: "reranker", read: (caseResult) => (caseResult.rag_observation.pre_rerank_chunks === null ? "none" : "reranked") },
  { field: "retrieval_top_k", read: (caseResult) => (caseResult.rag_observation.retrieved_chunks === null ? "(not recorded)" : String(caseResult.rag_observation.retrieved_chunks.length)) },
];

export function lineageDifferences(caseResults: readonly CaseResult[], variants: readonly string[]): LineageField[] {
  return FACTS.map(({ field, read }) => {
    const values: Record<string, string[]> = {};
    for (const variant of variants) {
      const seen = new Set(caseResults.filter((caseResult) => caseResult.rag_observation.experiment_variant === variant).map(read));
      values[variant] = [...seen].sort();
    }
    const signatures = new Set(variants.map((variant) => values[variant]!.join("\u0000")));
    return { field, values, differs: signatures.size > 1 };
  });
}
