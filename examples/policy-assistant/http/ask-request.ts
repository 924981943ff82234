/**
 * The HTTP contract of `POST /ask`: the request body and the response body.
 * Serialized field names are snake_case, like every serialized form in ragscope.
 */
import { z } from "zod";
import { failure, success, type Result } from "../../../core/result.js";
import type { PolicyAnswer, PolicyRequest, RetrievedChunkView } from "../create-policy-assistant.js";

const optionalText = z.string().trim().min(1).optional();

export const askRequestBody = z
  .object({
    question: z.string().trim().min(1, "question must be a non-empty string").max(2000, "question is longer than 2000 characters"),
    run_id: optionalText,
    case_id: optionalText,
    case_version: optionalText,
    dataset_id: optionalText,
    dataset_version: optionalText,
    tenant_id: optionalText,
    principal_id: optionalText,
    principal_groups: z.array(z.string()).optional(),
    session_id: optionalText,
    user_id: optionalText,
  })
  .strict();

export type AskRequestBody = z.infer<typeof askRequestBody>;

export interface AskCall {
  question: string;
  request: PolicyRequest;
}

export function parseAskRequest(body: unknown): Result<AskCall, string> {
  const parsed = askRequestBody.safeParse(body);
  if (!parsed.success) return failure(z.prettifyError(parsed.error));
  const value = parsed.data;
  return success({
    question: value.question,
    request: {
      runId: value.run_id,
      caseId: value.case_id,
      caseVersion: value.case_version,
      datasetId: value.dataset_id,
      datasetVersion: value.dataset_version,
      tenantId: value.tenant_id,
      principalId: value.principal_id,
      principalGroups: value.principal_groups,
      sessionId: value.session_id,
      userId: value.user_id,
      route: "/ask",
    },
  });
}

function chunkBody(chunk: RetrievedChunkView) {
  return {
    rank: chunk.rank,
    chunk_id: chunk.chunkId,
    document_id: chunk.documentId,
    document_version: chunk.documentVersion,
    section_id: chunk.sectionId,
    score: chunk.score,
    text: chunk.text,
    effective_from: chunk.effectiveFrom,
    effective_to: chunk.effectiveTo,
    acl: chunk.acl,
    tenant_id: chunk.tenantId,
  };
}

export function toAskResponse(answer: PolicyAnswer) {
  return {
    question: answer.question,
    answer: answer.answer,
    citations: answer.citations,
    abstained: answer.abstained,
    answer_source: answer.answerSource,
    retrieved_chunks: answer.retrieved.map(chunkBody),
    context: {
      text: answer.context.text,
      chunk_ids: answer.context.chunkIds,
      dropped_chunks: answer.context.droppedChunks.map((dropped) => ({ chunk_id: dropped.chunkId, reason: dropped.reason })),
      token_count: answer.context.tokenCount,
      token_budget: answer.context.tokenBudget,
    },
    generation: {
      model: answer.generation.model,
      input_tokens: answer.generation.inputTokens,
      output_tokens: answer.generation.outputTokens,
      cost: answer.generation.cost,
    },
    trace_id: answer.traceId,
  };
}
