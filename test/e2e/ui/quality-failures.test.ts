/**
 * The "Quality over time" and "Failures" pages end to end, on a run a user
 * made: `ragscope eval` (a subprocess) runs the example pipeline over the
 * example dataset into a data folder; `ragscope gate` (a subprocess) prints
 * the gate's numbers for that run; then `ragscope serve` opens the folder
 * and Debian's Chromium (playwright-core) reads the pages. Checked:
 * - every number the board and the gate file share is the same on the page as
 *   in the gate's output (one definition per metric, hallucination and
 *   permission-leak rates, retrieval's permission violations and faithfulness
 *   included; the heuristic judge's scores are a labelled measurement row,
 *   read by neither);
 * - the charts are drawn (uPlot, served from this server);
 * - the failing cases per root-cause label are the eval output's own, every
 *   one of the 18 labels is listed, and a label's link opens exactly its
 *   failing traces;
 * - no console errors. Screenshots go to test-output/ui-quality.png and
 *   test-output/ui-failures.png.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import { isHeuristicMetric } from "../../../evaluators/metric-catalog.js";
import { QUALITY_ROOT_CAUSE_LABELS, ROOT_CAUSE_LABEL_NAMES } from "../../../evaluators/root-cause/root-cause-labels.js";
import { startServeWithUi, type ServeWithUi } from "../../support/serve-with-ui.js";
import { signIn } from "../../support/sign-in.js";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const ragscope = path.join(projectRoot, "bin/ragscope.js");
const chromiumPath = process.env.RAGSCOPE_CHROMIUM ?? "/usr/bin/chromium";
const outputFolder = path.join(projectRoot, "test-output");
const CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const ALICE = "alice-token-0123456789abcdef";
const BOB = "bob-token-0123456789abcdef00";
const RUN = "ui-board-run";
interface EvalOutput {
  case_results: { case_result_id: string; case_id: string; quality_status: string }[];
  evaluation_results: { case_result_id: string; evaluator_id: string; reason: string; metric_values: Record<string, number | null> }[];
}

function run(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [ragscope, ...args], { cwd: projectRoot, env: { ...process.env, RAGSCOPE_CONFIG: "", RAGSCOPE_CLICKHOUSE_URL: "" } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("exit", (status) => resolve({ status, stdout, stderr }));
  });
}

/** The gate's printed rules: `  PASS  section.metric   value  threshold`. */
function gateValues(stdout: string): Map<string, number | null> {
  const values = new Map<string, number | null>();
  for (const match of stdout.matchAll(/^\s+(?:PASS|FAIL|N\/A)\s+\w+\.(\w+)\s+(\S+)\s/gm)) values.set(match[1]!, match[2] === "—" ? null : Number(match[2]));
  return values;
}

let folder: string;
let dataDir: string;
let evalOutput: EvalOutput;
let gateBefore: string;
let child: ChildProcess;
let serve: ServeWithUi;
let exited: Promise<number | null>;
let uiUrl: string;
let browser: Browser;
let alice: Page;
let bob: Page;
/** The failed case two reviewers pass in the browser. */
let reviewedCase = "";
const consoleErrors: string[] = [];

before(async () => {
  assert.ok(existsSync(chromiumPath), `Chromium is needed at ${chromiumPath} (Debian package chromium)`);
  await mkdir(outputFolder, { recursive: true });
  folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-ui-board-"));
  dataDir = path.join(folder, "chdb");
  const evaluated = await run(["eval", "--dataset", "examples/datasets/policy-regression.yaml", "--task", "examples/policy-assistant/eval-task.ts", "--run-id", RUN, "--data-dir", dataDir, "--output", path.join(folder, "results.json")]);
  // The example pipeline fails P0 and threshold rules by design: the gate blocks (exit 1).
  assert.equal(evaluated.status, 1, evaluated.stderr);
  evalOutput = JSON.parse(await readFile(path.join(folder, "results.json"), "utf8")) as EvalOutput;
  const gate = await run(["gate", "--run", RUN, "--data-dir", dataDir]);
  assert.equal(gate.status, 1, gate.stderr);
  gateBefore = gate.stdout;

  serve = await startServeWithUi(dataDir, { RAGSCOPE_UI_TOKENS: `alice=${ALICE},bob=${BOB}` });
  ({ child, exited, uiUrl } = serve);
  browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: CHROMIUM_FLAGS });
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  alice = await context.newPage();
  alice.on("console", (message) => {
    if (message.type() === "error") consoleErrors.push(message.text());
  });
  alice.on("pageerror", (error) => consoleErrors.push(error.message));
  await signIn(alice, `${uiUrl}/traces`, ALICE);
  bob = await (await browser.newContext({ viewport: { width: 1400, height: 1000 } })).newPage();
  bob.on("pageerror", (error) => consoleErrors.push(error.message));
  await signIn(bob, `${uiUrl}/traces`, BOB);
});

/** The gate's "Case verdicts:" line as numbers. */
function gateVerdicts(stdout: string): { passed: number; failed: number; reviewed: number } {
  const match = /Case verdicts: (\d+) passed \(judged\), (\d+) failed, .*; (\d+) decided by human review/.exec(stdout);
  assert.ok(match, stdout);
  return { passed: Number(match[1]), failed: Number(match[2]), reviewed: Number(match[3]) };
}

after(async () => {
  await browser?.close();
  if (child?.exitCode === null) child.kill("SIGKILL");
  await rm(folder, { recursive: true, force: true });
});

describe("Quality over time and Failures pages", () => {
  test("the board shows the gate's numbers for the run, per layer, with charts drawn by uPlot", async () => {
    await alice.goto(`${uiUrl}/quality?run=${RUN}`);
    const gate = gateValues(gateBefore);
    assert.ok(gate.size >= 10, gateBefore);
    let compared = 0;
    let heuristicRows = 0;
    const different: string[] = [];
    for (const [metric, expected] of gate) {
      const cell = alice.locator(`tr[data-aggregate="${metric}"] .value`);
      if ((await cell.count()) === 0) continue;
      // A heuristic rule's metric (completeness: key points by text overlap) decides no gate rule; the board shows its
      // value as a measurement, labelled a heuristic (evaluators/metric-catalog.ts), not as the gate's number.
      if (isHeuristicMetric(metric)) {
        assert.equal(expected, null, `the gate does not decide on ${metric}`);
        assert.match((await alice.locator(`tr[data-aggregate="${metric}"] td`).first().textContent()) ?? "", /^Completeness \(heuristic\) /);
        heuristicRows += 1;
        continue;
      }
      const shown = await cell.getAttribute("data-value");
      compared += 1;
      const same = expected === null ? shown === "" : shown !== "" && Math.abs(Number(shown) - expected) <= 0.00005 + 1e-12;
      if (!same) different.push(`${metric}: gate ${expected}, page ${shown}`);
    }
    assert.deepEqual(different, [], "one definition per metric: the page shows the gate's number for every metric both show");
    // 13 with retrieval's permission violations, which the gate file holds at zero and the board shows beside the leaks.
    assert.equal(compared, 13, `compared ${compared} metrics; gate printed ${[...gate.keys()].join(", ")}`);
    assert.equal(heuristicRows, 1, "completeness, the gate file's one heuristic metric, is shown labelled");
    for (const metric of ["faithfulness", "hallucination_rate", "permission_leak_rate", "permission_violation_rate"]) assert.ok(gate.has(metric), `the example gate file checks ${metric}`);
    // The example run has only the heuristic judge: its faithfulness is a measurement, shown apart and
    // labelled, and neither the gate nor the board's faithfulness and hallucination rate read it.
    assert.equal(gate.get("faithfulness"), null);
    assert.equal(gate.get("hallucination_rate"), null);
    const heuristic = alice.locator('tr[data-aggregate="faithfulness_heuristic_judge"]');
    assert.match((await heuristic.locator("td").first().textContent()) ?? "", /heuristic judge, measurement/);
    const heuristicScores = evalOutput.evaluation_results.map((result) => result.metric_values.faithfulness).filter((value): value is number => typeof value === "number");
    assert.ok(heuristicScores.length > 0, "the heuristic judge scored faithfulness");
    assert.equal(Number(await heuristic.locator(".samples").textContent()), heuristicScores.length);
    assert.ok(Math.abs(Number(await heuristic.locator(".value").getAttribute("data-value")) - heuristicScores.reduce((sum, value) => sum + value, 0) / heuristicScores.length) < 1e-9);
    // A judged metric without a value says why: only the heuristic judge scored it here (its row above), so an LLM
    // judge is what it needs — not a bare "no data" read as a broken board. Where the heuristic judge scored nothing
    // (it does not score correctness), no judge at all did. hallucination_rate counts faithfulness.
    const heuristicScored = (metric: string) => evalOutput.evaluation_results.some((result) => typeof result.metric_values[metric] === "number");
    assert.ok(heuristicScored("faithfulness"));
    for (const [metric, judged] of [["answer_correctness", "answer_correctness"], ["faithfulness", "faithfulness"], ["answer_relevance", "answer_relevance"], ["hallucination_rate", "faithfulness"]] as const) {
      const row = alice.locator(`tr[data-aggregate="${metric}"]`);
      assert.equal(await row.locator(".value").getAttribute("data-value"), "", `${metric} has no value without an LLM judge`);
      const reason = (await row.locator(".no-value-reason").textContent()) ?? "";
      assert.match(reason, heuristicScored(judged) ? /^Needs an LLM judge: only the heuristic judge scored/ : /^Needs an LLM judge: no LLM judge scored/, metric);
      assert.match(reason, /LOCAL-JUDGE\.md/, metric);
      assert.match(reason, /RAGSCOPE_JUDGE_BASE_URL/, metric);
    }
    // A value from gold data has none: its "no data" would mean no request carried it.
    assert.equal(await alice.locator('tr[data-aggregate="recall_at_5"] .no-value-reason').count(), 0);
    assert.deepEqual(await alice.locator("section.layer").evaluateAll((sections) => sections.map((section) => (section as unknown as { dataset: { layer: string } }).dataset.layer)), ["Retrieval", "Context", "Generation", "Boundaries", "Engineering", "Business"]);
    assert.ok((await alice.locator(".chart[data-drawn=yes] canvas").count()) >= 4, "uPlot drew the layers' charts");
    await alice.screenshot({ path: path.join(outputFolder, "ui-quality.png"), fullPage: true });
  });

  test("failing cases are grouped by their primary root cause, with the eval output's counts, and a label opens its traces", async () => {
    await alice.goto(`${uiUrl}/failures?run=${RUN}`);
    const failed = new Set(evalOutput.case_results.filter((item) => item.quality_status === "failed").map((item) => item.case_result_id));
    assert.equal(await alice.locator("#failing-total").textContent(), String(failed.size));
    const expected = new Map<string, number>();
    for (const result of evalOutput.evaluation_results) {
      if (result.evaluator_id !== "root_cause" || !failed.has(result.case_result_id)) continue;
      const label = result.reason.slice(0, result.reason.indexOf(":"));
      expected.set(label, (expected.get(label) ?? 0) + 1);
    }
    assert.ok(expected.size >= 2, "the example run fails for more than one reason");
    const shown = new Map<string, number>();
    for (const row of await alice.locator("#root-causes tbody tr").all()) shown.set((await row.getAttribute("data-root-cause"))!, Number(await row.locator(".failing").textContent()));
    assert.deepEqual([...shown.keys()].sort(), [...ROOT_CAUSE_LABEL_NAMES].sort(), "all 18 labels are listed");
    for (const label of ROOT_CAUSE_LABEL_NAMES) assert.equal(shown.get(label), expected.get(label) ?? 0, label);
    assert.equal(Number(await alice.locator("#without-root-cause").textContent()), failed.size - [...expected.values()].reduce((sum, count) => sum + count, 0));
    assert.equal(await alice.locator("#chart-root-causes[data-drawn=yes] canvas").count() > 0, true);
    // Each label's meaning in English first, then the seed's Chinese (004 §十) after it and as the title.
    for (const label of ROOT_CAUSE_LABEL_NAMES) {
      const cell = alice.locator(`#root-causes tr[data-root-cause="${label}"] td.meaning`);
      const english = (await cell.locator(".root-cause-meaning").textContent()) ?? "";
      assert.match(english, /^[\x20-\x7e]{8,}$/, `${label} has an English meaning`);
      if (label in QUALITY_ROOT_CAUSE_LABELS) {
        const seed = QUALITY_ROOT_CAUSE_LABELS[label as keyof typeof QUALITY_ROOT_CAUSE_LABELS];
        assert.equal(await cell.textContent(), `${english} (${seed})`, label);
        assert.equal(await cell.locator(".root-cause-meaning").getAttribute("title"), `Seed 004 §十: ${seed}`, label);
      } else assert.equal(await cell.textContent(), english, `${label} is no label of the seed: English only`);
    }
    // Translations checked against the seed's wording by hand (seed 004 §十: 未召回正确文档, 生成无依据内容, 有答案却拒答).
    assert.equal(await alice.locator('#root-causes tr[data-root-cause="RETRIEVAL_MISS"] td.meaning').textContent(), "The correct evidence was not retrieved (未召回正确文档)");
    assert.equal(await alice.locator('#root-causes tr[data-root-cause="HALLUCINATION"] td.meaning').textContent(), "Generated content without support (生成无依据内容)");
    assert.equal(await alice.locator('#root-causes tr[data-root-cause="OVER_ABSTAIN"] td.meaning').textContent(), "Refused although an answer existed (有答案却拒答)");
    await alice.screenshot({ path: path.join(outputFolder, "ui-failures.png"), fullPage: true });

    const [top, count] = [...expected.entries()].sort((first, second) => second[1] - first[1])[0]!;
    await Promise.all([alice.waitForURL(/\/traces\?/), alice.locator(`#root-causes tr[data-root-cause="${top}"] a.drill-down`).click()]);
    const rows = alice.locator("#trace-rows tr");
    assert.equal(await rows.count(), count);
    assert.deepEqual(new Set(await alice.locator("#trace-rows tr td:nth-child(9)").allTextContents()), new Set([top]));
    const expectedIds = evalOutput.evaluation_results.filter((result) => result.evaluator_id === "root_cause" && failed.has(result.case_result_id) && result.reason.startsWith(`${top}:`)).map((result) => result.case_result_id);
    assert.deepEqual((await rows.evaluateAll((items) => items.map((item) => (item as unknown as { dataset: { caseResultId: string } }).dataset.caseResultId))).sort(), expectedIds.sort());

    // The trace's page says what its label means, as the board does.
    await Promise.all([alice.waitForURL(/\/traces\/./), rows.first().locator("td:nth-child(2) a").click()]);
    assert.equal(await alice.locator("#root-cause-label").textContent(), top);
    const english = (await alice.locator("#root-cause .root-cause-meaning").textContent()) ?? "";
    assert.match(english, /^[\x20-\x7e]{8,}$/, `${top} has an English meaning on the trace page`);
    if (top in QUALITY_ROOT_CAUSE_LABELS) assert.equal(await alice.locator("#root-cause .seed-wording").textContent(), `(${QUALITY_ROOT_CAUSE_LABELS[top as keyof typeof QUALITY_ROOT_CAUSE_LABELS]})`);
  });

  test("the traces list filters by a metric below a threshold, typed into the form", async () => {
    const recall = new Map<string, number>();
    for (const result of evalOutput.evaluation_results) {
      const value = result.metric_values.context_recall;
      if (typeof value === "number" && !recall.has(result.case_result_id)) recall.set(result.case_result_id, value);
    }
    const expected = [...recall].filter(([, value]) => value < 0.5).map(([id]) => id).sort();
    assert.ok(expected.length > 0 && expected.length < recall.size, "some cases recall less than half of the gold evidence, some more");
    await alice.goto(`${uiUrl}/traces?run=${RUN}&limit=200`);
    await alice.fill("input[name=metric]", "context_recall");
    await alice.fill("input[name=below]", "0.5");
    await Promise.all([alice.waitForURL(/below=0\.5/), alice.click("form.filters button")]);
    const shown = await alice.locator("#trace-rows tr").evaluateAll((items) => items.map((item) => (item as unknown as { dataset: { caseResultId: string } }).dataset.caseResultId));
    assert.deepEqual(shown.sort(), expected);
    const missingBound = await fetch(`${uiUrl}/api/traces?metric=context_recall`, { headers: { authorization: `Bearer ${ALICE}` } });
    assert.equal(missingBound.status, 400);
    assert.match(((await missingBound.json()) as { error: string }).error, /needs a bound/);
    const notANumber = await fetch(`${uiUrl}/api/traces?metric=context_recall&below=half`, { headers: { authorization: `Bearer ${ALICE}` } });
    assert.equal(notANumber.status, 400);
  });

  test("a trace page names a heuristic rule's metric so beside its value, an exact rule's not", async () => {
    const measured = evalOutput.evaluation_results.find((result) => result.evaluator_id === "answer.completeness" && typeof result.metric_values.completeness === "number");
    assert.ok(measured, "the example run measured completeness");
    await alice.goto(`${uiUrl}/traces/${measured.case_result_id}`);
    const values = (await alice.locator("#evaluations td.values").allTextContents()).join(" ");
    assert.match(values, /completeness \(heuristic\)=\d/);
    assert.doesNotMatch(values, /(^|[^_])completeness=/);
    assert.match(values, /(^|\s)latency_ms=\d/);
  });

  test("no console errors", () => {
    assert.deepEqual(consoleErrors, []);
  });

  test("two reviewers pass a failed case: the UI shows it passed (human) and the Failures page no longer counts it", async () => {
    reviewedCase = evalOutput.case_results.find((item) => item.quality_status === "failed")!.case_result_id;
    for (const reviewer of [alice, bob]) {
      await reviewer.goto(`${uiUrl}/review/${reviewedCase}`);
      const radios = reviewer.locator("#review-form input[type=radio][value=pass]");
      assert.ok((await radios.count()) > 0, "the case's decided metrics are offered for labels");
      for (let index = 0; index < (await radios.count()); index += 1) await radios.nth(index).check();
      await Promise.all([reviewer.waitForNavigation(), reviewer.click("#save-labels")]);
      assert.equal(await reviewer.locator("#message.notice").textContent(), "Saved.");
    }
    await alice.goto(`${uiUrl}/traces/${reviewedCase}`);
    assert.equal(await alice.locator("#verdict .verdict").getAttribute("data-verdict"), "passed");
    assert.equal(await alice.locator("#verdict .verdict").getAttribute("data-human"), "yes");
    await alice.goto(`${uiUrl}/failures?run=${RUN}`);
    const failed = evalOutput.case_results.filter((item) => item.quality_status === "failed").length;
    assert.equal(await alice.locator("#failing-total").textContent(), String(failed - 1));
    await alice.goto(`${uiUrl}/traces?run=${RUN}&verdict=failed&limit=200`);
    assert.equal(await alice.locator(`#trace-rows tr[data-case-result-id="${reviewedCase}"]`).count(), 0, "the verdict filter uses the final verdict");
  });

  test("serve stops cleanly", async () => {
    child.kill("SIGTERM");
    assert.equal(await exited, 0, serve.output());
  });

  test("after the review, ragscope gate and ragscope report count the case as passed, marked as decided by human review", async () => {
    const before = gateVerdicts(gateBefore);
    assert.equal(before.reviewed, 0);
    const gate = await run(["gate", "--run", RUN, "--data-dir", dataDir]);
    assert.ok(gate.status === 0 || gate.status === 1, gate.stderr);
    assert.deepEqual(gateVerdicts(gate.stdout), { passed: before.passed + 1, failed: before.failed - 1, reviewed: 1 });
    const report = await run(["report", "--data-dir", dataDir, "--out", path.join(folder, "report.html")]);
    assert.equal(report.status, 0, report.stderr);
    const verdicts = /Verdicts over the range: Passed \(judged\) (\d+) · Failed (\d+)/.exec(report.stdout);
    assert.ok(verdicts, report.stdout);
    assert.deepEqual([Number(verdicts[1]), Number(verdicts[2])], [before.passed + 1, before.failed - 1]);
  });
});
