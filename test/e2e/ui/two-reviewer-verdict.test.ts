/**
 * A human review decides a case only once two reviewers agree
 * (evaluators/reviewed-verdict.ts REVIEWERS_PER_CASE; seed 004 §九.4 双人独立标注),
 * end to end as users meet it: `ragscope eval` (a subprocess) over
 * test/e2e/ui/data/two-reviewers.yaml — one case whose ranking lists chunk
 * refund-1 twice (three retrieval evaluations error: review_required), one
 * failed, one passed — then `ragscope serve` with its UI and two reviewer
 * tokens (a subprocess), Debian's Chromium for alice, real HTTP form posts and
 * a JSONL import for bob, and `ragscope gate` / `ragscope report` (subprocesses)
 * reading the verdicts from the data folder after each serve stops.
 *
 * Checked:
 * - the review form offers the metrics whose evaluations errored (what sent the
 *   case to review), beside the decided ones and the heuristic judge's;
 * - a pass of part of the metrics is refused with the form shown again, the
 *   reviewer's choices kept and the reason said;
 * - one reviewer's complete pass of the failed case changes no verdict: the
 *   UI shows the automatic one (hers as pending, to her only), the gate
 *   counts no case decided by review, the report's rollups the same counts;
 * - the second reviewer's agreeing pass decides it: the gate counts it passed,
 *   "1 decided by human review", and the report's rollups too; the case whose
 *   reviewers disagree keeps its automatic verdict;
 * - a JSONL line without labeled_at is imported.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { chromium, type Browser, type Page } from "playwright-core";
import { startServeWithUi, type ServeWithUi } from "../../support/serve-with-ui.js";
import { projectRoot, runRagscope } from "../experiments/support/run-ragscope.js";
import { signIn } from "../../support/sign-in.js";

const chromiumPath = process.env.RAGSCOPE_CHROMIUM ?? "/usr/bin/chromium";
const CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const ALICE = "alice-token-0123456789abcdef";
const BOB = "bob-token-0123456789abcdef00";
const TOKENS = `alice=${ALICE},bob=${BOB}`;
const RUN = "two-reviewers-run";
const DATASET = path.join(projectRoot, "test/e2e/ui/data/two-reviewers.yaml");
const TASK = path.join(projectRoot, "test/e2e/ui/tasks/listed-chunks-task.ts");
const ENVIRONMENT = { RAGSCOPE_CLICKHOUSE_URL: "" };

interface EvalOutput {
  case_results: { case_result_id: string; case_id: string; quality_status: string }[];
}

/** The gate's "Case verdicts:" line as numbers. */
function gateVerdicts(stdout: string): { passed: number; failed: number; review: number; reviewed: number } {
  const match = /Case verdicts: (\d+) passed \(judged\), (\d+) failed, (\d+) need review, .*; (\d+) decided by human review/.exec(stdout);
  assert.ok(match, stdout);
  return { passed: Number(match[1]), failed: Number(match[2]), review: Number(match[3]), reviewed: Number(match[4]) };
}

/** The report's verdict counts over the range (the dashboards' request rollups). */
function reportVerdicts(stdout: string): { passed: number; failed: number; review: number } {
  const match = /Verdicts over the range: Passed \(judged\) (\d+) · Failed (\d+) · Needs review (\d+)/.exec(stdout);
  assert.ok(match, stdout);
  return { passed: Number(match[1]), failed: Number(match[2]), review: Number(match[3]) };
}

let folder: string;
let dataDir: string;
let listedTwice = "";
let failedCase = "";
let serve: ServeWithUi | null = null;
let browser: Browser;
const consoleErrors: string[] = [];

async function startServe(): Promise<ServeWithUi> {
  serve = await startServeWithUi(dataDir, { ...ENVIRONMENT, RAGSCOPE_UI_TOKENS: TOKENS });
  return serve;
}

async function stopServe(): Promise<void> {
  serve!.child.kill("SIGTERM");
  assert.equal(await serve!.exited, 0, serve!.output());
  serve = null;
}

/** Runs `steps` with serve up, and stops it whatever they do: the next test's subprocesses open the data folder. */
async function withServe(steps: (uiUrl: string) => Promise<void>): Promise<void> {
  const { uiUrl } = await startServe();
  try {
    await steps(uiUrl);
  } finally {
    await stopServe();
  }
}

async function alicePage(uiUrl: string): Promise<Page> {
  const page = await (await browser.newContext({ viewport: { width: 1400, height: 1000 } })).newPage();
  page.on("console", (message) => {
    // The refused partial pass answers 400 (with the form again) on purpose; Chromium logs any 4xx page load.
    // The form posts for the request it shows: `/review/<id>?trace=<its trace id>`.
    const refusedReview = message.location().url !== "" && new URL(message.location().url).pathname === `/review/${listedTwice}` && message.text().includes("status of 400");
    if (message.type() === "error" && !refusedReview) consoleErrors.push(message.text());
  });
  page.on("pageerror", (error) => consoleErrors.push(error.message));
  await signIn(page, `${uiUrl}/traces`, ALICE);
  return page;
}

/** The metrics a review form offers, as a reviewer's browser reads them from the page's radios. */
async function offeredMetrics(uiUrl: string, token: string, caseResultId: string): Promise<string[]> {
  const page = await (await fetch(`${uiUrl}/review/${caseResultId}`, { headers: { authorization: `Bearer ${token}` } })).text();
  return [...new Set([...page.matchAll(/name="metric:([^"]+)"/g)].map((match) => match[1]!))].sort();
}

/** A review form posted as a browser posts it (application/x-www-form-urlencoded), with a reviewer's token. */
function postReview(uiUrl: string, token: string, caseResultId: string, fields: Record<string, string>): Promise<Response> {
  return fetch(`${uiUrl}/review/${caseResultId}`, { method: "POST", redirect: "manual", headers: { authorization: `Bearer ${token}`, "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(fields).toString() });
}

let gateBefore: ReturnType<typeof gateVerdicts>;

before(async () => {
  assert.ok(existsSync(chromiumPath), `Chromium is needed at ${chromiumPath} (Debian package chromium)`);
  folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-two-reviewers-"));
  dataDir = path.join(folder, "chdb");
  const evaluated = await runRagscope(["eval", "--dataset", DATASET, "--task", TASK, "--run-id", RUN, "--data-dir", dataDir, "--output", path.join(folder, "results.json")], ENVIRONMENT);
  // Errored evaluations leave the release gate undecided (exit 2): an errored evaluation is never a pass.
  assert.equal(evaluated.status, 2, evaluated.stdout + evaluated.stderr);
  const output = JSON.parse(await readFile(path.join(folder, "results.json"), "utf8")) as EvalOutput;
  const caseOf = (caseId: string) => output.case_results.find((item) => item.case_id === caseId)!;
  assert.equal(caseOf("refund_listed_twice").quality_status, "review_required");
  assert.equal(caseOf("warranty_missed").quality_status, "failed");
  assert.equal(caseOf("shipping_found").quality_status, "passed");
  listedTwice = caseOf("refund_listed_twice").case_result_id;
  failedCase = caseOf("warranty_missed").case_result_id;
  const gate = await runRagscope(["gate", "--run", RUN, "--data-dir", dataDir], ENVIRONMENT);
  assert.equal(gate.status, 2, gate.stdout + gate.stderr);
  gateBefore = gateVerdicts(gate.stdout);
  assert.deepEqual(gateBefore, { passed: 1, failed: 1, review: 1, reviewed: 0 });
  browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: CHROMIUM_FLAGS });
});

after(async () => {
  await browser?.close();
  if (serve !== null && serve.child.exitCode === null) serve.child.kill("SIGKILL");
  await rm(folder, { recursive: true, force: true });
});

describe("a review decides a case only once two reviewers agree", () => {
  test("alice alone: the form offers the errored metrics, refuses a partial pass keeping her choices, and her complete passes stay pending", async () => {
    await withServe(async (uiUrl) => {
      const alice = await alicePage(uiUrl);

      // The evaluations that errored on "lists chunk refund-1 twice" are what sent the case to review: they are offered,
      // beside the decided answer.abstention and online.sensitive_data and the heuristic judge's faithfulness.
      await alice.goto(`${uiUrl}/review/${listedTwice}`);
      const offered = (await alice.locator("#review-form tr th").allTextContents()).sort();
      assert.deepEqual(offered, ["answer.abstention", "faithfulness", "online.sensitive_data", "retrieval.coverage", "retrieval.ranking", "retrieval.uplift"]);

      // A pass of one metric of six: refused, and the form comes back with her choices and the reason.
      await alice.getByRole("radio", { name: "retrieval.ranking: pass" }).check();
      await alice.selectOption("select[name=root_cause]", "CHUNK_BAD");
      await alice.fill("textarea[name=comment]", "the duplicate is the retriever's, the answer is right");
      const [refused] = await Promise.all([alice.waitForResponse((response) => response.request().method() === "POST" && new URL(response.url()).pathname === `/review/${listedTwice}`), alice.click("#save-labels")]);
      assert.equal(refused.status(), 400);
      await alice.waitForSelector("#error");
      const reason = (await alice.locator("#error").textContent()) ?? "";
      const missing = /: ([\w., ]+) have no label of yours yet/.exec(reason);
      assert.ok(missing, reason);
      assert.deepEqual(missing[1]!.split(", ").sort(), ["answer.abstention", "faithfulness", "online.sensitive_data", "retrieval.coverage", "retrieval.uplift"]);
      assert.equal(await alice.getByRole("radio", { name: "retrieval.ranking: pass" }).isChecked(), true, "her choice is kept");
      assert.equal(await alice.locator("select[name=root_cause]").inputValue(), "CHUNK_BAD");
      assert.equal(await alice.locator("textarea[name=comment]").inputValue(), "the duplicate is the retriever's, the answer is right");
      assert.equal(await alice.locator("#review-form").count(), 1, "the form is there to finish the review");
      const stored = (await (await fetch(`${uiUrl}/api/traces/${listedTwice}`, { headers: { authorization: `Bearer ${ALICE}` } })).json()) as { humanVerdict: unknown };
      assert.equal(stored.humanVerdict, null, "nothing was saved");

      // She passes the rest on the same form: saved.
      const passes = alice.locator("#review-form input[type=radio][value=pass]");
      for (let index = 0; index < (await passes.count()); index += 1) await passes.nth(index).check();
      await Promise.all([alice.waitForNavigation(), alice.click("#save-labels")]);
      assert.equal(await alice.locator("#message.notice").textContent(), "Saved.");

      // And passes every metric of the failed case.
      await alice.goto(`${uiUrl}/review/${failedCase}`);
      const failedPasses = alice.locator("#review-form input[type=radio][value=pass]");
      assert.ok((await failedPasses.count()) > 0);
      for (let index = 0; index < (await failedPasses.count()); index += 1) await failedPasses.nth(index).check();
      await Promise.all([alice.waitForNavigation(), alice.click("#save-labels")]);
      assert.equal(await alice.locator("#message.notice").textContent(), "Saved.");

      // One reviewer of two: the automatic verdicts stay, hers shown to her as pending.
      await alice.goto(`${uiUrl}/review`);
      // The export link and the import form share one line: a form inside a <p> closes it, which left the
      // separator dangling and the form on a line of its own.
      const exportLink = alice.locator("a[href='/api/labels.jsonl']");
      assert.equal(await exportLink.evaluate((link) => link.parentElement?.querySelector("form[action='/review/import']") !== null), true);
      const row = alice.locator(`#queue tr[data-case-result-id="${listedTwice}"]`);
      assert.equal(await row.locator(".verdict").getAttribute("data-verdict"), "review_required");
      assert.equal(await row.locator(".verdict").getAttribute("data-human"), "no");
      assert.equal(await row.locator("[data-pending-verdict]").getAttribute("data-pending-verdict"), "passed");
      assert.deepEqual((await row.locator("td").allTextContents()).slice(4, 6), ["1 of 2", "labelled"]);
      await alice.goto(`${uiUrl}/traces/${failedCase}`);
      assert.equal(await alice.locator("#verdict .verdict").getAttribute("data-verdict"), "failed");
      assert.equal(await alice.locator("#verdict .verdict").getAttribute("data-human"), "no");
      assert.match((await alice.locator("#verdict").textContent()) ?? "", /review pending: 1 of 2 reviewers/);

      // Bob's queue: the case to do, and nothing of alice's verdict (the review is blind).
      const bobsQueue = await (await fetch(`${uiUrl}/review`, { headers: { authorization: `Bearer ${BOB}` } })).text();
      assert.match(bobsQueue, new RegExp(`<tr data-case-result-id="${listedTwice}">.*?data-verdict="review_required" data-human="no">.*?<td>1 of 2</td><td>to do</td>`, "s"));
      assert.doesNotMatch(bobsQueue, /data-pending-verdict/);
    });
  });

  test("after alice alone, ragscope gate and ragscope report count the automatic verdicts: no case decided by review", async () => {
    const gate = await runRagscope(["gate", "--run", RUN, "--data-dir", dataDir], ENVIRONMENT);
    assert.equal(gate.status, 2, gate.stdout + gate.stderr);
    assert.deepEqual(gateVerdicts(gate.stdout), gateBefore);
    const report = await runRagscope(["report", "--data-dir", dataDir, "--out", path.join(folder, "report-one.html")], ENVIRONMENT);
    assert.equal(report.status, 0, report.stderr);
    assert.deepEqual(reportVerdicts(report.stdout), { passed: 1, failed: 1, review: 1 });
  });

  test("bob agrees on the failed case (form posts) and disagrees on the other (a JSONL line without labeled_at)", async () => {
    await withServe(async (uiUrl) => {
      const metrics = await offeredMetrics(uiUrl, BOB, failedCase);
      assert.ok(metrics.includes("retrieval.ranking"), metrics.join(", "));
      const saved = await postReview(uiUrl, BOB, failedCase, { ...Object.fromEntries(metrics.map((metric) => [`metric:${metric}`, "pass"])), root_cause: "", comment: "abstaining was right" });
      assert.equal(saved.status, 303, await saved.text());
      const imported = await fetch(`${uiUrl}/api/labels.jsonl`, { method: "POST", headers: { authorization: `Bearer ${BOB}`, "content-type": "application/x-ndjson" }, body: JSON.stringify({ case_result_id: listedTwice, metric: "retrieval.ranking", verdict: "fail" }) + "\n" });
      assert.equal(imported.status, 200, await imported.text());
      const queue = (await (await fetch(`${uiUrl}/api/review`, { headers: { authorization: `Bearer ${BOB}` } })).json()) as { items: { caseResultId: string; reviewers: number; human: { verdict: string | null; state: string } | null }[] };
      const item = queue.items.find((entry) => entry.caseResultId === listedTwice)!;
      assert.deepEqual([item.reviewers, item.human?.verdict, item.human?.state], [2, null, "disagreed"]);
    });
  });

  test("with two agreeing reviewers ragscope gate counts the failed case passed, decided by human review, and the report's rollups too", async () => {
    const gate = await runRagscope(["gate", "--run", RUN, "--data-dir", dataDir], ENVIRONMENT);
    assert.equal(gate.status, 2, gate.stdout + gate.stderr);
    // warranty_missed: failed → passed by alice and bob; refund_listed_twice: they disagree, review_required stays.
    assert.deepEqual(gateVerdicts(gate.stdout), { passed: 2, failed: 0, review: 1, reviewed: 1 });
    const report = await runRagscope(["report", "--data-dir", dataDir, "--out", path.join(folder, "report-two.html")], ENVIRONMENT);
    assert.equal(report.status, 0, report.stderr);
    assert.deepEqual(reportVerdicts(report.stdout), { passed: 2, failed: 0, review: 1 });
  });

  test("no console errors", () => {
    assert.deepEqual(consoleErrors, []);
  });
});
