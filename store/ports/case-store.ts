/**
 * Eval Cases by (case_id, case_version), for evaluating traces of offline
 * runs. Cases are stored when a dataset is run, so any evaluator process
 * finds them. A lookup of an unknown case is null, never an error: the trace
 * is still evaluated (the case-dependent metrics are not applicable).
 */
import type { EvalCase } from "../../contracts/eval-case.js";

export interface CaseStore {
  get(caseId: string, caseVersion: string): Promise<EvalCase | null>;
  put(cases: readonly EvalCase[]): Promise<void>;
  /**
   * The cases of a split (seed §二.2: `metadata.split`, else
   * `metadata.dataset_role`, trimmed, any letter case), at most `limit`; e.g.
   * the blind cases whose gold data a report must not show.
   */
  listSplit(split: string, limit: number): Promise<EvalCase[]>;
}
