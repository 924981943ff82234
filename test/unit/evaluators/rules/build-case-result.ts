/**
 * Case Results with any rag_observation field, built through the contract's
 * zod schema (so defaults are the real ones) on top of the shared support
 * builder. Chunk lists take partial chunks; ranks follow list order.
 */
import { caseResult, type CaseResult, type RagObservation } from "../../../../contracts/case-result.js";
import { buildCaseResult, chunks } from "../../../support/case-results.js";

export type ChunkInput = Parameters<typeof chunks>[0][number];

export interface ObservationInput extends Partial<Omit<RagObservation, "retrieved_chunks" | "pre_rerank_chunks" | "context_chunks">> {
  retrieved?: ChunkInput[] | null;
  preRerank?: ChunkInput[] | null;
  /** Packed chunk ids in prompt order. */
  packed?: string[] | null;
  /** Packed ids cut mid-text. */
  truncated?: string[];
  /** The answer (a Case Result field, given here for brevity). */
  output?: string | null;
}

export function caseResultWith(input: ObservationInput = {}, fields: Partial<CaseResult> = {}): CaseResult {
  const { retrieved, preRerank, packed, truncated, output, ...observation } = input;
  const base = buildCaseResult();
  const cut = new Set(truncated ?? []);
  return caseResult.parse({
    ...base,
    ...fields,
    output: output ?? fields.output ?? null,
    rag_observation: {
      ...base.rag_observation,
      retrieved_chunks: retrieved === undefined || retrieved === null ? null : chunks(retrieved),
      pre_rerank_chunks: preRerank === undefined || preRerank === null ? null : chunks(preRerank),
      context_chunks: packed === undefined || packed === null ? null : packed.map((chunk_id, index) => ({ chunk_id, position: index + 1, truncated: cut.has(chunk_id) })),
      ...observation,
    },
  });
}

/** The value of a metric, or null when not applicable; fails when the metric is missing. */
export function valueOf(values: Record<string, { applicable: boolean; value?: number }>, name: string): number | null {
  const metric = values[name];
  if (metric === undefined) throw new Error(`metric ${name} missing`);
  return metric.applicable ? metric.value! : null;
}
