/**
 * A blind split's gold data is never printed (seed §二.2: the blind set guards
 * against fitting the evaluation set): for its cases only the scores are shown;
 * evaluator reasons, which quote missing key points and evidence, are withheld.
 */
import type { EvaluatedCase } from "../../evaluators/aggregate/index.js";
import { isBlind } from "../../collector/wiring/dataset/dataset-mix.js";

export const WITHHELD = "(blind split: reason withheld so no gold data is shown)";

export function isBlindCase(evaluated: EvaluatedCase): boolean {
  return evaluated.evalCase ? isBlind(evaluated.evalCase) : false;
}

export function shownReason(evaluated: EvaluatedCase, reason: string): string {
  return isBlindCase(evaluated) ? WITHHELD : reason;
}
