/**
 * `ragscope demo` over a data folder where an earlier release stored its run: those releases keyed a run's results
 * without the tenant the request claimed (the demo's example service claims `acme_shop`), this one keys them with it
 * (contracts/ids.ts). Run again, the demo would have stored each case beside its earlier result and counted the run
 * twice (52 cases for the dataset's 26); it refuses instead, naming the run and the ways on, and writes nothing. The
 * earlier release's result is written as that release stored it: its id without the tenant, its tenant in the row.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { caseResultIdFor } from "../../contracts/ids.js";
import { defaultDemoDataset } from "../../collector/wiring/cli/demo-command.js";
import { loadDatasetFile } from "../../collector/wiring/dataset/load-dataset.js";
import { openClickHouse } from "../../store/clickhouse/clickhouse-connection.js";
import { runRagscope } from "../support/run-ragscope.js";
import { plannedCaseResult, writeToFolder } from "../support/stored-requests.js";
import { queryRows } from "../support/temporary-store.js";

const RUN_ID = "demo-stored-by-an-earlier-release";

describe("the demo over a run an earlier release stored", () => {
  let dataDir: string;
  let caseKey: string;
  let caseCount: number;

  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), "ragscope-demo-earlier-"));
    const loaded = await loadDatasetFile(defaultDemoDataset);
    assert.ok(loaded.ok);
    const first = loaded.value.cases[0]!;
    caseCount = loaded.value.cases.length;
    caseKey = `${first.case_id}@${first.case_version}`;
    const earlierId = caseResultIdFor({ traceId: "", runId: RUN_ID, caseId: first.case_id, caseVersion: first.case_version });
    const stored = plannedCaseResult({ caseResultId: earlierId, traceId: "d0000000000000000000000000000001", runId: RUN_ID, caseId: first.case_id, tenant: "acme_shop", startedAtMs: Date.UTC(2026, 10, 30, 9) });
    await writeToFolder(dataDir, [{ caseResult: { ...stored, case_version: first.case_version }, evaluationResults: [] }]);
  });

  after(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  test("is refused with the run named and nothing written; another run id runs", async () => {
    const refused = runRagscope(["demo", "--data-dir", dataDir, "--run-id", RUN_ID], dataDir, {}, 120_000);
    assert.notEqual(refused.status, 0, refused.stdout);
    assert.match(refused.stderr, new RegExp(`holds run ${RUN_ID} as an earlier release stored it \\(1 case: ${caseKey.replace(/[.]/g, "\\.")}\\).*count it twice\\. Give --run-id a new run id, or --data-dir a new folder`));
    const connection = await openClickHouse({ url: null, username: "default", password: "", database: "ragscope", dataPath: dataDir });
    try {
      const rows = await queryRows<{ results: string }>(connection, "SELECT count() AS results FROM {{database}}.case_results FINAL WHERE run_id = {run:String}", { run: RUN_ID });
      assert.equal(Number(rows[0]!.results), 1, "the refused demo stored nothing beside the earlier result");
    } finally {
      await connection.close();
    }
    const another = runRagscope(["demo", "--data-dir", dataDir, "--run-id", `${RUN_ID}-2`], dataDir, {}, 120_000);
    assert.equal(another.status, 0, another.stderr);
    assert.match(another.stdout, new RegExp(`^Run ${RUN_ID}-2: ${caseCount} cases`, "m"));
  });
});
