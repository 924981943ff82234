/**
 * A change of a cent's thousandth per request, as `ragscope eval --baseline`
 * prints it: a model switch that halves a cost of 0.00002 USD a case is a
 * real difference, and its interval excludes 0. Printed at four decimals it
 * read "-0.0000 [-0.0000, -0.0000]", as if nothing had changed; small values
 * keep two significant digits (report/format-value.ts), as the report and
 * the web UI print them. A difference of the heuristic judge's scores (the
 * embedded stand-in when no LLM judge is configured) is labelled as one, in
 * the terminal, the JSON and the web UI's comparison, as the run's own
 * metrics are: a measurement, never a pass.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { startServeWithUi } from "../../support/serve-with-ui.js";
import { pricedDataset } from "./support/priced-dataset.js";
import { runRagscope, tasksFolder } from "./support/run-ragscope.js";

const CASES = 12;

const DATASET = pricedDataset("small", CASES);

describe("ragscope eval --baseline: small differences, and the heuristic judge's, printed as what they are", () => {
  let folder: string;
  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-small-differences-"));
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test("a cost halved from 0.00002 to 0.00001 USD a case reads -0.00001 with its interval, not -0.0000", async () => {
    const dataDir = path.join(folder, "store");
    const file = path.join(folder, "small.yaml");
    await writeFile(file, DATASET);
    const task = path.join(tasksFolder, "priced-task.ts");
    const baseline = await runRagscope(["eval", "--dataset", file, "--task", task, "--run-id", "small-before", "--data-dir", dataDir], { TEST_COST_PER_CASE: "0.00002" });
    assert.notEqual(baseline.status, 2, baseline.stdout + baseline.stderr);
    const compared = await runRagscope(["eval", "--dataset", file, "--task", task, "--run-id", "small-after", "--baseline", "small-before", "--data-dir", dataDir], { TEST_COST_PER_CASE: "0.00001" });
    assert.notEqual(compared.status, 2, compared.stdout + compared.stderr);
    assert.match(compared.stdout, /Compared with baseline small-before \(12 cases in both/);
    // The run's mean cost, 0.00001 a case.
    assert.match(compared.stdout, /^ {4}cost +0\.00001 {2}n=12$/m);
    // Every case cost 0.00001 less than in the baseline: the mean difference and both ends of the interval are -0.00001.
    const differences = compared.stdout.slice(compared.stdout.indexOf("metric differences"));
    assert.match(differences, /^ {4}cost +-0\.00001 {2}\[-0\.00001, -0\.00001\] {2}n=12$/m);
  });

  test("a faithfulness difference the heuristic judge measured says so in the terminal, the JSON and /runs/compare", async () => {
    const dataDir = path.join(folder, "store-heuristic");
    const file = path.join(folder, "heuristic.yaml");
    await writeFile(file, DATASET);
    const task = path.join(tasksFolder, "priced-task.ts");
    const baseline = await runRagscope(["eval", "--dataset", file, "--task", task, "--run-id", "plain", "--data-dir", dataDir], { TEST_COST_PER_CASE: "0.01" });
    assert.notEqual(baseline.status, 2, baseline.stdout + baseline.stderr);
    // Answers that add claims their context does not hold: the heuristic judge's groundedness, and its faithfulness, drop.
    const output = path.join(folder, "embellished.json");
    const addition = " It also ships by drone within one hour to every planet, and refunds triple the price.";
    const compared = await runRagscope(["eval", "--dataset", file, "--task", task, "--run-id", "embellished", "--baseline", "plain", "--output", output, "--data-dir", dataDir], { TEST_COST_PER_CASE: "0.01", TEST_ANSWER_ADDITION: addition });
    assert.notEqual(compared.status, 2, compared.stdout + compared.stderr);
    const differences = compared.stdout.slice(compared.stdout.indexOf("metric differences"));
    assert.match(differences, /^ {4}faithfulness +-\d\S* +\[[^\]]+\] {2}n=12 {2}\(all from the heuristic judge: a measurement, never a pass\)$/m, differences);
    assert.match(differences, /^ {4}latency_ms .*n=12$/m, "a measured metric carries no such label");
    const results = JSON.parse(await readFile(output, "utf8")) as { comparison: { metrics: { metric: string; heuristic_pairs: number; pairs: number }[] } };
    const faithfulness = results.comparison.metrics.find((metric) => metric.metric === "faithfulness");
    assert.deepEqual([faithfulness?.heuristic_pairs, faithfulness?.pairs], [12, 12]);
    assert.equal(results.comparison.metrics.find((metric) => metric.metric === "case_passed")?.heuristic_pairs, 0);

    const serve = await startServeWithUi(dataDir, {});
    try {
      const page = await (await fetch(`${serve.uiUrl}/runs/compare?candidate=embellished&baseline=plain`)).text();
      assert.match(page, /<tr data-metric="faithfulness"><td>faithfulness <span class="heuristic muted">\(all from the heuristic judge: a measurement, never a pass\)<\/span><\/td>/);
      assert.match(page, /<tr data-metric="case_passed"><td>case_passed<\/td>/);
    } finally {
      serve.child.kill("SIGTERM");
      await serve.exited;
    }
  });
});
