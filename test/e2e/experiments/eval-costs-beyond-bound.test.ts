/**
 * A cost or time beyond 2^53 − 1 is no measurement (collector/04-normalize/out-of-range-values.ts): the collector
 * reads it as not available, with a note, so a run whose cases state costs of 1e308 has no cost to average, and the
 * gate does not take its cost rule as met. Read as sent, such values added up beyond the largest number (eval had to
 * divide each value first; the dashboards and `ragscope report`, which average in the engine, read "no data"). As
 * users meet it: `ragscope eval` as a subprocess, the cases answered through the SDK.
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

describe("a run whose cases state costs beyond 2^53 − 1", () => {
  let folder: string;
  let dataDir: string;
  let dataset: string;
  const task = path.join(tasksFolder, "priced-task.ts");

  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-costs-beyond-bound-"));
    dataDir = path.join(folder, "store");
    dataset = path.join(folder, "cases.yaml");
    await writeFile(dataset, DATASET);
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test("ragscope eval: the costs and times to first token are not available, and the gate's cost rule is not measured, so it blocks", async () => {
    const ran = await runRagscope(["eval", "--dataset", dataset, "--task", task, "--run-id", "costly", "--data-dir", dataDir], { TEST_COST_PER_CASE: "1e308", TEST_TIME_TO_FIRST_TOKEN_MS: "1e308" });
    assert.doesNotMatch(ran.stderr, /unexpected error/, ran.stderr);
    assert.equal(ran.status, 1, `the gate blocks (exit 1), not a crash (exit 2):\n${ran.stderr}`);
    assert.match(lineOf(ran.stdout, /^cost\s/), /^\s+cost\s+n\/a\s+n=0$/);
    assert.match(lineOf(ran.stdout, /^time_to_first_token_ms\s/), /^\s+time_to_first_token_ms\s+n\/a\s+n=0$/);
    assert.match(lineOf(ran.stdout, /^cost per successful task/), /n\/a/);
    assert.match(lineOf(ran.stdout, /^N\/A\s+performance\.average_cost/), /<= 0\.05/);
    assert.match(ran.stdout, /^Decision: BLOCKED$/m);
  });
});
