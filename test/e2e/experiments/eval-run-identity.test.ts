/**
 * A run id names one run (README "Evaluate your own pipeline"), as a user
 * meets it: `ragscope eval` and `gate` as subprocesses on one data folder,
 * with a task module this test writes, which logs every case it starts — so
 * "refused before any case runs" is seen in the log, not assumed.
 *
 * - Without --run-id every eval gets a fresh id,
 *   eval-<dataset_id>-<dataset_version>-<UTC start, YYYYMMDDTHHMMSSZ>[-N],
 *   printed on stderr before the first case and used in every output.
 * - An explicit --run-id that already holds stored results is refused (exit
 *   2, one line naming the run, its stored cases and when it was recorded),
 *   so a subset run under it cannot mix with the first run: `gate` still
 *   counts the first run's 3 cases.
 * - --baseline equal to the run's own id, and a --baseline with no stored
 *   results, are refused the same way, before any case runs.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { openClickHouse } from "../../../store/clickhouse/clickhouse-connection.js";
import { queryRows } from "../../support/temporary-store.js";
import { runRagscope } from "./support/run-ragscope.js";

/** Logs each case it starts to TASK_LOG and answers at once. */
const TASK_MODULE = `import { appendFileSync } from "node:fs";
export default async function task(evalCase) {
  appendFileSync(process.env.TASK_LOG, "started " + evalCase.case_id + "\\n");
  return "The answer to " + evalCase.case_id + ".";
}
`;

/** UTC start to the second, and an optional -N when two runs of the dataset started in the same second. */
const FRESH_ID = /^eval-qa_toy-v1-\d{8}T\d{6}Z(-\d+)?$/;

describe("ragscope eval: a run id names one run", () => {
  let folder: string;
  let dataDir: string;
  let dataset: string;
  let taskFile: string;
  let log: string;
  const startedCases = () => (existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean).length : 0);
  const evaluate = (args: string[]) => runRagscope(["eval", "--dataset", dataset, "--task", taskFile, "--data-dir", dataDir, ...args], { TASK_LOG: log });

  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-eval-run-identity-"));
    dataDir = path.join(folder, "store");
    dataset = path.join(folder, "qa_toy.json");
    log = path.join(folder, "task.log");
    await writeFile(
      dataset,
      JSON.stringify({
        dataset_id: "qa_toy",
        dataset_version: "v1",
        cases: [
          { case_id: "dev_one", case_version: "1", input: "first question", metadata: { split: "dev" } },
          { case_id: "dev_two", case_version: "1", input: "second question", metadata: { split: "dev" } },
          { case_id: "blind_one", case_version: "1", input: "third question", metadata: { split: "blind" } },
        ],
      }),
    );
    taskFile = path.join(folder, "task.mjs");
    await writeFile(taskFile, TASK_MODULE);
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test("an explicit --run-id that holds results is refused before any case runs; the first run stays whole for the gate", async () => {
    const first = await evaluate(["--run-id", "same1"]);
    assert.notEqual(first.status, 2, first.stdout + first.stderr);
    assert.match(first.stdout, /^Run same1: 3 cases — /m);
    assert.equal(startedCases(), 3);

    const again = await evaluate(["--run-id", "same1", "--split", "blind"]);
    assert.equal(again.status, 2, again.stdout + again.stderr);
    assert.equal(again.stdout, "");
    const lines = again.stderr.trim().split("\n");
    assert.equal(lines.length, 1, again.stderr);
    assert.match(lines[0]!, /^ragscope eval: --run-id same1: run "same1" already holds 3 stored cases \(recorded \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\) in .*; a run id names one run, .* choose another --run-id, or leave it out for a fresh one$/);
    assert.equal(startedCases(), 3, "no case ran for the refused run");

    const gate = await runRagscope(["gate", "--run", "same1", "--data-dir", dataDir]);
    assert.match(gate.stdout, /^Release gate for run same1 \(3 cases\)/, gate.stdout + gate.stderr);
  });

  test("without --run-id every eval gets a fresh id, printed before the first case and used in its output", async () => {
    const ids: string[] = [];
    for (const name of ["fresh-1.json", "fresh-2.json"]) {
      const output = path.join(folder, name);
      const result = await evaluate(["--output", output]);
      assert.notEqual(result.status, 2, result.stdout + result.stderr);
      const printed = /^ragscope eval: run (\S+), 3 cases$/m.exec(result.stderr)?.[1];
      assert.ok(printed !== undefined, result.stderr);
      assert.match(printed, FRESH_ID);
      // Printed before any case ran: the first progress line comes after it.
      assert.ok(result.stderr.indexOf(`run ${printed}`) < result.stderr.indexOf("cases 1/3"), result.stderr);
      const results = JSON.parse(await readFile(output, "utf8"));
      assert.equal(results.run_id, printed);
      assert.deepEqual(results.case_results.map((item: { run_id: string }) => item.run_id), [printed, printed, printed]);
      assert.deepEqual(results.run_lineage.completion, { status: "complete", planned_cases: 3, stored_cases: 3 });
      ids.push(printed);
    }
    assert.notEqual(ids[0], ids[1]);
  });

  test("--baseline that is the run's own id, or that holds nothing, is refused before any case runs (exit 2, one line)", async () => {
    const before = startedCases();
    const itself = await evaluate(["--run-id", "cmp1", "--baseline", "cmp1"]);
    assert.equal(itself.status, 2, itself.stdout + itself.stderr);
    assert.equal(itself.stdout, "");
    assert.deepEqual(itself.stderr.trim().split("\n"), ["ragscope eval: --baseline cmp1: that is this run's own id (--run-id); compare with an earlier run, which must have an id of its own"]);

    const nowhere = await evaluate(["--baseline", "nope"]);
    assert.equal(nowhere.status, 2, nowhere.stdout + nowhere.stderr);
    assert.equal(nowhere.stdout, "");
    const lines = nowhere.stderr.trim().split("\n");
    assert.equal(lines.length, 1, nowhere.stderr);
    assert.match(lines[0]!, /^ragscope eval: --baseline nope: baseline run "nope" has no stored results in .*; give the id of a run stored there/);
    assert.equal(startedCases(), before, "no case ran for a refused run");

    // A baseline that is stored is compared with.
    const compared = await evaluate(["--run-id", "cmp2", "--baseline", "same1"]);
    assert.notEqual(compared.status, 2, compared.stdout + compared.stderr);
    assert.match(compared.stdout, /Compared with baseline same1 \(3 cases in both\)/);
  });

  test("the store holds each run once: same1's 3 cases, the refused runs nothing", async () => {
    // Read last: the engine binds one data folder per process, and the subprocesses above needed it.
    const connection = await openClickHouse({ url: null, username: "default", password: "", database: "ragscope", dataPath: dataDir });
    try {
      const runs = await queryRows<{ run_id: string; cases: string }>(connection, "SELECT run_id, toString(count()) AS cases FROM {{database}}.case_results FINAL GROUP BY run_id ORDER BY run_id");
      const counted = new Map(runs.map((row) => [row.run_id, Number(row.cases)]));
      assert.equal(counted.get("same1"), 3);
      assert.equal(counted.get("cmp2"), 3);
      assert.equal(counted.has("cmp1"), false);
      assert.equal([...counted.keys()].filter((runId) => FRESH_ID.test(runId)).length, 2);
      const [recorded] = await queryRows<{ total: string }>(connection, "SELECT toString(count()) AS total FROM {{database}}.runs FINAL WHERE run_id IN ('cmp1', 'nope')");
      assert.equal(Number(recorded!.total), 0, "a refused run records no lineage");
    } finally {
      await connection.close();
    }
  });
});
