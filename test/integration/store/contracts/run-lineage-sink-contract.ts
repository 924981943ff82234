/** The RunLineageSink contract, read back through the RunReader. */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { StoreFactory, StoreUnderTest } from "./store-under-test.js";

export function runLineageSinkContract(name: string, factory: StoreFactory): void {
  describe(`RunLineageSink: ${name}`, () => {
    let clock = Date.parse("2026-07-08T10:00:00.000Z");
    let subject: StoreUnderTest;
    before(async () => {
      subject = await factory({ now: () => clock });
    });
    after(() => subject.cleanup());

    test("a run recorded again replaces the earlier record; an invalid lineage is refused", async () => {
      await subject.store.runs.record({ run_id: "run_lineage", started_at: "2026-07-08T09:00:00.000Z", retriever_version: "bm25" });
      clock += 1_000;
      const recorded = await subject.store.runs.record({ run_id: "run_lineage", started_at: "2026-07-08T09:00:00.000Z", retriever_version: "hybrid" });
      assert.deepEqual(await subject.store.reader.readRun("run_lineage"), recorded);
      assert.equal(recorded.retriever_version, "hybrid");
      await assert.rejects(subject.store.runs.record({ run_id: "", started_at: "not a time" }));
    });
  });
}
