/**
 * Small values keep two significant digits (report/format-value.ts), a zero among them too: three requests of
 * 0.0001023 USD each cost 0.0001023 per successful task, which `ragscope eval` printed as "cost per successful task
 * 0.0001 (total cost 0.00031 / 3 successful tasks)" — one digit, 2 % off, beside a total with two — and so the run's
 * cost row and the release gate's average cost, in eval and in `ragscope gate`. They read 0.00010 now.
 *
 * Built CLI as a subprocess over a priced dataset (tasks/priced-task.ts records the cost each request makes).
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { pricedDataset } from "./support/priced-dataset.js";
import { runRagscope, tasksFolder, type Finished } from "./support/run-ragscope.js";

describe("ragscope eval and gate: a cost of 0.0001023 a request reads 0.00010, two significant digits", () => {
  let folder: string;
  let dataDir: string;
  let evaluated: Finished;
  let costPerSuccessfulTask: number;

  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-cost-digits-"));
    dataDir = path.join(folder, "data");
    const dataset = path.join(folder, "priced.yaml");
    await writeFile(dataset, pricedDataset("priced", 3));
    const output = path.join(folder, "results.json");
    evaluated = await runRagscope(["eval", "--dataset", dataset, "--task", path.join(tasksFolder, "priced-task.ts"), "--run-id", "priced", "--data-dir", dataDir, "--output", output], { RAGSCOPE_CLICKHOUSE_URL: "", TEST_COST_PER_CASE: "0.0001023" });
    assert.notEqual(evaluated.status, 2, evaluated.stdout + evaluated.stderr);
    const results = JSON.parse(await readFile(output, "utf8")) as { end_to_end: { cost_per_successful_task: number } };
    costPerSuccessfulTask = results.end_to_end.cost_per_successful_task;
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test("eval prints the cost per successful task, the cost row and the gate's average cost as 0.00010", () => {
    // The value printed is the JSON's, three requests that all succeeded.
    assert.ok(Math.abs(costPerSuccessfulTask - 0.0001023) < 1e-12, String(costPerSuccessfulTask));
    assert.match(evaluated.stdout, /^ {2}cost per successful task +0\.00010 {2}\(total cost 0\.00031 \/ 3 successful tasks\)$/m, evaluated.stdout);
    assert.match(evaluated.stdout, /^ {4}cost +0\.00010 {2}n=3$/m);
    assert.match(evaluated.stdout, /^ {2}PASS {2}performance\.average_cost +0\.00010 {2}<= 0\.05$/m);
  });

  test("gate over the stored run prints the average cost as 0.00010", async () => {
    const gate = await runRagscope(["gate", "--run", "priced", "--data-dir", dataDir], { RAGSCOPE_CLICKHOUSE_URL: "" });
    assert.notEqual(gate.status, 2, gate.stdout + gate.stderr);
    assert.match(gate.stdout, /^ {2}PASS {2}performance\.average_cost +0\.00010 {2}<= 0\.05 /m, gate.stdout);
  });
});
