/**
 * No-answer accuracy counts an abstention only when it is read exactly (README "Heuristic metrics"): the trace flags
 * it, or the answer refuses in whole. A refusal phrase beside claims of the answer's own ("资料中没有相关信息，但年假是
 * 15天。") is a heuristic "abstained": the seed's hard gate and a gate file's rule count it as not shown, so the run's
 * no_answer_accuracy is 1 of 2 and fails `>= 0.90` (it read 2 of 2 and passed before), and both say how many were left
 * out and how to have them read exactly.
 *
 * Built CLI as a subprocess: `eval` with the gate file, then `gate` on the stored run.
 */
import assert from "node:assert/strict";
import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { gateWorkspace } from "./support/gate-workspace.js";
import { runRagscope, tasksFolder } from "./support/run-ragscope.js";

const ENVIRONMENT = { RAGSCOPE_CLICKHOUSE_URL: "" };
const NOT_COUNTED = "1 of the 2 unanswerable case\\(s\\) read as abstaining only by a heuristic \\(a refusal phrase beside claims of the answer's own\\) and are not counted as abstaining, so the value is a lower bound — record the abstention on the trace \\(span attribute ragscope\\.answer\\.abstained\\) so it is read exactly";
const RULE_FAILS = new RegExp(`FAIL\\s+boundary\\.no_answer_accuracy\\s+0\\.5000?\\s+>= 0\\.90\\s+\\(${NOT_COUNTED}`);
const HARD_GATE_FAILS = new RegExp(`FAIL\\s+no_answer_accuracy\\s+0\\.5000?\\s+>= 0\\.90\\s+\\(${NOT_COUNTED}`);

describe("a refusal phrase beside claims does not pass no_answer_accuracy", () => {
  let folder: string;
  let dataDir: string;
  let gates: string;
  let dataset: string;
  const task = path.join(tasksFolder, "retrieving-task.ts");

  before(async () => {
    ({ folder, dataDir, gates, dataset } = await gateWorkspace("gate-abstention", ["boundary:", '  no_answer_accuracy: ">= 0.90"'], {
      dataset_id: "abstention_gate",
      dataset_version: "1",
      cases: [
        { case_id: "refuses_in_whole", case_version: "1", input: "可以用比特币付款吗？", answerable: false, metadata: { answer: "资料中没有相关信息，无法回答。" } },
        { case_id: "refuses_beside_claim", case_version: "1", input: "年假有几天？", answerable: false, metadata: { answer: "资料中没有相关信息，但年假是15天。" } },
      ],
    }));
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test("eval and gate: no_answer_accuracy = 0.5 fails >= 0.90, saying the heuristic abstention was not counted; the stored measurement is unchanged", async () => {
    const output = path.join(folder, "results.json");
    const evaluated = await runRagscope(["eval", "--dataset", dataset, "--task", task, "--run-id", "abstention", "--gates", gates, "--data-dir", dataDir, "--output", output], ENVIRONMENT);
    assert.equal(evaluated.status, 1, evaluated.stdout + evaluated.stderr);
    assert.match(evaluated.stdout, /^Release gate: BLOCKED — 0 passed, 1 failed, 0 not measured, 0 errored/m, evaluated.stdout);
    assert.match(evaluated.stdout, RULE_FAILS, evaluated.stdout);
    assert.match(evaluated.stdout, HARD_GATE_FAILS, evaluated.stdout);

    const results = JSON.parse(await readFile(output, "utf8")) as {
      evaluation_results: { evaluator_id: string; metric_values: Record<string, number | null> }[];
      end_to_end: { hard_thresholds: { metric: string; value: number | null; status: string; reason: string | null }[] };
    };
    // The measurement is stored as measured: both answers read as abstaining (the boards show it, labelled heuristic).
    const abstained = results.evaluation_results.filter((result) => result.evaluator_id === "answer.abstention").map((result) => result.metric_values.abstained);
    assert.deepEqual(abstained, [1, 1]);
    const hard = results.end_to_end.hard_thresholds.find((item) => item.metric === "no_answer_accuracy");
    assert.equal(hard?.value, 0.5);
    assert.equal(hard?.status, "fail");
    assert.match(hard?.reason ?? "", new RegExp(`^${NOT_COUNTED}`));

    const gated = await runRagscope(["gate", "--run", "abstention", "--gates", gates, "--data-dir", dataDir], ENVIRONMENT);
    assert.equal(gated.status, 1, gated.stdout + gated.stderr);
    assert.match(gated.stdout, RULE_FAILS, gated.stdout);
  });
});
