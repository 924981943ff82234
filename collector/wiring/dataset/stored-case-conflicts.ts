/**
 * What a command prints when the store refused a dataset's cases because a
 * case id and version is stored with other content (store/ports/case-store.ts):
 * one line per case — the dataset file, the case, the dataset it is stored
 * from, the fields that differ, the fix — then what happened to the run.
 */
import type { StoredCaseConflictError } from "../../../store/ports/case-store.js";
import { describeStoredCaseConflict } from "../../../store/ports/case-store.js";

/** Lines for `eval` (exit 2: the run could not start); `source` is the dataset file, or a dataset already loaded. */
export function describeStoredCaseConflicts(source: string | { file: string }, error: StoredCaseConflictError): string[] {
  const file = typeof source === "string" ? source : source.file;
  const count = error.conflicts.length === 1 ? "1 case differs" : `${error.conflicts.length} cases differ`;
  return [
    ...error.conflicts.map((conflict) => `${file}: ${describeStoredCaseConflict(conflict)}`),
    `nothing was run: ${count} from the stored case${error.conflicts.length === 1 ? "" : "s"} of the same id and version, which earlier runs were evaluated against`,
  ];
}
