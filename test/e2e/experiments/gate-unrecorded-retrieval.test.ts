/**
 * Cases whose trace recorded no retrieval although they list gold evidence (a router that answered them without
 * retrieving, or a retrieval nobody instrumented) are not measured, and a retrieval rule's mean over the other cases
 * does not stand for the run: the gate passed recall_at_5 = 1 on one case of three. Now such a rule is not measured
 * (BLOCKED unless --allow-missing), its line naming the cases; a value that fails on the measured cases still fails.
 * Built CLI as subprocesses: `eval` with a router task, then `gate` on the stored run.
 */
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { gateWorkspace } from "./support/gate-workspace.js";
import { runRagscope, tasksFolder } from "./support/run-ragscope.js";

const ENVIRONMENT = { RAGSCOPE_CLICKHOUSE_URL: "" };
const gold = (chunk: string, document: string) => [{ document_id: document, chunk_id: chunk }];

describe("a retrieval rule over cases whose trace recorded no retrieval", () => {
  let folder: string;
  let dataDir: string;
  let gates: string;
  let dataset: string;
  const task = path.join(tasksFolder, "router-skips-retrieval-task.ts");

  before(async () => {
    ({ folder, dataDir, gates, dataset } = await gateWorkspace("gate-unrecorded-retrieval", ["retrieval:", '  recall_at_5: ">= 0.9"', '  mrr: ">= 0.8"', "performance:", '  error_rate: "<= 0.01"'], {
      dataset_id: "router",
      dataset_version: "1",
      cases: [
        { case_id: "refund_window", case_version: "1", input: "How long do I have to ask for a refund?", gold_evidence: gold("refund-1", "refund-policy") },
        { case_id: "points_expiry", case_version: "1", input: "When do member points expire?", gold_evidence: gold("points-1", "member-points") },
        { case_id: "opening_hours", case_version: "1", input: "When does the shop open?", gold_evidence: gold("hours-1", "opening-hours") },
      ],
    }));
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test("eval and gate: not measured, naming the cases; --allow-missing passes without the rules", async () => {
    const evaluated = await runRagscope(["eval", "--dataset", dataset, "--task", task, "--gates", gates, "--data-dir", dataDir, "--run-id", "router-1"], ENVIRONMENT);
    assert.equal(evaluated.status, 1, evaluated.stdout + evaluated.stderr);
    const line = /N\/A\s+retrieval\.recall_at_5\s+—\s+>= 0\.9\s+\(recall_at_5 = 1 would meet >= 0\.9, but it is measured on 1 of 3 cases: 2 cases with gold evidence recorded no retrieval \(opening_hours, points_expiry\) and are not measured: .*--allow-missing/;
    assert.match(evaluated.stdout, line);
    assert.match(evaluated.stdout, /N\/A\s+retrieval\.mrr\s+—/);
    assert.doesNotMatch(evaluated.stdout, /PASS\s+retrieval\./);

    const gated = await runRagscope(["gate", "--run", "router-1", "--gates", gates, "--data-dir", dataDir], ENVIRONMENT);
    assert.equal(gated.status, 1, gated.stdout + gated.stderr);
    assert.match(gated.stdout, /BLOCKED — 1 passed, 0 failed, 2 not measured/);
    assert.match(gated.stdout, line);

    const allowed = await runRagscope(["gate", "--run", "router-1", "--gates", gates, "--data-dir", dataDir, "--allow-missing"], ENVIRONMENT);
    assert.equal(allowed.status, 0, allowed.stdout + allowed.stderr);
  });

  test("a rule the measured cases already miss fails, and says on how many cases it was measured", async () => {
    const strict = path.join(folder, "strict-gates.yaml");
    const { writeFile } = await import("node:fs/promises");
    await writeFile(strict, 'retrieval:\n  precision_at_1: ">= 1"\n  precision_at_5: ">= 0.5"\n');
    const gated = await runRagscope(["gate", "--run", "router-1", "--gates", strict, "--data-dir", dataDir], ENVIRONMENT);
    assert.equal(gated.status, 1, gated.stdout + gated.stderr);
    // precision@5 of the one retrieval: 1 relevant chunk of 5 places = 0.2.
    assert.match(gated.stdout, /FAIL\s+retrieval\.precision_at_5\s+0\.2000\s+>= 0\.5\s+\(measured on 1 of 3 cases: 2 cases with gold evidence recorded no retrieval/);
  });
});
