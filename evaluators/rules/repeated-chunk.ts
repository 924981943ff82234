/**
 * The input check of the evaluators that score a recorded ranking: a ranking
 * that lists the same chunk twice is an input error (repeated-ids.ts), reported
 * as an `error` result with error_type invalid_evidence — never scored, never
 * a pass.
 *
 * A chunk is identified by its document id and chunk id together, so chunk
 * "0" of two different documents is two chunks. A chunk without an id (empty
 * chunk_id: the trace did not carry one) cannot be compared and is skipped.
 */
import type { RetrievedChunk } from "../../contracts/case-result.js";
import type { EvaluatorOutput, MetricDescriptor } from "../evaluator.js";
import { notApplicable } from "../metric-value.js";
import { findRepeatedId } from "../retrieval/repeated-ids.js";

export type RankingField = "retrieved_chunks" | "pre_rerank_chunks";

const identity = (chunk: RetrievedChunk): string | null => (chunk.chunk_id === null ? null : JSON.stringify([chunk.document_id, chunk.chunk_id]));

/** What is wrong with the ranking, or null when every identified chunk occurs once. */
export function repeatedChunkError(chunks: readonly RetrievedChunk[], field: RankingField): string | null {
  const repeated = findRepeatedId(chunks.map(identity));
  if (repeated === null) return null;
  const chunk = chunks[repeated.firstRank - 1]!;
  const which = `chunk ${JSON.stringify(chunk.chunk_id)}${chunk.document_id === null ? "" : ` of document ${JSON.stringify(chunk.document_id)}`}`;
  return `${field} lists ${which} twice (ranks ${repeated.firstRank} and ${repeated.repeatRank}): a ranking names each chunk once, so it is not scored; de-duplicate the retriever's results before they are recorded, or give distinct chunks distinct ids`;
}

/** Every metric not applicable, and the input error that makes the result an `error`. */
export function invalidRankingOutput(metrics: readonly MetricDescriptor[], error: string): EvaluatorOutput {
  const value = notApplicable(error);
  return { values: Object.fromEntries(metrics.map((metric) => [metric.name, value])), reason: error, evidence: [], inputError: error };
}
