/**
 * A veto case (risk_level P0, seed 004 §十三 一票否决) that did not pass blocks
 * the release in `ragscope gate` as it does in `ragscope eval`, whatever the
 * gate file's rules say: with a gate file without a `critical_case_pass_rate`
 * rule, eval blocked the run (exit 1) and gate passed the same run with the same
 * file (exit 0). As users meet it: both commands as subprocesses of
 * bin/ragscope.js over one embedded data folder, the task
 * test/e2e/ui/tasks/listed-chunks-task.ts answering from the case's metadata.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { projectRoot, runRagscope } from "./support/run-ragscope.js";

const TASK = path.join(projectRoot, "test/e2e/ui/tasks/listed-chunks-task.ts");
const ENVIRONMENT = { RAGSCOPE_CLICKHOUSE_URL: "" };
const VETO_LINE = "Veto cases not passed (block whatever the averages say): warranty_p0";

// warranty_p0: its gold chunk is not retrieved and the answer abstains on an answerable case — failed, and it is P0.
// shipping_p1: its gold chunk at rank 1, answered — passed.
const DATASET = `dataset_id: veto_cases
dataset_version: "1"
cases:
  - case_id: warranty_p0
    case_version: v1
    input: How long is the warranty on laptops?
    risk_level: P0
    gold_evidence: [{ document_id: warranty_policy, chunk_id: warranty-1 }]
    metadata:
      retrieve:
        - { document: shipping_policy, chunk: shipping-1, text: "Standard shipping costs five dollars." }
      answer: The documents do not say.
  - case_id: shipping_p1
    case_version: v1
    input: What does standard shipping cost?
    risk_level: P1
    gold_evidence: [{ document_id: shipping_policy, chunk_id: shipping-1 }]
    metadata:
      retrieve:
        - { document: shipping_policy, chunk: shipping-1, text: "Standard shipping costs five dollars." }
      answer: Standard shipping costs five dollars.
`;

// One rule, which the run passes: nothing in the file speaks of P0 cases.
const GATES = `performance:\n  error_rate: "<= 0.01"\n`;

let folder: string;
let dataDir: string;
let gates: string;
let evaluated: Awaited<ReturnType<typeof runRagscope>>;

before(async () => {
  folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-gate-veto-"));
  dataDir = path.join(folder, "chdb");
  const dataset = path.join(folder, "veto-cases.yaml");
  gates = path.join(folder, "gates.yaml");
  await writeFile(dataset, DATASET);
  await writeFile(gates, GATES);
  evaluated = await runRagscope(["eval", "--dataset", dataset, "--task", TASK, "--run-id", "veto-run", "--gates", gates, "--data-dir", dataDir], ENVIRONMENT);
});

after(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe("a P0 case that did not pass blocks eval and gate alike", () => {
  test("eval: the rule passes, the veto case blocks (exit 1)", () => {
    assert.match(evaluated.stdout, /FAILED\s+warranty_p0@v1/, evaluated.stdout + evaluated.stderr);
    assert.match(evaluated.stdout, /PASS {2}performance\.error_rate/);
    assert.ok(evaluated.stdout.includes(VETO_LINE), evaluated.stdout);
    assert.match(evaluated.stdout, /^Decision: BLOCKED$/m);
    assert.equal(evaluated.status, 1, evaluated.stdout + evaluated.stderr);
  });

  test("gate on the same run with the same gate file: the veto case named, blocked (exit 1)", async () => {
    const gate = await runRagscope(["gate", "--run", "veto-run", "--gates", gates, "--data-dir", dataDir], ENVIRONMENT);
    assert.match(gate.stdout, /PASS {2}performance\.error_rate/, gate.stdout + gate.stderr);
    assert.ok(gate.stdout.includes(VETO_LINE), gate.stdout);
    assert.match(gate.stdout, /^Decision: BLOCKED$/m);
    assert.equal(gate.status, 1, gate.stdout + gate.stderr);
  });
});
