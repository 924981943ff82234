/**
 * The report's Runs board says what `ragscope eval --baseline` says of two
 * runs (bin/ragscope.js as a subprocess: two `eval` runs into one data
 * folder, then `report --baseline --candidate`; the HTML read back in
 * Debian's Chromium):
 * - cases are paired by case_id AND case_version, as eval pairs them: a case
 *   changed between the dataset versions (new case_version) is left out, not
 *   compared with its earlier self, and the board counts the cases left out
 *   and why;
 * - the heuristic judge's values (no LLM judge configured: the embedded
 *   stand-in scores faithfulness) are named as a measurement, and the metric
 *   itself has no row — the Generation line says "Faithfulness no data" for
 *   the same store.
 *
 * Two dataset versions, the retrieving task (test/e2e/experiments/tasks):
 *   v1: kept@v1, changed@v1, removed@v1 — each retrieves its gold chunk, passes;
 *   v2: kept@v1, changed@v2 (its gold chunk is now chunk_changed_v2, the task
 *       still retrieves chunk_changed: recall 0, fails), added@v1 (passes).
 * Worked by hand, as eval pairs them (its own output says the same below):
 *   paired: kept@v1 only — 1 case; left out because only one run has the case
 *   id: removed, added — 2; because the versions differ: changed — 1.
 *   Pass rates over the paired case: 1/1 in both (over all cases the
 *   candidate's was 2/3). No case flipped: the only case whose outcome
 *   changed, changed, ran at different versions.
 *   recall_at_5 over the paired case: 1 in both (over all the candidate's
 *   cases: 2/3).
 * - a heuristic rule's metric is named so (evaluators/metric-catalog.ts):
 *   each case has a key point its answer states, so answer.completeness (key
 *   points by text overlap) gives completeness 1 — shown as "Completeness
 *   (heuristic)" on the Generation line and "completeness (heuristic)" in
 *   the Runs board's table and chart, never under the bare name.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import { barTitles, tableRows } from "../support/report-panels.js";
import { projectRoot, ragscopeBinary, runRagscope, tasksFolder } from "./experiments/support/run-ragscope.js";

const chromiumPath = process.env.RAGSCOPE_CHROMIUM ?? "/usr/bin/chromium";
const CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

/** A case the retrieving task answers: it retrieves `retrieved` of doc_<id> and answers with the case's price. */
function evalCase(id: string, version: string, gold: string, retrieved: string, input = `What does ${id} cost?`): string[] {
  return [
    `  - case_id: ${id}`,
    `    case_version: ${version}`,
    `    input: ${input}`,
    `    gold_evidence: [{ document_id: doc_${id}, chunk_id: ${gold} }]`,
    `    reference_answer: ${id} costs five dollars.`,
    "    key_points: [costs five dollars]",
    "    metadata:",
    `      retrieve: { document: doc_${id}, chunk: ${retrieved}, text: "${id} costs five dollars." }`,
    `      answer: ${id} costs five dollars.`,
  ];
}

const dataset = (version: string, cases: string[][]) => ["dataset_id: bump", `dataset_version: "${version}"`, "cases:", ...cases.flat(), ""].join("\n");

let folder: string;
let browser: Browser;
let page: Page;
let evalOutput: string;
let reportOutput: string;

function printed(title: string): string {
  const line = reportOutput.split("\n").find((text) => text.startsWith(`  ${title}: `));
  assert.ok(line, `no line "${title}" in:\n${reportOutput}`);
  return line.slice(`  ${title}: `.length);
}

before(async () => {
  assert.ok(existsSync(chromiumPath), `Chromium is needed at ${chromiumPath} (Debian package chromium)`);
  folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-runs-board-pairing-"));
  const dataDir = path.join(folder, "store");
  const task = path.join(tasksFolder, "retrieving-task.ts");
  await writeFile(path.join(folder, "v1.yaml"), dataset("1", [evalCase("kept", "v1", "chunk_kept", "chunk_kept"), evalCase("changed", "v1", "chunk_changed", "chunk_changed"), evalCase("removed", "v1", "chunk_removed", "chunk_removed")]));
  await writeFile(
    path.join(folder, "v2.yaml"),
    dataset("2", [evalCase("kept", "v1", "chunk_kept", "chunk_kept"), evalCase("changed", "v2", "chunk_changed_v2", "chunk_changed", "What does changed cost now?"), evalCase("added", "v1", "chunk_added", "chunk_added")]),
  );
  const baseline = await runRagscope(["eval", "--dataset", path.join(folder, "v1.yaml"), "--task", task, "--run-id", "bump-v1", "--data-dir", dataDir]);
  assert.notEqual(baseline.status, 2, baseline.stdout + baseline.stderr);
  const candidate = await runRagscope(["eval", "--dataset", path.join(folder, "v2.yaml"), "--task", task, "--run-id", "bump-v2", "--baseline", "bump-v1", "--data-dir", dataDir]);
  assert.notEqual(candidate.status, 2, candidate.stdout + candidate.stderr);
  evalOutput = candidate.stdout;
  const out = path.join(folder, "report.html");
  const report = spawnSync(process.execPath, [ragscopeBinary, "report", "--data-dir", dataDir, "--baseline", "bump-v1", "--candidate", "bump-v2", "--out", out], {
    cwd: projectRoot,
    encoding: "utf8",
    env: { ...process.env, RAGSCOPE_CONFIG: "", RAGSCOPE_CLICKHOUSE_URL: "" },
  });
  assert.equal(report.status, 0, report.stdout + report.stderr);
  reportOutput = report.stdout;
  browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: CHROMIUM_FLAGS });
  page = await browser.newPage();
  await page.goto(pathToFileURL(out).href, { waitUntil: "load" });
});

after(async () => {
  await browser?.close();
  await rm(folder, { recursive: true, force: true });
});

describe("the report's Runs board pairs cases as ragscope eval --baseline does", () => {
  test("eval's own comparison: one case in both, no flip (the reference the board must agree with)", () => {
    assert.match(evalOutput, /Compared with baseline bump-v1 \(1 cases in both; left out: 2 only in this run, 2 only in the baseline/);
    assert.match(evalOutput, /regressed \(passed before, not now\): none/);
    assert.match(evalOutput, /fixed \(not passed before, passed now\): none/);
  });

  test("pass rates are over the paired case, and the cases left out are counted by why", () => {
    assert.equal(
      printed("Pass rates"),
      "Baseline cases 3 · Candidate cases 3 · Paired cases 1 · Left out: in one run only 2 · Left out: versions differ 1 · Baseline pass rate 100.00% (of 1 case) · Candidate pass rate 100.00% (of 1 case)",
    );
  });

  test("no case flipped: the changed case ran at two versions and is not compared", async () => {
    assert.equal(printed("Cases that flipped"), "0 rows");
    assert.deepEqual(await tableRows(page, "Cases that flipped"), []);
    const description = await page.locator("figure.panel", { has: page.locator('figcaption:text-is("Cases that flipped")') }).locator("figcaption span.help").textContent();
    assert.match(description ?? "", /matched by case_id and case_version/);
  });

  test("metric means are over the paired case", async () => {
    const recall = (await tableRows(page, "Metrics side by side")).find((row) => row.metric === "recall_at_5");
    assert.ok(recall, "a recall_at_5 row");
    assert.deepEqual([recall.baseline, recall.candidate, recall.baseline_cases, recall.candidate_cases], ["1", "1", "1", "1"]);
  });
});

describe("the heuristic judge's values are named a measurement, never the metric", () => {
  test("the Generation line has no faithfulness: only the heuristic judge scored it", () => {
    assert.match(printed("Generation: means over the range"), /Faithfulness no data/);
  });

  test("Metrics side by side and the score chart show faithfulness only as the heuristic judge's measurement", async () => {
    const rows = await tableRows(page, "Metrics side by side");
    assert.equal(
      rows.find((row) => row.metric === "faithfulness"),
      undefined,
      `no row presents the heuristic's value as faithfulness: ${rows.map((row) => row.metric).join(", ")}`,
    );
    const heuristic = rows.find((row) => row.metric === "faithfulness (heuristic judge, measurement)");
    assert.ok(heuristic, "the heuristic judge's faithfulness, named so");
    assert.deepEqual([heuristic.baseline_cases, heuristic.candidate_cases], ["1", "1"]);
    const bars = await barTitles(page, "Scores, baseline vs candidate");
    assert.ok(!bars.some((bar) => bar.startsWith("faithfulness · ")), bars.join("\n"));
    // The heuristic judge's usage (0 tokens, 0 cost) is no score, under its name or another.
    assert.ok(!bars.some((bar) => bar.startsWith("judge_")), bars.join("\n"));
    assert.deepEqual(
      bars.filter((bar) => bar.startsWith("faithfulness (heuristic judge, measurement) · ")),
      ["faithfulness (heuristic judge, measurement) · Baseline: 100.0%", "faithfulness (heuristic judge, measurement) · Candidate: 100.0%"],
      bars.join("\n"),
    );
  });
});

describe("a heuristic rule's metric is labelled a heuristic in the report", () => {
  test("the text report's Generation line and the HTML's table and chart name completeness a heuristic, never the bare metric", async () => {
    assert.match(printed("Generation: means over the range"), /Completeness \(heuristic\) 100\.0% \(of 6 values\)/);
    assert.doesNotMatch(printed("Generation: means over the range"), /Completeness [^(]/);
    const rows = await tableRows(page, "Metrics side by side");
    assert.equal(rows.find((row) => row.metric === "completeness"), undefined, rows.map((row) => row.metric).join(", "));
    const completeness = rows.find((row) => row.metric === "completeness (heuristic)");
    assert.ok(completeness, "completeness, labelled a heuristic");
    assert.deepEqual([completeness.baseline, completeness.candidate, completeness.baseline_cases, completeness.candidate_cases], ["1", "1", "1", "1"]);
    const bars = await barTitles(page, "Scores, baseline vs candidate");
    assert.deepEqual(bars.filter((bar) => bar.startsWith("completeness")), ["completeness (heuristic) · Baseline: 100.0%", "completeness (heuristic) · Candidate: 100.0%"], bars.join("\n"));
  });
});
