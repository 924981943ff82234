/**
 * `ragscope eval --tenant` as a user runs it (subprocesses on one data
 * folder): the run's requests are stored under that tenant, its own cases and
 * the baseline are read back only from that tenant's data — another tenant's
 * run reads as not stored, as for `gate --tenant` and `report --tenant` — and
 * what cannot work is refused before anything runs, with how to fix it.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { openClickHouseStore } from "../../../store/clickhouse/clickhouse-store.js";
import { queryRows } from "../../support/temporary-store.js";
import { projectRoot, runRagscope, tasksFolder } from "./support/run-ragscope.js";

const dataset = path.join(projectRoot, "test/e2e/experiments/data/split-dataset.yaml");
const task = path.join(tasksFolder, "retrieving-task.ts");

describe("ragscope eval --tenant", () => {
  let folder: string;
  let dataDir: string;
  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-eval-tenant-"));
    dataDir = path.join(folder, "store");
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test("the run is stored under the tenant; another tenant cannot use it as a baseline, the same tenant can", async () => {
    const first = await runRagscope(["eval", "--dataset", dataset, "--task", task, "--split", "regression", "--tenant", "acme", "--run-id", "acme-run", "--data-dir", dataDir]);
    assert.notEqual(first.status, 2, `${first.stdout}\n${first.stderr}`);
    assert.match(first.stdout, /tenant "acme" only/);

    const other = await runRagscope(["eval", "--dataset", dataset, "--task", task, "--split", "regression", "--tenant", "globex", "--run-id", "globex-run", "--baseline", "acme-run", "--data-dir", dataDir]);
    assert.equal(other.status, 2, `${other.stdout}\n${other.stderr}`);
    assert.match(`${other.stdout}\n${other.stderr}`, /baseline run "acme-run" has no stored results in .*tenant "globex" only/);
    assert.doesNotMatch(other.stdout, /Compared with baseline/);
    // Refused before any case ran: nothing of globex-run is stored (below).
    assert.equal(other.stdout, "");

    const same = await runRagscope(["eval", "--dataset", dataset, "--task", task, "--split", "regression", "--tenant", "acme", "--run-id", "acme-run-2", "--baseline", "acme-run", "--data-dir", dataDir]);
    assert.notEqual(same.status, 2, `${same.stdout}\n${same.stderr}`);
    assert.match(same.stdout, /Compared with baseline acme-run \(2 cases in both\)/);

    const store = await openClickHouseStore({ url: null, username: "default", password: "", database: "ragscope", dataPath: dataDir });
    try {
      const rows = await queryRows<{ run_id: string; tenant_id: string; cases: string }>(
        store.connection,
        "SELECT run_id, tenant_id, toString(count()) AS cases FROM {{database}}.case_results FINAL GROUP BY run_id, tenant_id ORDER BY run_id",
      );
      assert.deepEqual(rows, [
        { run_id: "acme-run", tenant_id: "acme", cases: "2" },
        { run_id: "acme-run-2", tenant_id: "acme", cases: "2" },
      ]);
    } finally {
      await store.close();
    }
  });

  test("a case naming another tenant, --tenant with --endpoint, and an invalid tenant id are refused before anything runs", async () => {
    const mixed = path.join(folder, "mixed.json");
    await writeFile(
      mixed,
      JSON.stringify({
        cases: ["acme", "globex"].map((tenant) => ({
          case_id: tenant === "acme" ? "own" : "foreign",
          case_version: "v1",
          dataset_id: "mixed",
          dataset_version: "1",
          input: "what is the refund window?",
          context: { tenant_id: tenant },
        })),
      }),
    );
    const refused = await runRagscope(["eval", "--dataset", mixed, "--task", task, "--tenant", "acme", "--data-dir", path.join(folder, "unused")]);
    assert.equal(refused.status, 2, refused.stderr);
    assert.match(refused.stderr, /--tenant acme: 1 case\(s\) name another tenant in context\.tenant_id \(foreign@\S+ → globex\)/);

    const remote = await runRagscope(["eval", "--dataset", dataset, "--task", task, "--tenant", "acme", "--endpoint", "http://127.0.0.1:9", "--read-api", "http://127.0.0.1:9"]);
    assert.equal(remote.status, 2, remote.stderr);
    assert.match(remote.stderr, /--tenant applies to the embedded collector only/);

    const invalid = await runRagscope(["eval", "--dataset", dataset, "--task", task, "--tenant", "acme' OR 1=1 --", "--data-dir", path.join(folder, "unused")]);
    assert.equal(invalid.status, 2, invalid.stderr);
    assert.match(invalid.stderr, /--tenant "acme' OR 1=1 --":/);
  });
});
