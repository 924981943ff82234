/**
 * The runs list (TraceReader.listRuns, store/ports/run-listing.ts): every
 * run the Case Results carry, recorded lineage or not, newest first by the
 * run's start — the lineage's started_at, else its earliest Case Result's —
 * bounded, with its number of cases and its lineage or null. Runs without
 * lineage are what a remote eval (`ragscope eval --endpoint`) and an
 * application tagged with a run id through the SDK leave. Expected values are
 * written here from the rows the test stores, not from either implementation.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { CaseResult } from "../../../../contracts/case-result.js";
import { runLineage } from "../../../../contracts/run-lineage.js";
import { buildCaseResult } from "../../../support/case-results.js";
import type { StoreFactory, StoreUnderTest } from "./store-under-test.js";

const at = (time: string) => `2026-07-08T09:${time}Z`;

function caseResultOf(id: string, runId: string, startedAt: string, output = "an answer"): CaseResult {
  const base = buildCaseResult({ output });
  return { ...base, case_result_id: id, run_id: runId, trace_id: `trace_${id}`, started_at: startedAt, completed_at: startedAt, rag_observation: { ...base.rag_observation, service_name: "shop", tenant_id: "t1" } };
}

/**
 * Newest first:
 * - run_sdk_1 (no lineage) starts 09:08:42, and run_sdk_2 (no lineage) 09:08:17.250 — the same minute, so only the
 *   exact start orders them (and the smaller id is the newer: the id does not decide);
 * - run_recorded starts when its lineage says, 09:07, though its cases ran at 09:09;
 * - run_remote (no lineage) starts with its earliest case, 09:05:30, written between later ones; its case cr_m2 is
 *   sent again the next day from another service, and counts once;
 * - run_empty recorded lineage at 09:01 and has no case.
 * cr_untagged carries no run id and makes no run.
 */
const CASE_RESULTS: CaseResult[] = [
  caseResultOf("cr_s1", "run_sdk_1", at("08:42.000")),
  caseResultOf("cr_s2b", "run_sdk_2", at("15:00.000")),
  caseResultOf("cr_s2a", "run_sdk_2", at("08:17.250")),
  caseResultOf("cr_r1", "run_recorded", at("09:00.000")),
  caseResultOf("cr_r2", "run_recorded", at("09:30.000")),
  caseResultOf("cr_m2", "run_remote", at("20:00.000")),
  caseResultOf("cr_m1", "run_remote", at("05:30.000")),
  caseResultOf("cr_m3", "run_remote", at("06:00.000")),
  caseResultOf("cr_untagged", "", at("30:00.000")),
];

export function runListingContract(name: string, factory: StoreFactory): void {
  describe(`TraceReader.listRuns: ${name}`, () => {
    let subject: StoreUnderTest;

    before(async () => {
      subject = await factory({ now: () => Date.parse("2026-07-08T10:00:00.000Z") });
      assert.ok((await subject.store.results.write(CASE_RESULTS.map((caseResult) => ({ caseResult, evaluationResults: [] })))).ok);
      // A replayed case of run_remote and of run_recorded: each still counts once.
      assert.ok((await subject.store.results.write([CASE_RESULTS[6]!, CASE_RESULTS[4]!].map((caseResult) => ({ caseResult: { ...caseResult, output: "replayed" }, evaluationResults: [] })))).ok);
      // A case of run_remote sent again after midnight UTC from a renamed service (a new request: its own trace id,
      // start and service, the same case_result_id): one case of the run still, as RunReader counts it.
      const resent = CASE_RESULTS[5]!;
      const nextDay = "2026-07-09T00:01:00.000Z";
      assert.ok((await subject.store.results.write([{ caseResult: { ...resent, trace_id: "trace_cr_m2_again", started_at: nextDay, completed_at: nextDay, rag_observation: { ...resent.rag_observation, service_name: "shop-v2" } }, evaluationResults: [] }])).ok);
      await subject.store.runs.record({ run_id: "run_recorded", started_at: at("07:00.000"), dataset_id: "refunds", dataset_version: "3", prompt_version: "prompt-7", notes: "nightly" });
      await subject.store.runs.record({ run_id: "run_empty", started_at: at("01:00.000") });
      await subject.settle();
    });
    after(() => subject.cleanup());

    test("every run the Case Results carry is listed with the recorded ones, newest first by its start", async () => {
      const runs = await subject.store.traces.listRuns(100);
      assert.deepEqual(
        runs.map((run) => [run.runId, run.startedAt, run.cases]),
        [
          ["run_sdk_1", at("08:42.000"), 1],
          ["run_sdk_2", at("08:17.250"), 2],
          ["run_recorded", at("07:00.000"), 2],
          ["run_remote", at("05:30.000"), 3],
          ["run_empty", at("01:00.000"), 0],
        ],
      );
      // The count RunReader gives each run (`gate`, the run's summary): one definition of a run's cases.
      for (const run of runs) assert.equal(run.cases, await subject.store.reader.countCaseResults(run.runId), run.runId);
    });

    test("a run without lineage has none: nothing is filled in; a recorded run's lineage comes back as recorded", async () => {
      const runs = new Map((await subject.store.traces.listRuns(100)).map((run) => [run.runId, run]));
      for (const runId of ["run_sdk_1", "run_sdk_2", "run_remote"]) assert.equal(runs.get(runId)?.lineage, null, runId);
      assert.deepEqual(runs.get("run_recorded")?.lineage, runLineage.parse({ run_id: "run_recorded", started_at: at("07:00.000"), dataset_id: "refunds", dataset_version: "3", prompt_version: "prompt-7", notes: "nightly" }));
      assert.deepEqual(runs.get("run_empty")?.lineage, runLineage.parse({ run_id: "run_empty", started_at: at("01:00.000") }));
    });

    test("the limit keeps the newest runs, also when it falls between runs of the same minute", async () => {
      assert.deepEqual((await subject.store.traces.listRuns(1)).map((run) => run.runId), ["run_sdk_1"]);
      assert.deepEqual((await subject.store.traces.listRuns(3)).map((run) => run.runId), ["run_sdk_1", "run_sdk_2", "run_recorded"]);
      assert.deepEqual((await subject.store.traces.listRuns(4)).map((run) => run.runId), ["run_sdk_1", "run_sdk_2", "run_recorded", "run_remote"]);
      assert.deepEqual(await subject.store.traces.listRuns(0), []);
    });
  });
}
