/**
 * The ordered root-cause procedure. The first step whose condition holds
 * gives the failed case its one primary label (seed 004 §十: 首要根因).
 *
 * The order follows the pipeline upstream to downstream, after two vetoes:
 *  1 PERMISSION_LEAK     a retrieved (before or after a rerank), packed or cited chunk the principal may not read
 *  2 SHOULD_ABSTAIN      unanswerable case, and the system answered
 *  3 OVER_ABSTAIN        answerable, abstained, and all gold evidence was in the context
 *  4 DATA_MISSING        a gold document is absent from the given corpus index and never retrieved
 *  5 DATA_OUTDATED       a cited version not in force, or one packed / ranked above the gold evidence
 *  6 DATA_CONFLICT       two versions of one document packed together
 *  7 CHUNK_BAD           a chunk boundary falls inside the gold evidence text
 *  8 QUERY_REWRITE_BAD   retrieval missed and the rewrite moved away from the evidence
 *  9 RETRIEVAL_MISS      gold evidence not in the top K (nor the first stage's top K)
 * 10 RERANK_BAD          the first stage had it in the top K, the rerank pushed it out or below the cut
 * 11 CONTEXT_TRUNCATED   retrieved, but dropped from the context or cut
 * 12 CONTEXT_NOISY       in the context but buried (low density, the answer follows a distractor),
 *                        or a context precision failed (an LLM judge's, or against the case rubric)
 * 13 FORMAT_ERROR        empty answer, or not the JSON the case asks for
 * 14 OVER_ABSTAIN        answerable, abstained, no upstream cause found
 * 15 REASONING_ERROR     the context holds the reference's number/date, the answer does not
 * 16 HALLUCINATION       low faithfulness, or answer claims the context does not hold
 * 17 INCOMPLETE_ANSWER   completeness failed
 * 18 CITATION_ERROR      a citation evaluator failed
 * 19 QUERY_UNDERSTANDING fallback
 *
 * Refinements of the example order: CHUNK_BAD moved up before retrieval (a
 * cut evidence is often unmatchable and would read as a retrieval miss);
 * FORMAT_ERROR moved before the content steps (an empty answer would
 * otherwise read as incomplete); REASONING_ERROR before HALLUCINATION (the
 * more specific: a wrong number is unsupported too, but the context held the
 * right one); OVER_ABSTAIN is tried twice, first when the evidence was
 * certainly there, then after the upstream steps.
 */
import { overAbstainWithEvidenceStep, permissionLeakStep, shouldAbstainStep } from "./boundary-steps.js";
import { chunkBadStep } from "./chunk-step.js";
import { contextNoisyStep, contextTruncatedStep } from "./context-steps.js";
import { dataConflictStep, dataMissingStep, dataOutdatedStep } from "./data-steps.js";
import {
  citationErrorStep,
  formatErrorStep,
  hallucinationStep,
  incompleteAnswerStep,
  overAbstainStep,
  queryUnderstandingStep,
  reasoningErrorStep,
} from "./generation-steps.js";
import { queryRewriteBadStep, rerankBadStep, retrievalMissStep } from "./retrieval-steps.js";
import type { RootCauseStep } from "./root-cause-step.js";

export const ROOT_CAUSE_PROCEDURE: readonly RootCauseStep[] = [
  permissionLeakStep,
  shouldAbstainStep,
  overAbstainWithEvidenceStep,
  dataMissingStep,
  dataOutdatedStep,
  dataConflictStep,
  chunkBadStep,
  queryRewriteBadStep,
  retrievalMissStep,
  rerankBadStep,
  contextTruncatedStep,
  contextNoisyStep,
  formatErrorStep,
  overAbstainStep,
  reasoningErrorStep,
  hallucinationStep,
  incompleteAnswerStep,
  citationErrorStep,
  queryUnderstandingStep,
];
