/**
 * The texts the reference-based answer metrics compare — the answer and the
 * case's reference answers (one or several) — or why they cannot: no Eval
 * Case, no reference answer, or no answer in the trace. The answer is taken
 * without its inline citation markers (text/citation-markers.ts: the common
 * forms, and any id the trace's citations name), which a reference answer
 * does not have and which state nothing.
 */
import type { CaseResult } from "../../contracts/case-result.js";
import type { EvalCase } from "../../contracts/eval-case.js";
import { referenceAnswers } from "../../contracts/reference-answers.js";
import { failure, success, type Result } from "../../core/result.js";
import { withoutCitationMarkers } from "../text/citation-markers.js";

export function answerAndReference(caseResult: CaseResult, evalCase: EvalCase | null): Result<{ answer: string; references: string[] }, string> {
  if (!evalCase) return failure("the trace is not linked to an Eval Case");
  const references = referenceAnswers(evalCase);
  if (references.length === 0) return failure("the case has no reference answer");
  const answer = caseResult.output;
  if (answer === null) return failure("the trace recorded no answer");
  return success({ answer: withoutCitationMarkers(answer, caseResult.rag_observation.citations), references });
}
