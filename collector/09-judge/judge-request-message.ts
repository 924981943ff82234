/**
 * One judge request on the judge queue (topic `ragscope_judge_requests` in
 * production, the in-process queue embedded): the Case Result as the rule
 * stage rebuilt it, and a reference to its Eval Case, so a judge worker in
 * another process needs nothing else. Parsed with zod at the boundary
 * (STYLE.md "One contracts module": the payload is a schema, its type derived).
 *
 * The Eval Case travels as a reference, not inline: the case store is the one
 * place cases live, and a case edited later is looked up by its version.
 */
import { z } from "zod";
import { caseResult } from "../../contracts/case-result.js";
import { failure, success, type Result } from "../../core/result.js";

export const judgeRequestMessage = z.object({
  case_result_id: z.string().min(1),
  case_result: caseResult,
  /** The offline case the trace belongs to; null for online traffic. */
  case_ref: z.object({ case_id: z.string().min(1), case_version: z.string() }).nullable(),
  /** Why the sampler chose the trace: "rate" or "forced:<reasons>". */
  sample_reason: z.string(),
  enqueued_at: z.string(),
  /**
   * What to run: the judge (the trace was sampled for it) and the embedding
   * measurements (sampled at their own rate, embeddingsEndpoint.sampleRate).
   * Absent means true, as every request meant before they existed.
   */
  judge: z.boolean().optional(),
  measure_embeddings: z.boolean().optional(),
});

export type JudgeRequestMessage = z.infer<typeof judgeRequestMessage>;

export function encodeJudgeRequest(message: JudgeRequestMessage): string {
  return JSON.stringify(message);
}

export function decodeJudgeRequest(text: string): Result<JudgeRequestMessage, string> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return failure(`not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  const parsed = judgeRequestMessage.safeParse(raw);
  if (!parsed.success) return failure(parsed.error.issues.map((issue) => `${issue.path.join(".") || "(message)"}: ${issue.message}`).join("; "));
  return success(parsed.data);
}
