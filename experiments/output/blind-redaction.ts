/**
 * A blind split's gold data is never printed (seed §二.2: the blind set guards
 * against fitting the evaluation set): for its cases only the verdicts and
 * scores are shown. Evaluator reasons, which quote missing key points and
 * evidence, are withheld, and so are the chunks an evaluation's evidence_refs
 * name: they say which retrieved, packed or cited chunk held the gold
 * evidence (retrieval.ranking's `chunk://<gold chunk>`), which is the gold id.
 * References to other Evaluation Results (`evaluation://…`) name no gold data
 * and stay.
 */
import type { EvaluationResult } from "../../contracts/evaluation-result.js";
import type { EvaluatedCase } from "../../evaluators/aggregate/index.js";
import { isBlind } from "../../collector/wiring/dataset/dataset-mix.js";

export const WITHHELD = "(blind split: reason withheld so no gold data is shown)";

/** The evidence_refs prefix of a reference to another Evaluation Result (root-cause/root-cause-evaluation-result.ts). */
const EVALUATION_REFERENCE = "evaluation://";

export function isBlindCase(evaluated: EvaluatedCase): boolean {
  return evaluated.evalCase ? isBlind(evaluated.evalCase) : false;
}

export function shownReason(evaluated: EvaluatedCase, reason: string): string {
  return isBlindCase(evaluated) ? WITHHELD : reason;
}

/** The Evaluation Result as it may be printed: for a blind case without its reason and without the chunks its evidence names. */
export function shownEvaluation(evaluated: EvaluatedCase, evaluation: EvaluationResult): EvaluationResult {
  if (!isBlindCase(evaluated)) return evaluation;
  return { ...evaluation, reason: WITHHELD, evidence_refs: evaluation.evidence_refs.filter((reference) => reference.startsWith(EVALUATION_REFERENCE)) };
}
