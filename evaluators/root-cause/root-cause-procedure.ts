/**
 * The ordered root-cause procedure. The first step whose condition holds
 * gives the failed case its one primary label (seed 004 §十: 首要根因).
 *
 * The order follows the pipeline upstream to downstream, after the vetoes:
 *  1 PERMISSION_LEAK     a retrieved (before or after a rerank), packed or cited chunk the principal may not read
 *  2 SYSTEM_ERROR, TIMEOUT, ENVIRONMENT_ERROR
 *                        the request did not complete (its execution_error.type, seed 000): no answer reached the user
 *  3 SHOULD_ABSTAIN      unanswerable case, and the system answered
 *  4 OVER_ABSTAIN        answerable, abstained, and all gold evidence was in the context
 *  5 DATA_MISSING        a gold document is absent from the given corpus index (eval --corpus) and never retrieved
 *  6 DATA_OUTDATED       a cited version not in force, or one packed / ranked above the gold evidence
 *  7 DATA_CONFLICT       two versions of one document packed together
 *  8 CHUNK_BAD           a chunk boundary falls inside the gold evidence text
 *  9 QUERY_REWRITE_BAD   retrieval missed and the rewrite moved away from the evidence
 * 10 RETRIEVAL_MISS      gold evidence not in the top K (nor the first stage's top K)
 * 11 RERANK_BAD          the first stage had it in the top K, the rerank pushed it out or below the packing cut,
 *                        or moved above it the distractor the failed answer follows
 * 12 CONTEXT_TRUNCATED   retrieved, but dropped from the context or cut
 * 13 CONTEXT_NOISY       in the context but buried (low density, the answer follows a distractor),
 *                        or a context precision failed (an LLM judge's, or against the case rubric)
 * 14 FORMAT_ERROR        empty answer, or not the JSON the case asks for
 * 15 OVER_ABSTAIN        answerable, abstained, no upstream cause found
 * 16 REASONING_ERROR     the context holds the reference's number/date, the answer does not
 * 17 HALLUCINATION       low faithfulness, or answer claims the context does not hold
 * 18 INCOMPLETE_ANSWER   completeness failed
 * 19 CITATION_ERROR      a citation evaluator failed
 * 20 QUERY_UNDERSTANDING an LLM judge found the answer does not respond to the question
 * 21 UNATTRIBUTED        no step found a cause: no label, listed for review
 *
 * Refinements of the example order: CHUNK_BAD moved up before retrieval (a
 * cut evidence is often unmatchable and would read as a retrieval miss);
 * FORMAT_ERROR moved before the content steps (an empty answer would
 * otherwise read as incomplete); REASONING_ERROR before HALLUCINATION (the
 * more specific: a wrong number is unsupported too, but the context held the
 * right one); OVER_ABSTAIN is tried twice, first when the evidence was
 * certainly there, then after the upstream steps.
 *
 * A reading of the texts (confidence `heuristic`: word overlap, numbers
 * found in the texts) explains only a failure of its own layer — the
 * answer's readings (REASONING_ERROR, HALLUCINATION by overlap) an
 * answer-layer failure — so a case that failed on a rule of another layer
 * (a citation outside the context) gets that rule's cause; such a reason
 * opens with "heuristic reading of the texts". No step guesses: a failure
 * none explains is UNATTRIBUTED, never a label nothing showed.
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
  unattributedStep,
} from "./generation-steps.js";
import { environmentErrorStep, systemErrorStep, timeoutStep } from "./execution-step.js";
import { queryRewriteBadStep, rerankBadStep, retrievalMissStep } from "./retrieval-steps.js";
import type { RootCauseStep } from "./root-cause-step.js";

export const ROOT_CAUSE_PROCEDURE: readonly RootCauseStep[] = [
  permissionLeakStep,
  systemErrorStep,
  timeoutStep,
  environmentErrorStep,
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
  unattributedStep,
];
