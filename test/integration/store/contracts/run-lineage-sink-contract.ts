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
      // acme records again from another machine, whose clock is behind globex's record: globex's stays the newest.
      const behind = clock - 4_000;
      await subject.runLineageSinkOfAnotherProcess(() => behind).record({ run_id: "run_tenants", started_at: at, prompt_version: "acme again" }, "acme");
      assert.deepEqual(await subject.store.reader.readRun("run_tenants"), globex);
      const listed = (await subject.store.traces.listRuns(10)).filter((run) => run.runId === "run_both" || run.runId === "run_tenants");
      assert.deepEqual(listed.map((run) => [run.runId, run.lineage?.prompt_version]).sort(), [
        ["run_both", "operator"],
        ["run_tenants", "globex"],
      ]);
    });

    // The store's row versions (store/row-version-clock.ts): of one process's records, the later is the newest, within
    // one millisecond of its clock or after the clock stepped back. Versioned by the clock alone, two tenants' records
    // of one millisecond tied (and the greater tenant, here the earlier record, was read), and a record made after the
    // clock stepped back lost to the earlier one.
    test("of two tenants' records of one process, a reader of every tenant reads the later, whatever the clock did", async () => {
      const at = "2026-07-08T09:00:00.000Z";
      clock += 60_000;
      await subject.store.runs.record({ run_id: "run_one_millisecond", started_at: at, prompt_version: "globex" }, "globex");
      const later = await subject.store.runs.record({ run_id: "run_one_millisecond", started_at: at, prompt_version: "acme" }, "acme");
      assert.deepEqual(await subject.store.reader.readRun("run_one_millisecond"), later, "within one millisecond");
      await subject.store.runs.record({ run_id: "run_stepped_back", started_at: at, prompt_version: "acme" }, "acme");
      clock -= 5_000;
      const afterStep = await subject.store.runs.record({ run_id: "run_stepped_back", started_at: at, prompt_version: "globex" }, "globex");
      assert.deepEqual(await subject.store.reader.readRun("run_stepped_back"), afterStep, "after the clock stepped back");
      assert.deepEqual(
        (await subject.store.traces.listRuns(100)).filter((run) => run.runId === "run_one_millisecond" || run.runId === "run_stepped_back").map((run) => [run.runId, run.lineage?.prompt_version]).sort(),
        [
          ["run_one_millisecond", "acme"],
          ["run_stepped_back", "globex"],
        ],
      );
      clock += 5_000;
    });

    test("of several tenants' records, a reader of every tenant reads one that says the run has not finished before a newer one that says it has", async () => {
      const at = "2026-07-08T09:00:00.000Z";
      // globex's eval was interrupted; acme then records its own lineage of the same id as complete (test/security/run-lineage-writes.test.ts).
      clock += 10_000;
      const interrupted = await subject.store.runs.record({ run_id: "run_forged", started_at: at, generator_model: "globex", completion: { status: "interrupted", planned_cases: 10, stored_cases: 3 } }, "globex");
      clock += 1_000;
      const forged = await subject.store.runs.record({ run_id: "run_forged", started_at: at, generator_model: "acme", completion: { status: "complete", planned_cases: 3, stored_cases: 3 } }, "acme");
      assert.deepEqual(await subject.store.reader.readRun("run_forged"), interrupted);
      assert.deepEqual((await subject.store.traces.listRuns(10)).find((run) => run.runId === "run_forged")?.lineage, interrupted);
      assert.equal(forged.generator_model, "acme");
      // A record without a tenant still comes first: only a writer of every tenant writes it.
      clock += 1_000;
      const operator = await subject.store.runs.record({ run_id: "run_forged", started_at: at, generator_model: "operator", completion: { status: "complete", planned_cases: 10, stored_cases: 10 } });
      assert.deepEqual(await subject.store.reader.readRun("run_forged"), operator);
    });
  });
}
