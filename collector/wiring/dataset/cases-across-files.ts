/**
 * Several dataset files checked together (`validate a.yaml b.yaml`, `dataset
 * push a.yaml b.yaml`): one (case_id, case_version) must be one case in all of
 * them (contracts/eval-case-identity.ts) — the rule the store holds when the
 * files are pushed or run. A case that repeats an earlier file's case
 * unchanged, even under another dataset id or version, is fine; one that
 * differs is a problem of the later file, naming the earlier file and what
 * differs (field names only, never values).
 */
import { caseDifferences, caseIdentity } from "../../../contracts/eval-case-identity.js";
import type { EvalCase } from "../../../contracts/eval-case.js";
import type { Dataset, DatasetProblem } from "./load-dataset.js";
import { describePlace, type PlaceInFile } from "./place-in-file.js";

/** The problems of each file (by its index in `datasets`); files without any are absent. */
export function conflictsAcrossFiles(datasets: readonly Dataset[]): Map<number, DatasetProblem[]> {
  const first = new Map<string, { file: string; place: PlaceInFile; evalCase: EvalCase }>();
  const problems = new Map<number, DatasetProblem[]>();
  datasets.forEach((dataset, fileIndex) => {
    dataset.cases.forEach((evalCase, caseIndex) => {
      const identity = caseIdentity(evalCase);
      const place = dataset.caseLocations[caseIndex] ?? { path: "" };
      const earlier = first.get(identity);
      if (earlier === undefined) {
        first.set(identity, { file: dataset.file, place, evalCase });
        return;
      }
      const fields = caseDifferences(earlier.evalCase, evalCase);
      if (fields.length === 0) return;
      const earlierPlace = describePlace(earlier.place);
      const where = earlierPlace === "" ? earlier.file : `${earlier.file} (${earlierPlace})`;
      problems.set(fileIndex, [
        ...(problems.get(fileIndex) ?? []),
        {
          ...place,
          caseId: evalCase.case_id,
          message: `case_version ${evalCase.case_version} differs in ${fields.join(", ")} from the case of that id and version in ${where}; one case id and version is one case in every file — give the changed case a new case_version (or, if it is another case, a case_id of its own)`,
        },
      ]);
    });
  });
  return problems;
}
