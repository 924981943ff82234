/**
 * A run compared with a baseline that ran other cases — the previous dataset
 * version, with a case changed (new case_version), one removed and one added —
 * as an evaluation engineer meets it after a dataset bump: `ragscope eval
 * --baseline` and `ragscope gate --baseline` (subprocesses over one data
 * folder) say that the comparison covers only the cases both ran and name the
 * cases left out on each side; the JSON output lists them, and so does the
 * web UI's /runs/compare (`ragscope serve` over the folder afterwards). A baseline over the
 * same dataset says nothing of the kind. With so few cases in both, no
 * bootstrap interval is shown (fewer than 10: it would claim more certainty
 * than it has).
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { startServeWithUi } from "../../support/serve-with-ui.js";
import { runRagscope, tasksFolder } from "./support/run-ragscope.js";

const kept = (id: string) => [
  `  - case_id: ${id}`,
  "    case_version: v1",
  `    input: What does ${id} cost?`,
  `    gold_evidence: [{ document_id: doc_${id}, chunk_id: chunk_${id} }]`,
  "    metadata:",
  `      retrieve: { document: doc_${id}, chunk: chunk_${id}, text: "${id} costs five dollars." }`,
  `      answer: ${id} costs five dollars.`,
];

function dataset(version: string, ids: string[], extra: string[] = []): string {
  return ["dataset_id: bump", `dataset_version: "${version}"`, "cases:", ...ids.flatMap(kept), ...extra, ""].join("\n");
}

describe("ragscope eval and gate --baseline: a baseline that ran other cases", () => {
  let folder: string;
  let dataDir: string;
  const task = path.join(tasksFolder, "retrieving-task.ts");
  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-baseline-other-cases-"));
    dataDir = path.join(folder, "store");
    // Version 1: shared, changed (v1) and removed. Version 2: shared, changed at case_version v2, and added.
    await writeFile(path.join(folder, "v1.yaml"), dataset("1", ["shared", "changed", "removed"]));
    const changedV2 = kept("changed").map((line) => line.replace("case_version: v1", "case_version: v2").replace("What does changed cost?", "What does changed cost now?"));
    await writeFile(path.join(folder, "v2.yaml"), dataset("2", ["shared", "added"], changedV2));
    for (const [file, runId] of [["v1.yaml", "bump-v1"], ["v1.yaml", "bump-v1-again"]] as const) {
      const ran = await runRagscope(["eval", "--dataset", path.join(folder, file), "--task", task, "--run-id", runId, "--data-dir", dataDir]);
      assert.notEqual(ran.status, 2, ran.stdout + ran.stderr);
    }
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test("eval over the next dataset version: the comparison says which cases it left out, in the terminal and the JSON", async () => {
    const output = path.join(folder, "v2.json");
    const ran = await runRagscope(["eval", "--dataset", path.join(folder, "v2.yaml"), "--task", task, "--run-id", "bump-v2", "--baseline", "bump-v1", "--output", output, "--data-dir", dataDir]);
    assert.notEqual(ran.status, 2, ran.stdout + ran.stderr);
    assert.match(ran.stdout, /Compared with baseline bump-v1 \(1 cases in both; left out: 2 only in this run, 2 only in the baseline — see the note below\):/);
    assert.match(
      ran.stdout,
      /Note: baseline bump-v1 ran other cases than this run — 2 of this run's cases are not in it \(added@v1, changed@v2\), and 2 of its cases are not in this run \(changed@v1, removed@v1\), .*the comparison and overall_score_drop cover only the 1 case both ran/,
    );
    // One case in both runs: no bootstrap interval is shown for it, in the terminal or the JSON (too few to hold its 95 %).
    assert.match(ran.stdout, /case_passed\s+0\.0000  \(no interval: 1 case measured in both runs, fewer than 10 \(a bootstrap interval over so few is narrower than the level it claims\)\)/);
    const results = JSON.parse(await readFile(output, "utf8")) as {
      comparison: { paired_cases: number; candidate_only_cases: string[]; baseline_only_cases: string[]; metrics: { metric: string; ci_low: number | null; ci_high: number | null; ci_withheld: string | null }[] };
    };
    const passed = results.comparison.metrics.find((metric) => metric.metric === "case_passed");
    assert.deepEqual([passed?.ci_low, passed?.ci_high], [null, null]);
    assert.match(passed?.ci_withheld ?? "", /^no interval: 1 case measured in both runs/);
    assert.equal(results.comparison.paired_cases, 1);
    assert.deepEqual(results.comparison.candidate_only_cases, ["added@v1", "changed@v2"]);
    assert.deepEqual(results.comparison.baseline_only_cases, ["changed@v1", "removed@v1"]);
  });

  test("gate --baseline over runs of two dataset versions says so; over the same dataset it does not", async () => {
    const other = await runRagscope(["gate", "--run", "bump-v2", "--baseline", "bump-v1", "--data-dir", dataDir]);
    assert.notEqual(other.status, 2, other.stdout + other.stderr);
    assert.match(other.stdout, /Note: baseline bump-v1 ran other cases than this run — 2 of this run's cases are not in it \(added@v1, changed@v2\)/);
    const same = await runRagscope(["gate", "--run", "bump-v1-again", "--baseline", "bump-v1", "--data-dir", dataDir]);
    assert.notEqual(same.status, 2, same.stdout + same.stderr);
    assert.match(same.stdout, /Release gate for run bump-v1-again/);
    assert.doesNotMatch(same.stdout, /ran other cases/);
  });

  test("the web UI's runs side by side says which cases it left out", async () => {
    const serve = await startServeWithUi(dataDir, {});
    try {
      const other = await (await fetch(`${serve.uiUrl}/runs/compare?candidate=bump-v2&baseline=bump-v1`)).text();
      assert.match(other, /<p class="warning" id="unpaired">The runs ran other cases — 2 only in the candidate \(added@v1, changed@v2\); 2 only in the baseline \(changed@v1, removed@v1\): .*Only the 1 cases both ran are compared below\.<\/p>/);
      const same = await (await fetch(`${serve.uiUrl}/runs/compare?candidate=bump-v1-again&baseline=bump-v1`)).text();
      assert.match(same, /Metrics on 3 paired cases/);
      assert.doesNotMatch(same, /id="unpaired"/);
    } finally {
      serve.child.kill("SIGTERM");
      await serve.exited;
    }
  });
});
