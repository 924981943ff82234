/**
 * A run blocked by no failed rule says why. A first `eval` of one's own
 * pipeline (the README's toy one) passes every case and every rule it can
 * measure, and the rules nothing measured (no judge, no price) block it:
 * the output used to read "BLOCKED — 6 passed, 0 failed, 9 not measured"
 * and nothing more, which looks like a bug to a new user. Built CLI as a
 * subprocess, `eval` and then `gate` on the stored run, a gate file with one
 * rule the task meets (error_rate <= 0.5) and one it cannot be measured on
 * (recall_at_5: the task retrieves the case's own chunk, but the case has
 * no gold evidence); then, with --allow-missing, passed and no such note.
 */
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { gateWorkspace } from "./support/gate-workspace.js";
import { runRagscope, tasksFolder } from "./support/run-ragscope.js";

const ENVIRONMENT = { RAGSCOPE_CLICKHOUSE_URL: "" };
const WHY = /no rule failed; the 1 not measured block it: .*--allow-missing/;

describe("a gate blocked only by rules nothing measured says so, and how to go on", () => {
  let folder: string;
  let dataDir: string;
  let gates: string;
  let dataset: string;
  const task = path.join(tasksFolder, "retrieving-task.ts");

  before(async () => {
    ({ folder, dataDir, gates, dataset } = await gateWorkspace("gate-unmeasured", ["performance:", '  error_rate: "<= 0.5"', "retrieval:", '  recall_at_5: ">= 0.9"'], {
      dataset_id: "unmeasured_hint",
      dataset_version: "1",
      cases: [{ case_id: "case_one", case_version: "1", input: "When do points expire?", metadata: { answer: "After 12 months." } }],
    }));
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test("eval and gate: BLOCKED with 0 failed names the unmeasured rules as the reason and --allow-missing as a way on", async () => {
    const evaluated = await runRagscope(["eval", "--dataset", dataset, "--task", task, "--run-id", "unmeasured", "--gates", gates, "--data-dir", dataDir], ENVIRONMENT);
    assert.equal(evaluated.status, 1, evaluated.stdout + evaluated.stderr);
    const evalHeadline = evaluated.stdout.split("\n").find((line) => line.startsWith("Release gate: "));
    assert.match(evalHeadline ?? "", /^Release gate: BLOCKED — 1 passed, 0 failed, 1 not measured, 0 errored/, evaluated.stdout);
    assert.match(evalHeadline!, WHY);

    const gated = await runRagscope(["gate", "--run", "unmeasured", "--gates", gates, "--data-dir", dataDir], ENVIRONMENT);
    assert.equal(gated.status, 1, gated.stdout + gated.stderr);
    assert.match(gated.stdout.split("\n")[0]!, WHY, gated.stdout);

    const allowed = await runRagscope(["gate", "--run", "unmeasured", "--gates", gates, "--allow-missing", "--data-dir", dataDir], ENVIRONMENT);
    assert.equal(allowed.status, 0, allowed.stdout + allowed.stderr);
    assert.match(allowed.stdout, /PASSED — 1 passed, 0 failed, 1 not measured, 0 errored \(the 1 not measured were allowed by --allow-missing: not shown to meet their thresholds\)\n/);
    assert.doesNotMatch(allowed.stdout, /block it/);
  });
});
