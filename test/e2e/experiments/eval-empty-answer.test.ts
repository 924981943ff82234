/**
 * A task that returns an empty answer: its pipeline answered with nothing. `serve` judges such a trace an empty
 * answer (failed, root cause FORMAT_ERROR); `eval` called it a failure of the task's run (SYSTEM_ERROR) and counted
 * it in error_rate, so the same request read as an outage offline and as a bad answer online.
 *
 * Built CLI as a subprocess: `eval` with a gate file on error_rate.
 */
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { gateWorkspace } from "./support/gate-workspace.js";
import { runRagscope, tasksFolder } from "./support/run-ragscope.js";

describe("eval: an empty answer is a failed answer, not a failed request", () => {
  let folder: string;
  let dataDir: string;
  let gates: string;
  let dataset: string;

  before(async () => {
    ({ folder, dataDir, gates, dataset } = await gateWorkspace("eval-empty-answer", ["performance:", '  error_rate: "<= 0"'], {
      dataset_id: "empty_answer",
      dataset_version: "1",
      cases: [
        { case_id: "empty", case_version: "1", input: "年假有几天？", reference_answer: "年假是15天。", metadata: { answer: "" } },
        { case_id: "answered", case_version: "1", input: "病假有几天？", reference_answer: "病假是10天。", metadata: { answer: "病假是10天。" } },
      ],
    }));
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test("the empty answer fails with FORMAT_ERROR as under serve, and error_rate stays 0", async () => {
    const result = await runRagscope(["eval", "--dataset", dataset, "--task", path.join(tasksFolder, "scripted-rag-task.ts"), "--run-id", "empty", "--gates", gates, "--data-dir", dataDir], { RAGSCOPE_CLICKHOUSE_URL: "" });
    assert.match(result.stdout, /FAILED\s+empty@1[\s\S]*?root cause: FORMAT_ERROR: the answer is empty/, result.stdout);
    assert.doesNotMatch(result.stdout, /the task returned an empty answer/);
    assert.match(result.stdout, /PASS\s+performance\.error_rate\s+0(\.0+)?\s+<= 0/, result.stdout);
  });
});
