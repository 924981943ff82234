/**
 * Online Case Results (no case) for the reference-free evaluators' tests,
 * built through the contract's zod schema so defaults are the real ones.
 */
import { caseResult, type CaseResult } from "../../contracts/case-result.js";
import { chunks } from "./case-results.js";

type ChunkInput = Parameters<typeof chunks>[0][number];

export interface OnlineCaseResultInput {
  output?: string | null;
  query?: string | null;
  context?: string | null;
  retrieved?: ChunkInput[] | null;
  contextChunkIds?: string[] | null;
  citations?: string[] | null;
  abstained?: boolean | null;
  tenantId?: string | null;
  principalGroups?: string[] | null;
  traceId?: string;
}

export function onlineCaseResult(input: OnlineCaseResultInput = {}): CaseResult {
  const traceId = input.traceId ?? "4bf92f3577b34da6a3ce929d0e0e4736";
  return caseResult.parse({
    case_result_id: `cr_${traceId}`,
    run_id: "",
    case_id: "",
    case_version: "",
    execution_status: "completed",
    quality_status: "not_evaluated",
    input_snapshot_uri: null,
    output: input.output ?? null,
    rag_observation: {
      query: input.query ?? null,
      retrieved_chunks: input.retrieved === undefined || input.retrieved === null ? null : chunks(input.retrieved),
      context: input.context ?? null,
      context_chunks: input.contextChunkIds ? input.contextChunkIds.map((chunk_id, index) => ({ chunk_id, position: index + 1 })) : null,
      citations: input.citations === undefined ? null : input.citations,
      abstained: input.abstained ?? null,
      tenant_id: input.tenantId ?? null,
      principal_groups: input.principalGroups ?? null,
    },
    trace_id: traceId,
    execution_error: { type: "none", message: null },
    started_at: "2026-07-08T09:31:12.000Z",
    completed_at: "2026-07-08T09:31:15.000Z",
  });
}
