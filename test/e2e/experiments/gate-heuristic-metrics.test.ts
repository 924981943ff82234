/**
 * A heuristic rule's metric never decides a gate, as the heuristic judge's
 * scores do not (README "Release gates"). completeness is answer.completeness's
 * text overlap of the case's key points: a gate rule on it is not measured,
 * with the reason and what to configure (an LLM judge, whose completeness_judged the rule then reads),
 * whatever its value — the seed's example gate file has `completeness >=
 * 0.82`, which passed on the heuristic before. number_agreement is a heuristic
 * match too, but the seed defines number matching as a rule metric (004 §九.1
 * 规则评测: 数字、日期、实体匹配), so it decides, and its reason says why.
 *
 * Built CLI as a subprocess: `eval` with the gate file, then `gate` on the
 * stored run; the eval's metric table names the heuristic metrics so.
 */
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { gateWorkspace } from "./support/gate-workspace.js";
import { runRagscope, tasksFolder } from "./support/run-ragscope.js";

const ENVIRONMENT = { RAGSCOPE_CLICKHOUSE_URL: "" };
const NOT_DECIDED = /N\/A\s+generation\.completeness\s+—\s+>= 0\.8\s+\(completeness = 1 was measured by a heuristic \(answer\.completeness\), and a heuristic never decides a gate — configure an LLM judge \(LOCAL-JUDGE\.md\): the rule then reads its completeness_judged; `ragscope serve`, where `eval --endpoint` sends its cases, judges only with RAGSCOPE_JUDGE_ENABLED=true \(an in-process `eval` always judges\)\)/;
const SEED_RULE = /PASS\s+generation\.number_agreement\s+1\s+>= 1\s+\(number_agreement is a heuristic match the seed defines as a rule metric, 004 §九\.1 规则评测: 数字、日期、实体匹配, so it decides\)/;

describe("a gate rule on a heuristic metric is not measured; the seed's rule metrics decide", () => {
  let folder: string;
  let dataDir: string;
  let gates: string;
  let dataset: string;
  const task = path.join(tasksFolder, "retrieving-task.ts");

  before(async () => {
    const answer = "Points expire after 12 months.";
    ({ folder, dataDir, gates, dataset } = await gateWorkspace("gate-heuristic", ["generation:", '  completeness: ">= 0.8"', '  number_agreement: ">= 1"'], {
      dataset_id: "heuristic_gate",
      dataset_version: "1",
      cases: [{ case_id: "case_points", case_version: "1", input: "When do points expire?", reference_answer: answer, key_points: ["points expire after 12 months"], metadata: { answer } }],
    }));
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test("eval and gate: completeness N/A with what to configure, number_agreement PASS as the seed's rule metric; BLOCKED, and --allow-missing passes", async () => {
    const evaluated = await runRagscope(["eval", "--dataset", dataset, "--task", task, "--run-id", "heuristic", "--gates", gates, "--data-dir", dataDir], ENVIRONMENT);
    assert.equal(evaluated.status, 1, evaluated.stdout + evaluated.stderr);
    assert.match(evaluated.stdout, /^Release gate: BLOCKED — 1 passed, 0 failed, 1 not measured, 0 errored/m, evaluated.stdout);
    assert.match(evaluated.stdout, NOT_DECIDED);
    assert.match(evaluated.stdout, SEED_RULE);
    // The metric table labels both heuristics (metric-catalog.ts), the exact rules not.
    assert.match(evaluated.stdout, /^ {4}completeness \(heuristic\) +1\.0000 +n=1$/m);
    assert.match(evaluated.stdout, /^ {4}number_agreement \(heuristic\) +1\.0000 +n=1$/m);
    assert.match(evaluated.stdout, /^ {4}exact_match +1\.0000 +n=1$/m);

    const gated = await runRagscope(["gate", "--run", "heuristic", "--gates", gates, "--data-dir", dataDir], ENVIRONMENT);
    assert.equal(gated.status, 1, gated.stdout + gated.stderr);
    assert.match(gated.stdout, NOT_DECIDED);
    assert.match(gated.stdout, SEED_RULE);

    const allowed = await runRagscope(["gate", "--run", "heuristic", "--gates", gates, "--allow-missing", "--data-dir", dataDir], ENVIRONMENT);
    assert.equal(allowed.status, 0, allowed.stdout + allowed.stderr);
    assert.match(allowed.stdout, /PASSED — 1 passed, 0 failed, 1 not measured, 0 errored \(the 1 not measured were allowed by --allow-missing: not shown to meet their thresholds\)\n/);
  });
});
