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
  });
}
