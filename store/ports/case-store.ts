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
 *
 * On a store several processes write to (a ClickHouse server), two calls of
 * one id and version with different content can both find nothing stored and
 * both insert. Such a case is stored with two contents: the call that finds it
 * so after its insert fails (StoredCaseConflictError, `race`), a later
 * `put` of the id and version is refused the same way, and `get` treats the
 * case as unknown instead of choosing one of its contents.
 */
import type { CaseConflict } from "../../contracts/eval-case-identity.js";
import type { EvalCase } from "../../contracts/eval-case.js";

/**
 * What a `put` did, so a push can say it (a second push of the same files stores nothing): the cases it stored,
 * by caseIdentity; every other case of the call was stored already with the same contents and was left as it is.
 */
export interface CaseWriteReport {
  stored: ReadonlySet<string>;
}

export interface CaseStore {
  get(caseId: string, caseVersion: string): Promise<EvalCase | null>;
  /** Stores the cases and says which it stored; nothing at all when one conflicts with a stored case (StoredCaseConflictError). */
  put(cases: readonly EvalCase[]): Promise<CaseWriteReport>;
  /**
   * The cases of a split (seed §二.2: `metadata.split`, else
   * `metadata.dataset_role`, trimmed, any letter case), at most `limit`; e.g.
   * the blind cases whose gold data a report must not show.
   */
  listSplit(split: string, limit: number): Promise<EvalCase[]>;
}

/**
 * A case id and version stored with two contents: this call's case and another
 * content, stored by a call whose check also found nothing (they ran at the
 * same time), or found so when this call began (left by such a race).
 */
export interface RacedCaseConflict extends CaseConflict {
  /** The store's `content_digest` of this call's content (caseContentDigest), to name its rows. */
  contentDigest: string;
  /** The other content's `content_digest` as stored ('' for a row stored before migration 0030). */
  otherContentDigest: string;
  /** The table that holds both, e.g. `ragscope.eval_cases`, for the statement that removes one. */
  table: string;
}

/**
 * `put` refused: these cases differ from the stored cases of their id and
 * version. `race`:
 * - `none`: each differs from the one stored content; nothing was stored;
 * - `found`: each is stored with two contents already (an earlier race; the
 *   conflicts are RacedCaseConflicts); nothing was stored;
 * - `during-this-call`: another call stored other content of these ids and
 *   versions while this one stored its cases (RacedCaseConflicts): each named
 *   is stored with two contents now; the call's other cases were stored as usual.
 */
export class StoredCaseConflictError extends Error {
  constructor(
    readonly conflicts: readonly CaseConflict[],
    readonly race: "none" | "found" | "during-this-call" = "none",
  ) {
    super(conflicts.map(describeStoredCaseConflict).join("; "));
    this.name = "StoredCaseConflictError";
  }
}

const isRaced = (conflict: CaseConflict): conflict is RacedCaseConflict => "otherContentDigest" in conflict;

/** A text as a ClickHouse string literal: the statement in a message is copied into a client as it is. */
const sqlText = (text: string) => `'${text.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`;

/** One line: which case, the dataset it is stored from, what differs, and the fix. Field names only, never values. */
export function describeStoredCaseConflict(conflict: CaseConflict): string {
  if (isRaced(conflict)) return describeRacedCaseConflict(conflict);
  const here = conflict.datasetId === conflict.storedDatasetId && conflict.datasetVersion === conflict.storedDatasetVersion ? "" : ` (dataset ${conflict.datasetId} version ${conflict.datasetVersion})`;
  return (
    `case ${conflict.caseId}, case_version ${conflict.caseVersion}${here}, differs in ${conflict.fields.join(", ")} from the stored case of that id and version (stored from dataset ${conflict.storedDatasetId} version ${conflict.storedDatasetVersion}): ` +
    `a stored case is the gold data of the runs that used it and is never rewritten — give the changed case a new case_version (or, if it is another case, a case_id of its own)`
  );
}

/** One line: which case, both contents' datasets, what differs, what readers do meanwhile, and how to keep one. */
function describeRacedCaseConflict(conflict: RacedCaseConflict): string {
  const remove = (digest: string) => `ALTER TABLE ${conflict.table} DELETE WHERE case_id = ${sqlText(conflict.caseId)} AND case_version = ${sqlText(conflict.caseVersion)} AND content_digest = ${sqlText(digest)} SETTINGS mutations_sync = 1`;
  return (
    `case ${conflict.caseId}, case_version ${conflict.caseVersion} (dataset ${conflict.datasetId} version ${conflict.datasetVersion}) is stored with two contents: ` +
    `this one and one from dataset ${conflict.storedDatasetId} version ${conflict.storedDatasetVersion}, differing in ${conflict.fields.join(", ")}, ` +
    `stored by two pushes at the same time (each checked the store before the other's insert). Evaluators treat the case as unknown (no gold data) until one content is removed: ` +
    `decide which is the case, then remove the other — this one with ${remove(conflict.contentDigest)}, or the one from dataset ${conflict.storedDatasetId} with ${remove(conflict.otherContentDigest)} — ` +
    `and give the changed case a new case_version (or, if it is another case, a case_id of its own)`
  );
}
