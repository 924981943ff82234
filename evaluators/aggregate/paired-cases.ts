/**
 * A run and its baseline, case by case: a regression is measured on the cases
 * both runs ran (the same case_id and case_version: the same gold data,
 * contracts/eval-case-identity.ts). Runs over different dataset versions, or
 * a subset run (`--split`), hold cases the other lacks, and a difference of
 * their whole-run scores would measure the change of cases — harder cases
 * added, failing ones removed — as a change of the system. So the comparison
 * keeps the cases in both and says which were left out.
 */
import type { EvaluatedCase } from "./evaluated-case.js";

/** `case_id@case_version`: one case of a dataset, whichever run ran it. */
export const pairedCaseKey = (evaluated: EvaluatedCase): string => `${evaluated.caseResult.case_id}@${evaluated.caseResult.case_version}`;

export interface PairedCases {
  /** The run's cases that the baseline also ran, and the baseline's of the same ids and versions. */
  candidate: EvaluatedCase[];
  baseline: EvaluatedCase[];
  /** `case_id@case_version` of the cases only one of the two ran, sorted. */
  candidateOnly: string[];
  baselineOnly: string[];
}

export function pairCases(candidate: readonly EvaluatedCase[], baseline: readonly EvaluatedCase[]): PairedCases {
  const baselineKeys = new Set(baseline.map(pairedCaseKey));
  const candidateKeys = new Set(candidate.map(pairedCaseKey));
  return {
    candidate: candidate.filter((evaluated) => baselineKeys.has(pairedCaseKey(evaluated))),
    baseline: baseline.filter((evaluated) => candidateKeys.has(pairedCaseKey(evaluated))),
    candidateOnly: [...candidateKeys].filter((key) => !baselineKeys.has(key)).sort(),
    baselineOnly: [...baselineKeys].filter((key) => !candidateKeys.has(key)).sort(),
  };
}

const listed = (keys: readonly string[], shown = 5) => (keys.length <= shown ? keys.join(", ") : `${keys.slice(0, shown).join(", ")} and ${keys.length - shown} more`);

/**
 * One sentence for a run whose baseline ran other cases, or null when both ran the same ones: how many are
 * compared, which were left out on each side, and why.
 */
export function describeUnpairedCases(paired: PairedCases, baselineRunId: string): string | null {
  if (paired.candidateOnly.length === 0 && paired.baselineOnly.length === 0) return null;
  const parts: string[] = [];
  if (paired.candidateOnly.length > 0) parts.push(`${paired.candidateOnly.length} of this run's cases are not in it (${listed(paired.candidateOnly)})`);
  if (paired.baselineOnly.length > 0) parts.push(`${paired.baselineOnly.length} of its cases are not in this run (${listed(paired.baselineOnly)})`);
  const compared = new Set(paired.candidate.map(pairedCaseKey)).size;
  return (
    `baseline ${baselineRunId} ran other cases than this run — ${parts.join(", and ")}, as runs over different dataset versions or splits do (a changed case has a new case_version): ` +
    `the comparison and overall_score_drop cover only the ${compared} case${compared === 1 ? "" : "s"} both ran; to compare whole datasets, run the baseline's pipeline over this dataset version`
  );
}
