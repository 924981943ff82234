/**
 * The policy assistant's knowledge base: chunks of customer-service policy
 * documents, several versions of some, one restricted to finance staff, one
 * carrying a prompt injection (examples/README.md, "The pipeline").
 *
 * Field names are snake_case, like every serialized form in ragscope.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { failure, success, type Result } from "../../../core/result.js";
// Imported (not only read by path) so that the build copies it next to the compiled module.
import bundledCorpus from "./policy-chunks.json" with { type: "json" };

const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "expected a date like 2026-07-01");

export const policyChunk = z
  .object({
    chunk_id: z.string().min(1),
    document_id: z.string().min(1),
    document_version: z.string().min(1),
    section_id: z.string().min(1),
    text: z.string().min(1),
    effective_from: isoDate,
    /** null while the version is in force. */
    effective_to: isoDate.nullable(),
    /** Groups allowed to read the chunk; [] = public. */
    acl: z.array(z.string()),
    tenant_id: z.string().min(1),
  })
  .strict();

export const policyCorpus = z
  .object({
    corpus_version: z.string().min(1),
    chunks: z.array(policyChunk).min(1),
  })
  .strict()
  .superRefine((corpus, context) => {
    const seen = new Set<string>();
    for (const [index, chunk] of corpus.chunks.entries()) {
      if (seen.has(chunk.chunk_id)) {
        context.addIssue({ code: "custom", path: ["chunks", index, "chunk_id"], message: `duplicate chunk_id ${chunk.chunk_id}` });
      }
      seen.add(chunk.chunk_id);
    }
  });

export type PolicyChunk = z.infer<typeof policyChunk>;
export type PolicyCorpus = z.infer<typeof policyCorpus>;

/** Validates a parsed corpus file. */
export function parsePolicyCorpus(data: unknown): Result<PolicyCorpus, string> {
  const parsed = policyCorpus.safeParse(data);
  if (!parsed.success) return failure(z.prettifyError(parsed.error));
  return success(parsed.data);
}

/** Path of the corpus bundled with the example. */
export const BUNDLED_CORPUS_PATH = fileURLToPath(new URL("./policy-chunks.json", import.meta.url));

/** Reads and validates a corpus file (JSON). */
export function readPolicyCorpus(path: string): Result<PolicyCorpus, string> {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    return failure(`cannot read corpus ${path}: ${(error as Error).message}`);
  }
  const parsed = parsePolicyCorpus(data);
  return parsed.ok ? parsed : failure(`invalid corpus ${path}:\n${parsed.error}`);
}

/** The bundled corpus. It ships with the code, so an invalid one is a bug and throws. */
export function loadBundledCorpus(): PolicyCorpus {
  const corpus = parsePolicyCorpus(bundledCorpus);
  if (!corpus.ok) throw new Error(`invalid corpus ${BUNDLED_CORPUS_PATH}:\n${corpus.error}`);
  return corpus.value;
}
