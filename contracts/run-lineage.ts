/**
 * Run lineage: the versions a run actually used.
 *
 * The seed (000_166131c131cdea70.txt) puts the actual versions of the corpus,
 * index, embedding model, retriever, reranker and prompt in the Run, not in the
 * Case: a Case only declares the corpus and time boundary it needs
 * (`environment_requirements`). Two runs are comparable when their lineage says
 * what changed between them.
 */
import { z } from "zod";

export const runLineage = z
  .object({
    run_id: z.string().min(1),
    dataset_id: z.string().nullable().default(null),
    dataset_version: z.string().nullable().default(null),
    corpus_version: z.string().nullable().default(null),
    index_version: z.string().nullable().default(null),
    embedding_model: z.string().nullable().default(null),
    retriever_version: z.string().nullable().default(null),
    reranker_version: z.string().nullable().default(null),
    prompt_version: z.string().nullable().default(null),
    generator_model: z.string().nullable().default(null),
    /** The application's own build (git commit, image tag). */
    application_version: z.string().nullable().default(null),
    started_at: z.string(),
    notes: z.string().nullable().default(null),
  })
  .strict();

export type RunLineage = z.infer<typeof runLineage>;
