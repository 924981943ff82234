/** The CaseStore contract. */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { caseIdentity } from "../../../../contracts/eval-case-identity.js";
import { StoredCaseConflictError } from "../../../../store/ports/case-store.js";
import { buildCase } from "../../../support/case-results.js";
import type { StoreFactory, StoreUnderTest } from "./store-under-test.js";

export function caseStoreContract(name: string, factory: StoreFactory): void {
  describe(`CaseStore: ${name}`, () => {
    let subject: StoreUnderTest;
    before(async () => {
      subject = await factory({ now: () => Date.parse("2026-07-08T10:00:00.000Z") });
    });
    after(() => subject.cleanup());

    test("cases are found by id and version; an unknown case or an empty id is null", async () => {
      const first = buildCase({ case_id: "c1", case_version: "v1", input: "first" });
      const second = buildCase({ case_id: "c1", case_version: "v2", input: "second" });
      await subject.store.cases.put([first, second]);
      assert.deepEqual(await subject.store.cases.get("c1", "v1"), first);
      assert.deepEqual(await subject.store.cases.get("c1", "v2"), second);
      assert.equal(await subject.store.cases.get("c1", "v3"), null);
      assert.equal(await subject.store.cases.get("", "v1"), null);
      assert.equal(await subject.store.cases.get("missing", "v1"), null);
    });

    test("a stored case is never rewritten: another content under its id and version is refused with the whole call, the same content from another dataset is kept as first stored", async () => {
      const stored = buildCase({ case_id: "gold", case_version: "v1", dataset_id: "qa_err", dataset_version: "1", input: "How long is the warranty?", risk_level: "P0" });
      await subject.store.cases.put([stored]);

      // Another dataset reuses gold@v1 with risk_level P2 (the QA's qa_err3), beside a new case.
      const changed = buildCase({ case_id: "gold", case_version: "v1", dataset_id: "qa_err3", dataset_version: "1", input: "How long is the warranty?", risk_level: "P2" });
      const beside = buildCase({ case_id: "beside", case_version: "v1", dataset_id: "qa_err3", dataset_version: "1" });
      await assert.rejects(subject.store.cases.put([beside, changed]), (error: unknown) => {
        assert.ok(error instanceof StoredCaseConflictError);
        assert.deepEqual(error.conflicts, [
          { caseId: "gold", caseVersion: "v1", datasetId: "qa_err3", datasetVersion: "1", storedDatasetId: "qa_err", storedDatasetVersion: "1", fields: ["risk_level"] },
        ]);
        return true;
      });
      assert.deepEqual(await subject.store.cases.get("gold", "v1"), stored);
      assert.equal(await subject.store.cases.get("beside", "v1"), null, "nothing of a refused call is stored");

      // The same case in a later dataset version (002: case_version and dataset_version are versioned apart): accepted, the stored row kept.
      await subject.store.cases.put([buildCase({ case_id: "gold", case_version: "v1", dataset_id: "qa_err", dataset_version: "2", input: "How long is the warranty?", risk_level: "P0" })]);
      assert.deepEqual(await subject.store.cases.get("gold", "v1"), stored);
      // A changed case under a new case_version is another case.
      await subject.store.cases.put([{ ...changed, case_version: "v2" }]);
      assert.equal((await subject.store.cases.get("gold", "v2"))?.risk_level, "P2");
      assert.equal((await subject.store.cases.get("gold", "v1"))?.risk_level, "P0");
    });

    test("put says which cases it stored: the new ones; a case stored already with the same contents is not among them", async () => {
      const first = buildCase({ case_id: "w1", case_version: "v1", input: "first" });
      const second = buildCase({ case_id: "w2", case_version: "v1", input: "second" });
      assert.deepEqual([...(await subject.store.cases.put([first, second])).stored].sort(), [caseIdentity(first), caseIdentity(second)].sort(), "both new");
      assert.deepEqual([...(await subject.store.cases.put([first, second])).stored], [], "the same call again stores nothing");
      const third = buildCase({ case_id: "w3", case_version: "v1", input: "third" });
      assert.deepEqual([...(await subject.store.cases.put([first, third, third])).stored], [caseIdentity(third)], "only the new case, once");
      assert.deepEqual([...(await subject.store.cases.put([])).stored], []);
    });

    test("the cases of a split: metadata.split (trimmed, any letter case), else metadata.dataset_role; at most the limit", async () => {
      await subject.store.cases.put([
        buildCase({ case_id: "s1", case_version: "1", metadata: { split: " Blind " } }),
        buildCase({ case_id: "s2", case_version: "1", metadata: { dataset_role: "blind" } }),
        buildCase({ case_id: "s3", case_version: "1", metadata: { split: "dev", dataset_role: "blind" } }),
        buildCase({ case_id: "s4", case_version: "1", metadata: { split: "", dataset_role: "BLIND" } }),
        buildCase({ case_id: "s5", case_version: "1", metadata: {} }),
      ]);
      const blind = await subject.store.cases.listSplit("blind", 100);
      assert.deepEqual(blind.map((item) => item.case_id).sort(), ["s1", "s2", "s4"]);
      assert.deepEqual((await subject.store.cases.listSplit("dev", 100)).map((item) => item.case_id), ["s3"]);
      assert.equal((await subject.store.cases.listSplit("blind", 2)).length, 2);
      assert.deepEqual(await subject.store.cases.listSplit("regression", 100), []);
    });
  });
}
