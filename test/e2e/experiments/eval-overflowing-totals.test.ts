/**
 * A trace may carry any finite cost or token count, and the collector reads
 * each as sent (1e308 included). Summed over a run such values go beyond the
 * largest number: `ragscope eval` stopped with "unexpected error: metric
 * value must be finite, got Infinity" (exit 2) after running every case,
 * and printed no gate. Now the run's total says it is beyond the largest
 * number, its means, cost per successful task and comparison with a
 * baseline are numbers, and the gate decides on them. As users meet it:
 * `ragscope eval` and `ragscope gate` as subprocesses, the cases answered
 * through the SDK.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { pricedDataset } from "./support/priced-dataset.js";
import { runRagscope, tasksFolder } from "./support/run-ragscope.js";

const CASES = 12;

const DATASET = pricedDataset("overflowing", CASES);

/** The line of a printed table that starts with `label` (after its indentation). */
function lineOf(printed: string, label: RegExp): string {
  const line = printed.split("\n").find((candidate) => label.test(candidate.trim()));
  assert.ok(line !== undefined, `no line ${label} in:\n${printed}`);
  return line;
}

describe("a run whose costs add up beyond the largest number", () => {
  let folder: string;
  let dataDir: string;
  let dataset: string;
  const task = path.join(tasksFolder, "priced-task.ts");

  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-overflowing-totals-"));
    dataDir = path.join(folder, "store");
    dataset = path.join(folder, "cases.yaml");
    await writeFile(dataset, DATASET);
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test("ragscope eval: the total is not available, the mean and the cost per task are 1e+308, and the gate blocks on the cost", async () => {
    // Each generation also records a time to first token of 1e308 ms: their mean is a number too.
    const ran = await runRagscope(["eval", "--dataset", dataset, "--task", task, "--run-id", "costly", "--data-dir", dataDir], { TEST_COST_PER_CASE: "1e308", TEST_TIME_TO_FIRST_TOKEN_MS: "1e308" });
    assert.doesNotMatch(ran.stderr, /unexpected error/, ran.stderr);
    assert.equal(ran.status, 1, `the gate blocks (exit 1), not a crash (exit 2):\n${ran.stderr}`);
    assert.equal(
      lineOf(ran.stdout, /^cost per successful task/).trim(),
      "cost per successful task         1e+308  (total cost / 12 successful tasks, each cost divided first: the 12 requests' costs add up beyond the largest number)",
    );
    assert.match(lineOf(ran.stdout, /^FAIL\s+performance\.average_cost/), /1e\+308\s+<= 0\.05/);
    assert.match(lineOf(ran.stdout, /^time_to_first_token_ms\s/), /^\s+time_to_first_token_ms\s+1e\+308\s+n=12$/);
    assert.match(ran.stdout, /^Decision: BLOCKED$/m);
  });

  test("a cheaper run against it: the cost's mean difference is -1e+308, with its interval, and the gate reads both runs", async () => {
    const ran = await runRagscope(["eval", "--dataset", dataset, "--task", task, "--run-id", "cheap", "--baseline", "costly", "--data-dir", dataDir], { TEST_COST_PER_CASE: "1" });
    assert.doesNotMatch(ran.stderr, /unexpected error/, ran.stderr);
    const cost = lineOf(ran.stdout, /^cost\s+-/);
    // Every case is 1 − 1e308 = -1e308 cheaper, so every resample's mean and both ends of the interval are -1e308.
    assert.match(cost, /^\s+cost\s+-1e\+308\s+\[-1e\+308, -1e\+308\]/, cost);
    const gate = await runRagscope(["gate", "--run", "costly", "--baseline", "cheap", "--data-dir", dataDir]);
    assert.doesNotMatch(gate.stderr, /unexpected error/, gate.stderr);
    assert.equal(gate.status, 1, gate.stderr);
    assert.match(lineOf(gate.stdout, /^FAIL\s+performance\.average_cost/), /1e\+308\s+<= 0\.05/);
  });
});
