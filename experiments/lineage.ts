/**
 * The run's lineage (seed: the versions belong to the Run, not the Case),
 * from, highest first: the options (`--lineage key=value`, `lineage` of
 * runExperiment), the environment (`RAGSCOPE_RUN_<FIELD>`, e.g.
 * RAGSCOPE_RUN_PROMPT_VERSION), the task module's exported `lineage`, and the
 * git commit of the working directory (`git rev-parse HEAD`) as
 * application_version. What none of them gives stays null.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import type { RunLineage } from "../contracts/run-lineage.js";

export const LINEAGE_FIELDS = [
  "corpus_version",
  "index_version",
  "embedding_model",
  "retriever_version",
  "reranker_version",
  "prompt_version",
  "generator_model",
  "application_version",
] as const;
export type LineageField = (typeof LINEAGE_FIELDS)[number];
export type LineageValues = Partial<Record<LineageField, string>>;

export function isLineageField(name: string): name is LineageField {
  return (LINEAGE_FIELDS as readonly string[]).includes(name);
}

export function lineageFromEnvironment(environment: Readonly<Record<string, string | undefined>>): LineageValues {
  const values: LineageValues = {};
  for (const field of LINEAGE_FIELDS) {
    const value = environment[`RAGSCOPE_RUN_${field.toUpperCase()}`];
    if (value !== undefined && value.trim() !== "") values[field] = value.trim();
  }
  return values;
}

/** `git rev-parse HEAD` in `folder`; null when git or a repository is not there. */
export async function gitCommit(folder: string): Promise<string | null> {
  try {
    const { stdout } = await promisify(execFile)("git", ["rev-parse", "HEAD"], { cwd: folder, timeout: 5000 });
    const commit = stdout.trim();
    return /^[0-9a-f]{40,64}$/.test(commit) ? commit : null;
  } catch {
    return null;
  }
}

export function buildLineage(
  base: { runId: string; datasetId: string | null; datasetVersion: string | null; startedAt: string; notes: string | null; completion?: RunLineage["completion"] },
  sources: { options?: LineageValues; environment?: LineageValues; task?: LineageValues; gitCommit?: string | null },
): RunLineage {
  const pick = (field: LineageField): string | null => sources.options?.[field] ?? sources.environment?.[field] ?? sources.task?.[field] ?? (field === "application_version" ? (sources.gitCommit ?? null) : null);
  return {
    run_id: base.runId,
    dataset_id: base.datasetId,
    dataset_version: base.datasetVersion,
    corpus_version: pick("corpus_version"),
    index_version: pick("index_version"),
    embedding_model: pick("embedding_model"),
    retriever_version: pick("retriever_version"),
    reranker_version: pick("reranker_version"),
    prompt_version: pick("prompt_version"),
    generator_model: pick("generator_model"),
    application_version: pick("application_version"),
    started_at: base.startedAt,
    notes: base.notes,
    completion: base.completion ?? null,
  };
}
