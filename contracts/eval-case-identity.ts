/**
 * One `(case_id, case_version)` is one case. The seeds link a Case, its Case
 * Results and its Evaluation Results by run_id, case_id and case_version
 * (000: "三类对象通过 run_id、case_id 和 case_version 关联"; 002: case_id is the
 * sample's unique id, case_version the version of its contract), and a
 * Case Result carries no dataset: so a case id and version must mean the same
 * case wherever it appears, or a later dataset would change the gold data of
 * the runs that used the earlier one.
 *
 * "The same case" compares everything but `dataset_id` and `dataset_version`:
 * a case kept unchanged into the next dataset version (002: case_version and
 * dataset_version are versioned apart) or shared by two datasets is still one
 * case. Any other difference — input, gold evidence, risk_level, metadata —
 * is another case, which needs its own case_version (or its own case_id).
 */
import { digestCaseFields, digestDifferences } from "./eval-case-digest.js";
import type { EvalCase } from "./eval-case.js";

export const caseIdentity = (evalCase: { case_id: string; case_version: string }): string => `${evalCase.case_id}\u0000${evalCase.case_version}`;

/**
 * The fields in which two cases of one id and version differ, as dotted paths
 * one level deep (`risk_level`, `metadata.split`); empty when they are the
 * same case. Only names: values are never part of the answer, since a blind
 * case's gold data must stay out of messages and logs. Compared through the
 * fields' digests (eval-case-digest.ts), as a running collector compares a
 * case it holds with one it is only sent the digests of.
 */
export function caseDifferences(left: EvalCase, right: EvalCase): string[] {
  return digestDifferences(digestCaseFields(left), digestCaseFields(right));
}

export interface CaseConflict {
  caseId: string;
  caseVersion: string;
  /** The dataset of the case that was refused. */
  datasetId: string;
  datasetVersion: string;
  /** The dataset the case of that id and version was first stored (or defined) from. */
  storedDatasetId: string;
  storedDatasetVersion: string;
  /** What differs (caseDifferences): field names only. */
  fields: string[];
}

export interface CaseWritePlan {
  /** The cases not known yet, each once. */
  toWrite: EvalCase[];
  /** The cases that differ from the known case of their id and version. */
  conflicts: CaseConflict[];
}

/**
 * Which of `incoming` to write, given the cases already known by identity
 * (caseIdentity): an unknown case is written, a known one with the same
 * content is left as stored (the first dataset it came from stays), one whose
 * content differs is a conflict. Cases earlier in `incoming` count as known to
 * the later ones.
 */
export function planCaseWrites(incoming: readonly EvalCase[], known: ReadonlyMap<string, EvalCase>): CaseWritePlan {
  const seen = new Map(known);
  const toWrite: EvalCase[] = [];
  const conflicts: CaseConflict[] = [];
  for (const item of incoming) {
    const identity = caseIdentity(item);
    const earlier = seen.get(identity);
    if (earlier === undefined) {
      seen.set(identity, item);
      toWrite.push(item);
      continue;
    }
    const fields = caseDifferences(earlier, item);
    if (fields.length > 0) {
      conflicts.push({
        caseId: item.case_id,
        caseVersion: item.case_version,
        datasetId: item.dataset_id,
        datasetVersion: item.dataset_version,
        storedDatasetId: earlier.dataset_id,
        storedDatasetVersion: earlier.dataset_version,
        fields,
      });
    }
  }
  return { toWrite, conflicts };
}
