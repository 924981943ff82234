/**
 * Pairwise comparison of two answers with the A/B order swapped (seed 004
 * §九.3 "随机交换 A/B 答案顺序"): judges prefer the answer in one position often
 * enough that a single order is not evidence. The same question is asked twice
 * — A first, then B first — and a preference counts only when both orders name
 * the same answer; when they disagree the verdict is "inconsistent", which
 * counts for neither. Both orders saying "tie" is a tie.
 */
import type { Result } from "../../../core/result.js";
import type { JudgeErrorType, JudgeUsage } from "../judge.js";
import { sumUsage } from "../judge.js";
import type { JudgeDocument } from "../judge-inputs.js";

export type PositionPreference = "first" | "second" | "tie";

export interface PreferenceQuestion {
  question: string;
  first: string;
  second: string;
  documents: readonly JudgeDocument[];
  /** What "better" means; default: correct, grounded in the documents, complete and to the point. */
  criterion: string;
}

export interface PreferenceAnswer {
  preferred: PositionPreference;
  reason: string;
  usage: JudgeUsage;
}

export interface PreferenceFailure {
  errorType: JudgeErrorType;
  message: string;
  usage: JudgeUsage;
}

/** Anything that can say which of two answers, in the order shown, is better. */
export interface PreferenceSource {
  readonly id: string;
  prefer(question: PreferenceQuestion, signal?: AbortSignal): Promise<Result<PreferenceAnswer, PreferenceFailure>>;
}

export interface PairwiseRequest {
  question: string;
  answerA: string;
  answerB: string;
  documents?: readonly JudgeDocument[];
  criterion?: string;
}

export type PairwiseChoice = "A" | "B" | "tie";
export type PairwiseVerdict = PairwiseChoice | "inconsistent";

export interface PairwiseOrderResult {
  shown: "A,B" | "B,A";
  preferred: PairwiseChoice;
  reason: string;
}

export type PairwiseOutcome =
  | { kind: "verdict"; verdict: PairwiseVerdict; consistent: boolean; orders: PairwiseOrderResult[]; reason: string; usage: JudgeUsage; judgeId: string }
  | { kind: "grader_error"; errorType: JudgeErrorType; message: string; usage: JudgeUsage; judgeId: string };

export const DEFAULT_PAIRWISE_CRITERION = "the better answer is correct, supported by the documents when documents are given, complete, and directly answers the question";

function toChoice(preferred: PositionPreference, shown: "A,B" | "B,A"): PairwiseChoice {
  if (preferred === "tie") return "tie";
  const firstIsA = shown === "A,B";
  return (preferred === "first") === firstIsA ? "A" : "B";
}

export async function comparePairwise(source: PreferenceSource, request: PairwiseRequest, signal?: AbortSignal): Promise<PairwiseOutcome> {
  const base = { question: request.question, documents: request.documents ?? [], criterion: request.criterion ?? DEFAULT_PAIRWISE_CRITERION };
  const usages: JudgeUsage[] = [];
  const orders: PairwiseOrderResult[] = [];
  for (const shown of ["A,B", "B,A"] as const) {
    const [first, second] = shown === "A,B" ? [request.answerA, request.answerB] : [request.answerB, request.answerA];
    const answer = await source.prefer({ ...base, first, second }, signal);
    if (!answer.ok) {
      usages.push(answer.error.usage);
      return { kind: "grader_error", errorType: answer.error.errorType, message: `order ${shown}: ${answer.error.message}`, usage: sumUsage(usages), judgeId: source.id };
    }
    usages.push(answer.value.usage);
    orders.push({ shown, preferred: toChoice(answer.value.preferred, shown), reason: answer.value.reason });
  }
  const [straight, swapped] = orders as [PairwiseOrderResult, PairwiseOrderResult];
  const consistent = straight.preferred === swapped.preferred;
  const verdict: PairwiseVerdict = consistent ? straight.preferred : "inconsistent";
  const reason = consistent
    ? verdict === "tie"
      ? "both orders judged the answers equally good"
      : `both orders preferred answer ${verdict} — ${straight.reason}`
    : `position bias: shown A first the judge preferred ${straight.preferred}, shown B first it preferred ${swapped.preferred}; the comparison counts for neither`;
  return { kind: "verdict", verdict, consistent, orders, reason, usage: sumUsage(usages), judgeId: source.id };
}
