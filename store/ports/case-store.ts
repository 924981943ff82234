/**
 * Eval Cases by (case_id, case_version), for evaluating traces of offline
 * runs. Cases are stored when a dataset is run, so any evaluator process
 * finds them. A lookup of an unknown case is null, never an error: the trace
 * is still evaluated (the case-dependent metrics are not applicable).
 *
 * A stored case is the gold data of every run that used it, so it is never
 * rewritten (contracts/eval-case-identity.ts): `put` stores the cases not
 * stored yet, leaves one stored with the same content as it is, and refuses
 * the whole call when a case differs from the stored case of its id and
 * version (StoredCaseConflictError, mapped to a message at the command line).
 */
import type { CaseConflict } from "../../contracts/eval-case-identity.js";
import type { EvalCase } from "../../contracts/eval-case.js";

export interface CaseStore {
  get(caseId: string, caseVersion: string): Promise<EvalCase | null>;
  /** Stores the cases; nothing at all when one conflicts with a stored case (StoredCaseConflictError). */
  put(cases: readonly EvalCase[]): Promise<void>;
  /**
   * The cases of a split (seed §二.2: `metadata.split`, else
   * `metadata.dataset_role`, trimmed, any letter case), at most `limit`; e.g.
   * the blind cases whose gold data a report must not show.
   */
  listSplit(split: string, limit: number): Promise<EvalCase[]>;
}

/** `put` refused: these cases differ from the stored cases of their id and version; nothing was stored. */
export class StoredCaseConflictError extends Error {
  constructor(readonly conflicts: readonly CaseConflict[]) {
    super(conflicts.map(describeStoredCaseConflict).join("; "));
    this.name = "StoredCaseConflictError";
  }
}

/** One line: which case, the dataset it is stored from, what differs, and the fix. Field names only, never values. */
export function describeStoredCaseConflict(conflict: CaseConflict): string {
  const here = conflict.datasetId === conflict.storedDatasetId && conflict.datasetVersion === conflict.storedDatasetVersion ? "" : ` (dataset ${conflict.datasetId} version ${conflict.datasetVersion})`;
  return (
    `case ${conflict.caseId}, case_version ${conflict.caseVersion}${here}, differs in ${conflict.fields.join(", ")} from the stored case of that id and version (stored from dataset ${conflict.storedDatasetId} version ${conflict.storedDatasetVersion}): ` +
    `a stored case is the gold data of the runs that used it and is never rewritten — give the changed case a new case_version (or, if it is another case, a case_id of its own)`
  );
}
