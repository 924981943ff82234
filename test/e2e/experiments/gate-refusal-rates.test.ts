/**
 * A gate file may name correct_refusal_rate (正确拒答率) and false_refusal_rate (错误拒答率), seed 004 §六 边界能力;
 * the release gate measures both (they read "not measured — no case has a value for correct_refusal_rate" before).
 * A refusal counts in a rate's favour only when read exactly (the trace's flag, or an answer that refuses in whole);
 * a heuristic reading goes where it can only understate quality, and the rule's line says how many and how to have
 * them read exactly.
 *
 * Built CLI as a subprocess: `eval` with the gate file, then `gate` on the stored run.
 */
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { gateWorkspace } from "./support/gate-workspace.js";
import { runRagscope, tasksFolder } from "./support/run-ragscope.js";

const ENVIRONMENT = { RAGSCOPE_CLICKHOUSE_URL: "" };
const READ_EXACTLY = "record the abstention on the trace \\(span attribute ragscope\\.answer\\.abstained\\) so it is read exactly";
const HEURISTIC_ANSWERABLE = "answerable case\\(s\\) read only by a heuristic \\(1 with a refusal phrase beside claims of the answer's own; 1 with no refusal phrase found, which a refusal in other words would escape\\) are counted as false refusals";
// Correct: u1; refusals: u1, a2 and the heuristic a3, a4 = 1/4 (u2's heuristic refusal is not credited).
const CORRECT_PASSES = new RegExp(`PASS\\s+boundary\\.correct_refusal_rate\\s+0\\.250?0?\\s+>= 0\\.20\\s+\\(1 refusal\\(s\\) of unanswerable cases read only by a heuristic \\(a refusal phrase beside claims of the answer's own\\) are not counted as correct refusals; 2 ${HEURISTIC_ANSWERABLE}, so the value is a lower bound — ${READ_EXACTLY}`);
// Answerable a1..a4; false refusals: a2 and the heuristic a3, a4 = 3/4, which misses <= 0.50 only for a3 and a4: read in
// the rate's favour it is a2 alone, 1/4 = 0.25. Not measured (it blocks), rather than failed on answers it cannot read.
const FALSE_NOT_MEASURED = new RegExp(`N/A\\s+boundary\\.false_refusal_rate\\s+.*false_refusal_rate = 0\\.75 misses <= 0\\.50 only as a bound \\(2 of the 4 ${HEURISTIC_ANSWERABLE}, so the value is an upper bound — ${READ_EXACTLY}\\); read in its favour it is 0\\.25, which meets <= 0\\.50`);

describe("the release gate measures correct_refusal_rate and false_refusal_rate", () => {
  let folder: string;
  let dataDir: string;
  let gates: string;
  let dataset: string;
  const task = path.join(tasksFolder, "scripted-rag-task.ts");

  before(async () => {
    ({ folder, dataDir, gates, dataset } = await gateWorkspace("gate-refusal-rates", ["boundary:", '  correct_refusal_rate: ">= 0.20"', '  false_refusal_rate: "<= 0.50"'], {
      dataset_id: "refusal_rates",
      dataset_version: "1",
      cases: [
        { case_id: "u1_flagged_refusal", case_version: "1", input: "可以用比特币付款吗？", answerable: false, metadata: { answer: "资料中没有相关信息，无法回答。", abstained: true } },
        { case_id: "u2_refusal_beside_claim", case_version: "1", input: "公司有几个食堂？", answerable: false, metadata: { answer: "资料中没有相关信息，但食堂有三个。" } },
        { case_id: "a1_flagged_answer", case_version: "1", input: "年假有几天？", answerable: true, metadata: { answer: "年假是15天。", abstained: false } },
        { case_id: "a2_flagged_refusal", case_version: "1", input: "病假有几天？", answerable: true, metadata: { answer: "资料中没有相关信息，无法回答。", abstained: true } },
        { case_id: "a3_refusal_beside_claim", case_version: "1", input: "婚假有几天？", answerable: true, metadata: { answer: "资料中没有相关信息，但婚假是3天。" } },
        { case_id: "a4_unflagged_answer", case_version: "1", input: "产假有几天？", answerable: true, metadata: { answer: "产假是98天。" } },
      ],
    }));
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test("eval and gate: correct_refusal_rate = 0.25 passes >= 0.20 as a lower bound, false_refusal_rate = 0.75 misses <= 0.50 only as an upper bound (not measured), each saying what it counted", async () => {
    const evaluated = await runRagscope(["eval", "--dataset", dataset, "--task", task, "--run-id", "refusals", "--gates", gates, "--data-dir", dataDir], ENVIRONMENT);
    assert.equal(evaluated.status, 1, evaluated.stdout + evaluated.stderr);
    assert.match(evaluated.stdout, /^Release gate: BLOCKED — 1 passed, 0 failed, 1 not measured, 0 errored/m, evaluated.stdout);
    assert.match(evaluated.stdout, CORRECT_PASSES, evaluated.stdout);
    assert.match(evaluated.stdout, FALSE_NOT_MEASURED, evaluated.stdout);

    const gated = await runRagscope(["gate", "--run", "refusals", "--gates", gates, "--data-dir", dataDir], ENVIRONMENT);
    assert.equal(gated.status, 1, gated.stdout + gated.stderr);
    assert.match(gated.stdout, CORRECT_PASSES, gated.stdout);
    assert.match(gated.stdout, FALSE_NOT_MEASURED, gated.stdout);
  });
});
