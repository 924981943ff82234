/**
 * `ragscope report`'s Runs board says why its comparison is empty when its two runs share no case. It pairs cases by
 * case_id and case_version (as `eval --baseline` and `gate` do) and compares the two newest runs by default — after
 * `ragscope demo` and a first `ragscope eval` of one's own dataset, two runs with no case in common — and every
 * comparison panel read "No data in the time range", which sent a new user looking at the range. Built CLI as a
 * subprocess, one data folder, three evals of a task that answers each case (test/e2e/experiments/tasks/retrieving-task.ts):
 * run "first" over case_a, run "other" over case_b, run "again" over case_a. Expected: the default report (the two
 * newest, "again" and "other": no case in both) carries the notice naming both runs; `--baseline first --candidate
 * again` (case_a in both) does not.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { runRagscope, tasksFolder } from "./experiments/support/run-ragscope.js";

const ENVIRONMENT = { RAGSCOPE_CLICKHOUSE_URL: "" };
const NOTICE = /<p class="note" data-notice="unpaired-runs">Nothing to compare: runs (\S+) \(baseline\) and (\S+) \(candidate\) share no case/;

describe("ragscope report: a Runs board over two runs with no case in common says so", () => {
  let folder: string;
  let dataDir: string;

  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-report-unpaired-"));
    dataDir = path.join(folder, "store");
    const task = path.join(tasksFolder, "retrieving-task.ts");
    const dataset = async (name: string, caseId: string) => {
      const file = path.join(folder, `${name}.json`);
      await writeFile(file, JSON.stringify({ dataset_id: `unpaired_${name}`, dataset_version: "1", cases: [{ case_id: caseId, case_version: "1", input: `question ${caseId}`, metadata: { answer: "An answer." } }] }));
      return file;
    };
    for (const [runId, caseId] of [["first", "case_a"], ["other", "case_b"], ["again", "case_a"]] as const) {
      const evaluated = await runRagscope(["eval", "--dataset", await dataset(runId, caseId), "--task", task, "--run-id", runId, "--allow-missing", "--data-dir", dataDir], ENVIRONMENT);
      assert.notEqual(evaluated.status, 2, evaluated.stdout + evaluated.stderr);
    }
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test("the default pair, the two newest runs, shares no case: the board says so and names them", async () => {
    const out = path.join(folder, "default.html");
    const reported = await runRagscope(["report", "--data-dir", dataDir, "--out", out], ENVIRONMENT);
    assert.equal(reported.status, 0, reported.stdout + reported.stderr);
    const notice = NOTICE.exec(await readFile(out, "utf8"));
    assert.ok(notice, "the Runs board carries the notice");
    assert.deepEqual(new Set([notice[1], notice[2]]), new Set(["again", "other"]));
    assert.match(reported.stdout, /^ {2}nothing to compare: runs \S+ \(baseline\) and \S+ \(candidate\) share no case/m, "and so does the terminal summary");
  });

  test("two runs of one case: no such notice", async () => {
    const out = path.join(folder, "paired.html");
    const reported = await runRagscope(["report", "--data-dir", dataDir, "--out", out, "--baseline", "first", "--candidate", "again"], ENVIRONMENT);
    assert.equal(reported.status, 0, reported.stdout + reported.stderr);
    assert.match(reported.stdout, /Paired cases 1 /);
    assert.doesNotMatch(await readFile(out, "utf8"), /data-notice="unpaired-runs"/);
    assert.doesNotMatch(reported.stdout, /nothing to compare/);
  });
});
