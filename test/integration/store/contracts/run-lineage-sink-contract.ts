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

    test("each tenant's record of a run id is its own; a reader of every tenant reads the one without a tenant, else the newest, and lists the run once", async () => {
      const at = "2026-07-08T09:00:00.000Z";
      // Recorded without a tenant first, then by acme a second later: acme's record does not replace it.
      const untenanted = await subject.store.runs.record({ run_id: "run_both", started_at: at, prompt_version: "operator" });
      clock += 1_000;
      await subject.store.runs.record({ run_id: "run_both", started_at: at, prompt_version: "acme" }, "acme");
      assert.deepEqual(await subject.store.reader.readRun("run_both"), untenanted);
      // Two tenants' records, none without a tenant: globex's, a second newer, is read.
      clock += 1_000;
      await subject.store.runs.record({ run_id: "run_tenants", started_at: at, prompt_version: "acme" }, "acme");
      clock += 1_000;
      const globex = await subject.store.runs.record({ run_id: "run_tenants", started_at: at, prompt_version: "globex" }, "globex");
      clock += 1_000;
      // acme records again, with an older clock than globex's (another machine's): globex's stays the newest.
      clock -= 5_000;
      await subject.store.runs.record({ run_id: "run_tenants", started_at: at, prompt_version: "acme again" }, "acme");
      assert.deepEqual(await subject.store.reader.readRun("run_tenants"), globex);
      const listed = (await subject.store.traces.listRuns(10)).filter((run) => run.runId === "run_both" || run.runId === "run_tenants");
      assert.deepEqual(listed.map((run) => [run.runId, run.lineage?.prompt_version]).sort(), [
        ["run_both", "operator"],
        ["run_tenants", "globex"],
      ]);
    });
  });
}
