/**
 * Two tenants' `ragscope eval --tenant` runs under one run id, over one dataset, into one data folder (subprocesses,
 * as users run them). `--tenant` reads each tenant's data alone, so globex's run may take the id "release-7" acme's
 * run already has; but a Case Result's id derived from run, case and case version only, so both runs' requests got
 * the same ids, and globex's Evaluation Results replaced acme's (ReplacingMergeTree by id): acme's gate then read
 * recall_at_5 as not measured where its eval had passed it, and the operator's gate saw one tenant's run, globex's.
 *
 * Expected (README, "How it evaluates", Storage; contracts/ids.ts): a run's result id includes the tenant it is
 * stored under, so each tenant's gate reads its own run as its eval decided it, the operator's gate sees two tenants'
 * results under the id (exit 2, naming both), and a run without a tenant keeps the id earlier releases gave it.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { caseResultIdFor } from "../../../contracts/ids.js";
import { openClickHouseStore } from "../../../store/clickhouse/clickhouse-store.js";
import { queryRows } from "../../support/temporary-store.js";
import { projectRoot, runRagscope, tasksFolder, type Finished } from "./support/run-ragscope.js";

const dataset = path.join(projectRoot, "test/e2e/experiments/data/split-dataset.yaml");
const RUN_ID = "release-7";
const OPERATOR_RUN_ID = "operator-release-7";
const ENVIRONMENT = { RAGSCOPE_CLICKHOUSE_URL: "" };
const RECALL_PASSED = /PASS\s+retrieval\.recall_at_5\s+1\s+>= 0\.9/;

describe("two tenants' eval runs under one run id", () => {
  let folder: string;
  let dataDir: string;
  let gates: string;
  let acmeEval: Finished;
  let globexEval: Finished;

  const evaluate = (task: string, ...args: string[]) =>
    runRagscope(["eval", "--dataset", dataset, "--task", path.join(tasksFolder, task), "--split", "regression", "--gates", gates, "--data-dir", dataDir, ...args], ENVIRONMENT);
  const gate = (...args: string[]) => runRagscope(["gate", "--run", RUN_ID, "--gates", gates, "--data-dir", dataDir, ...args], ENVIRONMENT);

  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-eval-tenant-same-run-id-"));
    dataDir = path.join(folder, "store");
    gates = path.join(folder, "gates.yaml");
    await writeFile(gates, 'retrieval:\n  recall_at_5: ">= 0.9"\n');
    // acme's task retrieves the gold chunk (recall 1); globex's turns every question down without retrieving.
    acmeEval = await evaluate("retrieving-task.ts", "--tenant", "acme", "--run-id", RUN_ID);
    globexEval = await evaluate("refusing-task.ts", "--tenant", "globex", "--run-id", RUN_ID);
  });

  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test("each tenant's gate reads its own run as its eval decided it; the operator's sees both tenants' results", async () => {
    assert.equal(acmeEval.status, 0, `${acmeEval.stdout}\n${acmeEval.stderr}`);
    assert.match(acmeEval.stdout, RECALL_PASSED);
    // Globex's eval ran: acme's run under the id is not globex's to see.
    assert.notEqual(globexEval.status, 2, `${globexEval.stdout}\n${globexEval.stderr}`);
    assert.match(globexEval.stdout, /Stored in .*tenant "globex" only/);

    const acme = await gate("--tenant", "acme");
    assert.equal(acme.status, 0, `acme's run passed its eval, and globex's later run must not change that:\n${acme.stdout}\n${acme.stderr}`);
    assert.match(acme.stdout, /Release gate for run release-7 \(2 cases\): PASSED/);
    assert.match(acme.stdout, RECALL_PASSED);

    const globex = await gate("--tenant", "globex");
    assert.match(globex.stdout, /Release gate for run release-7 \(2 cases\)/);
    assert.match(globex.stdout, /N\/A\s+retrieval\.recall_at_5\s+—\s+>= 0\.9\s+\(no case has a value for recall_at_5\)/, "globex's task retrieved nothing");

    const operator = await gate();
    assert.equal(operator.status, 2, `${operator.stdout}\n${operator.stderr}`);
    assert.match(operator.stderr, /run "release-7" holds the results of 2 tenants \(tenant "acme" 2 results, tenant "globex" 2 results\)/);
  });

  test("each tenant's stored cases keep their own answers and evaluations", async () => {
    const store = await openClickHouseStore({ url: null, username: "default", password: "", database: "ragscope", dataPath: dataDir });
    try {
      const read = async (tenant: string) => {
        const cases = await store.scoped([tenant]).reader.loadRunCases(RUN_ID);
        return cases.map((item) => ({
          caseId: item.caseResult.case_id,
          output: item.caseResult.output,
          evaluated: item.evaluationResults.length > 0,
          // Of the tenant's own request: acme's task retrieved the gold chunk of the shipping case, globex's nothing.
          recall: item.evaluationResults.find((result) => result.metric_values.recall_at_5 !== undefined)?.metric_values.recall_at_5 ?? null,
        }));
      };
      assert.deepEqual(await read("acme"), [
        { caseId: "regression_crypto", output: "The documents do not say.", evaluated: true, recall: null },
        { caseId: "regression_shipping_fee", output: "Standard shipping costs five dollars.", evaluated: true, recall: 1 },
      ]);
      const refusal = "抱歉，资料中没有相关信息，无法回答这个问题。";
      assert.deepEqual(await read("globex"), [
        { caseId: "regression_crypto", output: refusal, evaluated: true, recall: null },
        { caseId: "regression_shipping_fee", output: refusal, evaluated: true, recall: null },
      ]);
    } finally {
      await store.close();
    }
  });

  test("a run without a tenant keeps the id earlier releases gave its results; a tenant's run's id includes the tenant", async () => {
    const operatorEval = await evaluate("retrieving-task.ts", "--run-id", OPERATOR_RUN_ID);
    assert.equal(operatorEval.status, 0, `${operatorEval.stdout}\n${operatorEval.stderr}`);
    const store = await openClickHouseStore({ url: null, username: "default", password: "", database: "ragscope", dataPath: dataDir });
    try {
      const rows = await queryRows<{ case_result_id: string; run_id: string; case_id: string; case_version: string; tenant_id: string }>(
        store.connection,
        "SELECT case_result_id, run_id, case_id, case_version, tenant_id FROM {{database}}.case_results FINAL ORDER BY run_id, tenant_id, case_id",
      );
      assert.deepEqual(
        rows.map((row) => [row.run_id, row.tenant_id, row.case_id]),
        [
          [OPERATOR_RUN_ID, "", "regression_crypto"],
          [OPERATOR_RUN_ID, "", "regression_shipping_fee"],
          [RUN_ID, "acme", "regression_crypto"],
          [RUN_ID, "acme", "regression_shipping_fee"],
          [RUN_ID, "globex", "regression_crypto"],
          [RUN_ID, "globex", "regression_shipping_fee"],
        ],
      );
      for (const row of rows) {
        const untenanted = caseResultIdFor({ traceId: "", runId: row.run_id, caseId: row.case_id, caseVersion: row.case_version });
        const expected = row.tenant_id === "" ? untenanted : caseResultIdFor({ traceId: "", runId: row.run_id, caseId: row.case_id, caseVersion: row.case_version, claimedTenant: row.tenant_id });
        assert.equal(row.case_result_id, expected, JSON.stringify(row));
        if (row.tenant_id !== "") assert.notEqual(row.case_result_id, untenanted, JSON.stringify(row));
      }
    } finally {
      await store.close();
    }
  });
});
