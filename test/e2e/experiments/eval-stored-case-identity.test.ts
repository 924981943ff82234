/**
 * A stored run's gold data never changes afterwards (README "One case id and
 * version is one case"): `ragscope eval` of a dataset that reuses a stored
 * case id and version with other content refuses before any case runs (exit
 * 2), and the earlier run's gate decision stays what it was. The QA's
 * reproduction: run err1 over qa_err, whose e_ok and e_dup are P0; then
 * qa_err3 reusing both at version v1 with risk_level P2.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { ClickHouseCaseStore } from "../../../store/clickhouse/clickhouse-case-store.js";
import { openClickHouse } from "../../../store/clickhouse/clickhouse-connection.js";
import { runRagscope, tasksFolder } from "./support/run-ragscope.js";

/** Two P0 cases: e_ok retrieves its gold chunk, e_dup retrieves nothing of its gold evidence (retrieving-task.ts). */
function dataset(datasetId: string, risk: string): string {
  return [
    `dataset_id: ${datasetId}`,
    'dataset_version: "1"',
    "cases:",
    "  - case_id: e_ok",
    "    case_version: v1",
    "    input: What does standard shipping cost?",
    `    risk_level: ${risk}`,
    "    gold_evidence: [{ document_id: doc_shipping, chunk_id: chunk_shipping }]",
    "    metadata:",
    '      retrieve: { document: doc_shipping, chunk: chunk_shipping, text: "Standard shipping costs five dollars." }',
    "      answer: Standard shipping costs five dollars.",
    "  - case_id: e_dup",
    "    case_version: v1",
    "    input: How long is the warranty?",
    `    risk_level: ${risk}`,
    "    gold_evidence: [{ document_id: doc_warranty, chunk_id: chunk_warranty }]",
    "",
  ].join("\n");
}

describe("ragscope eval: a stored case is never rewritten", () => {
  let folder: string;
  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-eval-identity-"));
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test("a dataset reusing a stored case id and version with another risk_level: exit 2 before anything runs; the earlier run's veto stays", async () => {
    const dataDir = path.join(folder, "store");
    const original = path.join(folder, "qa_err.yaml");
    const reused = path.join(folder, "qa_err3.yaml");
    await writeFile(original, dataset("qa_err", "P0"));
    await writeFile(reused, dataset("qa_err3", "P2"));
    const task = path.join(tasksFolder, "retrieving-task.ts");

    const first = await runRagscope(["eval", "--dataset", original, "--task", task, "--run-id", "err1", "--data-dir", dataDir]);
    // e_ok passes (its gold chunk retrieved), e_dup fails: 1 of 2 P0 cases passed = 0.5 against the seed's "= 1.0".
    assert.equal(first.status, 1, first.stderr);
    assert.match(first.stdout, /FAIL\s+regression\.critical_case_pass_rate\s+0\.5000\s+= 1\.0/);

    const second = await runRagscope(["eval", "--dataset", reused, "--task", task, "--run-id", "err3", "--data-dir", dataDir]);
    assert.equal(second.status, 2, second.stdout + second.stderr);
    for (const caseId of ["e_ok", "e_dup"]) {
      assert.match(
        second.stderr,
        new RegExp(`qa_err3\\.yaml: case ${caseId}, case_version v1 \\(dataset qa_err3 version 1\\), differs in risk_level from the stored case of that id and version \\(stored from dataset qa_err version 1\\): .*give the changed case a new case_version`),
      );
    }
    assert.match(second.stderr, /nothing was run/);
    assert.doesNotMatch(second.stdout, /Decision:/);

    // Nothing of err3 was stored, and err1 is gated as it was: its P0 veto is not gone.
    const notRun = await runRagscope(["gate", "--run", "err3", "--data-dir", dataDir]);
    assert.equal(notRun.status, 2, notRun.stdout);
    const gate = await runRagscope(["gate", "--run", "err1", "--data-dir", dataDir]);
    assert.equal(gate.status, 1, gate.stderr);
    assert.match(gate.stdout, /FAIL\s+regression\.critical_case_pass_rate\s+0\.5000\s+= 1\.0/);

    const connection = await openClickHouse({ url: null, username: "default", password: "", database: "ragscope", dataPath: dataDir });
    try {
      const stored = await new ClickHouseCaseStore(connection).get("e_dup", "v1");
      assert.equal(stored?.risk_level, "P0");
      assert.equal(stored?.dataset_id, "qa_err");
    } finally {
      await connection.close();
    }
  });
});
