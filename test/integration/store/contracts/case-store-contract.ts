/** The CaseStore contract. */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
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
