/**
 * The reference answers of an Eval Case as a list: `reference_answer` is one
 * text or a list of acceptable answers (eval-case.ts). Blank texts are left
 * out, so a case whose only reference is blank has none.
 */
import type { EvalCase } from "./eval-case.js";

export function referenceAnswers(evalCase: Pick<EvalCase, "reference_answer"> | null | undefined): string[] {
  const given = evalCase?.reference_answer;
  if (given === undefined) return [];
  return (typeof given === "string" ? [given] : given).filter((text) => text.trim() !== "");
}
