/**
 * One (case_id, case_version) is one case (seed 000: Case, Case Result and
 * Evaluation Result are linked by run_id, case_id and case_version): what
 * counts as the same case, and what a write of cases does against the known ones.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { caseDifferences, planCaseWrites } from "../../../contracts/eval-case-identity.js";
import { buildCase } from "../../support/case-results.js";

describe("Eval Case identity", () => {
  test("the dataset a case was loaded from is not part of the case; every other field is, named one level deep", () => {
    const first = buildCase({ case_id: "c", case_version: "v1", dataset_id: "a", dataset_version: "1", input: "q", metadata: { split: "dev", owner: "x" } });
    // Another dataset and version, its metadata keys in another order (as a JSON file next to a YAML one writes them): the same case.
    assert.deepEqual(caseDifferences(first, buildCase({ case_id: "c", case_version: "v1", dataset_id: "b", dataset_version: "9", input: "q", metadata: { owner: "x", split: "dev" } })), []);
    const changed = buildCase({ case_id: "c", case_version: "v1", dataset_id: "a", dataset_version: "1", input: "another q", risk_level: "P0", metadata: { split: "blind", owner: "x" } });
    assert.deepEqual(caseDifferences(first, changed), ["input", "metadata.split", "risk_level"]);
  });

  test("a write plan: unknown cases are written once, known ones with the same content skipped, changed ones conflicts", () => {
    const stored = buildCase({ case_id: "kept", case_version: "v1", dataset_id: "first", dataset_version: "1", input: "q" });
    const known = new Map([["kept\u0000v1", stored]]);
    const fresh = buildCase({ case_id: "fresh", case_version: "v1", dataset_id: "second", dataset_version: "1" });
    const plan = planCaseWrites(
      [
        buildCase({ case_id: "kept", case_version: "v1", dataset_id: "second", dataset_version: "1", input: "q" }),
        fresh,
        // Repeated in the same call with other content: the earlier one of the call counts as known.
        buildCase({ case_id: "fresh", case_version: "v1", dataset_id: "second", dataset_version: "1", input: "other" }),
        buildCase({ case_id: "kept", case_version: "v1", dataset_id: "second", dataset_version: "1", input: "changed" }),
      ],
      known,
    );
    assert.deepEqual(plan.toWrite, [fresh]);
    assert.deepEqual(plan.conflicts, [
      { caseId: "fresh", caseVersion: "v1", datasetId: "second", datasetVersion: "1", storedDatasetId: "second", storedDatasetVersion: "1", fields: ["input"] },
      { caseId: "kept", caseVersion: "v1", datasetId: "second", datasetVersion: "1", storedDatasetId: "first", storedDatasetVersion: "1", fields: ["input"] },
    ]);
  });
});
