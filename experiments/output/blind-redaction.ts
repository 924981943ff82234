/**
 * A blind split's gold data is never printed (seed §二.2: the blind set guards
 * against fitting the evaluation set): for its cases only the verdicts and
 * scores are shown. Evaluator reasons, which quote missing key points and
 * evidence — and a judge's, the rubric and expected behaviour it judged by —
 * are withheld, every evaluator's alike, and so are the chunks an evaluation's evidence_refs
 * name: they say which retrieved, packed or cited chunk held the gold
 * evidence (retrieval.ranking's `chunk://<gold chunk>`), which is the gold id.
 * References to other Evaluation Results (`evaluation://…`) name no gold data
 * and stay. The web UI and its read API show a stored case through the same
 * functions (ui/api/blind-trace-detail.ts).
 */
import type { EvalCase } from "../../contracts/eval-case.js";
import type { EvaluationResult } from "../../contracts/evaluation-result.js";
import type { EvaluatedCase } from "../../evaluators/aggregate/index.js";
import { isBlind } from "../../collector/wiring/dataset/dataset-mix.js";
import { withoutBlindGold } from "../../contracts/blind-gold.js";

export const WITHHELD = "(blind split: reason withheld so no gold data is shown)";

/** The evidence_refs prefix of a reference to another Evaluation Result (root-cause/root-cause-evaluation-result.ts). */
const EVALUATION_REFERENCE = "evaluation://";

export function isBlindCase(evaluated: Pick<EvaluatedCase, "evalCase">): boolean {
  return evaluated.evalCase ? isBlind(evaluated.evalCase) : false;
}

export function shownReason(evaluated: Pick<EvaluatedCase, "evalCase">, reason: string): string {
  return isBlindCase(evaluated) ? WITHHELD : reason;
}

/** The Evaluation Result as it may be printed: for a blind case without its reason and without the chunks its evidence names. */
export function shownEvaluation(evaluated: Pick<EvaluatedCase, "evalCase">, evaluation: EvaluationResult): EvaluationResult {
  if (!isBlindCase(evaluated)) return evaluation;
  return { ...evaluation, reason: WITHHELD, evidence_refs: evaluation.evidence_refs.filter((reference) => reference.startsWith(EVALUATION_REFERENCE)) };
}

/**
 * The Eval Case as it may be shown: a blind case without its gold data — the answers, evidence and key points, and
 * the criteria it is graded by (expected and forbidden behaviour, rubric, …): contracts/blind-gold.ts lists them.
 * Its split stays, so whoever shows it can tell the gold was withheld rather than absent (a page must not mark
 * every chunk "not gold" because the list it matched against is empty, nor show a default threshold for a metric
 * whose threshold the withheld rubric set).
 */
export function shownEvalCase(evalCase: EvalCase): EvalCase {
  return isBlind(evalCase) ? withoutBlindGold(evalCase) : evalCase;
}
