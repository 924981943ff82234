/**
 * Run lineage: the versions a run actually used.
 *
 * The seed (000_166131c131cdea70.txt) puts the actual versions of the corpus,
 * index, embedding model, retriever, reranker and prompt in the Run, not in the
 * Case: a Case only declares the corpus and time boundary it needs
 * (`environment_requirements`). Two runs are comparable when their lineage says
 * what changed between them.
 *
 * `completion` says how much of the planned run was stored. `ragscope eval`
 * records it as "running" before its first case and as "complete" or
 * "interrupted" at its end, so a run whose eval was stopped (SIGINT,
 * SIGTERM) or killed before its end is never read as a whole run: the release
 * gate cannot decide on it. Null when the writer did not say (the demo, runs
 * recorded before this field, runs tagged through the SDK).
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
    completion: z
      .object({
        /** running: the eval started and has not recorded its end (still running, or killed); interrupted: stopped by a signal, the finished cases stored. */
        status: z.enum(["running", "complete", "interrupted"]),
        /** The cases the run was to run (the dataset, or its --split). */
        planned_cases: z.number().int().nonnegative(),
        /** The run's Case Results in the store when the end was recorded; null while running. */
        stored_cases: z.number().int().nonnegative().nullable(),
      })
      .strict()
      .nullable()
      .default(null),
  })
  .strict();

export type RunLineage = z.infer<typeof runLineage>;
