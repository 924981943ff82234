/**
 * `ragscope report` shows what was measured, and nothing that was not
 * (bin/ragscope.js as a subprocess, the HTML file read back in Debian's
 * Chromium, which parses it):
 * - user-behaviour rates are "no data" when no request of the range carries
 *   a user event (or, for the repeated-question rate, a session id) — not
 *   0.0 %; once one request carries an event, the definitions' denominators
 *   apply and 0.0 % is a real 0 (evaluators/behaviour/README.md);
 * - a small measured value keeps its significant digits: a cost of 0.002 is
 *   not "0";
 * - the Runs board counts cases, not evaluations, and its 0–1 score chart
 *   leaves out the cost and token metrics, the judge's included.
 *
 * The store, written through the store's own write port (values by hand):
 *   run r_base: 5 cases c1–c5, one request a minute from T0, no user event,
 *     no session id; each with cost 0.002 (performance.usage) and three judge
 *     evaluations (faithfulness, answer_relevance, answer_correctness = 1),
 *     each recording judge_input_tokens 0, judge_output_tokens 0 and
 *     judge_cost 0.0003 — 15 calls on 5 cases, a case's judge cost their
 *     sum, 0.0009;
 *   run r_cand: the same 5 cases from T0 + 10 min, cost 0.00027 each, and c1
 *     got a thumbs_down one minute after its answer.
 * Worked by hand:
 *   r_base: every behaviour metric no data; cost per request 0.002.
 *   r_cand: like 0/5 = 0.0 %, dislike 1/5 = 20.0 %, copy 0.0 %, handoff 0.0 %,
 *     citation clicks no data (no answer cited anything), sessions resolved
 *     and first-contact no data (no request has a session id: no session to
 *     count — a request without one is no session of its own), follow-up 0/5,
 *     repeated question no data (no session id), abandonment no data (a
 *     per-session rate too: no session to count; it used to read 4/5, c2–c5
 *     silent for days taken as sessions of their own), satisfaction no
 *     data (no rating); cost per request 0.00027.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import { measured, plannedCaseResult, writeToFolder } from "../support/stored-requests.js";
import { barCategories, tableRows } from "../support/report-panels.js";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const ragscope = path.join(projectRoot, "bin/ragscope.js");
const chromiumPath = process.env.RAGSCOPE_CHROMIUM ?? "/usr/bin/chromium";
const CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const MINUTE = 60_000;
// Two days back, so every abandonment window has long passed when the report runs.
const T0 = Math.floor((Date.now() - 2 * 86_400_000) / MINUTE) * MINUTE;
const JUDGED = ["faithfulness", "answer_relevance", "answer_correctness"];
const BEHAVIOUR_METRICS = ["like_rate", "dislike_rate", "follow_up_rate", "repeated_question_rate", "copy_rate", "citation_click_rate", "handoff_rate", "session_resolution_rate", "abandonment_rate", "first_contact_resolution", "satisfaction"];

let folder: string;
let dataDir: string;
let browser: Browser;

interface Reported {
  stdout: string;
  page: Page;
}
const reports = new Map<string, Reported>();

function requestsOf(runId: string, startMinute: number, cost: number, thumbsDownOnFirst: boolean) {
  return [1, 2, 3, 4, 5].map((index) => {
    const caseResultId = `cr_${runId}_c${index}`;
    const startedAtMs = T0 + (startMinute + index - 1) * MINUTE;
    const feedback = thumbsDownOnFirst && index === 1 ? [{ kind: "thumbs_down", recorded_at: new Date(startedAtMs + MINUTE).toISOString() }] : [];
    const evaluatedAt = startedAtMs + 5_000;
    return {
      caseResult: plannedCaseResult({ caseResultId, traceId: `${runId === "r_base" ? "a" : "b"}${index}`.padStart(32, "0"), runId, caseId: `c${index}`, startedAtMs, feedback }),
      evaluationResults: [
        measured(caseResultId, "performance.usage", { cost }, evaluatedAt),
        ...JUDGED.map((metric) => measured(caseResultId, `judge.${metric}`, { [metric]: 1, judge_input_tokens: 0, judge_output_tokens: 0, judge_cost: 0.0003 }, evaluatedAt)),
      ],
    };
  });
}

async function report(name: string, args: string[]): Promise<void> {
  const out = path.join(folder, `${name}.html`);
  const child = spawnSync(process.execPath, [ragscope, "report", "--data-dir", dataDir, "--out", out, ...args], { cwd: projectRoot, encoding: "utf8", env: { ...process.env, RAGSCOPE_CONFIG: "", RAGSCOPE_CLICKHOUSE_URL: "" } });
  assert.equal(child.status, 0, child.stderr);
  const page = await browser.newPage();
  await page.goto(pathToFileURL(out).href, { waitUntil: "load" });
  reports.set(name, { stdout: child.stdout, page });
}

/** The headline line of a stat panel, as printed. */
function printed(stdout: string, title: string): string {
  const line = stdout.split("\n").find((text) => text.startsWith(`  ${title}: `));
  assert.ok(line, `no line "${title}" in:\n${stdout}`);
  return line.slice(`  ${title}: `.length);
}

/** metric → data-value of the report's behaviour table ("" = no data). */
async function behaviourValues(page: Page): Promise<Record<string, string>> {
  const rows = page.locator("#behaviour tr[data-behaviour]");
  const values: Record<string, string> = {};
  for (let index = 0; index < (await rows.count()); index += 1) {
    const row = rows.nth(index);
    values[(await row.getAttribute("data-behaviour"))!] = (await row.locator("td[data-value]").getAttribute("data-value"))!;
  }
  return values;
}

before(async () => {
  assert.ok(existsSync(chromiumPath), `Chromium is needed at ${chromiumPath} (Debian package chromium)`);
  folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-report-values-"));
  dataDir = path.join(folder, "chdb");
  await writeToFolder(dataDir, [...requestsOf("r_base", 0, 0.002, false), ...requestsOf("r_cand", 10, 0.00027, true)]);
  browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: CHROMIUM_FLAGS });
  await report("base", ["--run", "r_base", "--baseline", "r_base", "--candidate", "r_cand"]);
  await report("candidate", ["--run", "r_cand"]);
});

after(async () => {
  await browser?.close();
  await rm(folder, { recursive: true, force: true });
});

describe("user behaviour: no data is not 0", () => {
  test("a run without any user event or session id: every behaviour rate is no data, in the dashboards' panels and the behaviour table", async () => {
    const { stdout, page } = reports.get("base")!;
    // The request rates' panels probe their events, the session rates' panels the events of their sessions (migration 0025).
    assert.equal(printed(stdout, "User behaviour over the range"), "Like rate no data · Dislike rate no data (5 requests; 0 with a thumbs) · Copy rate no data · Citation clicks no data (0 cited answers; 0 with a click) · Handoff rate no data · Sessions resolved no data · First-contact resolution no data");
    assert.match(printed(stdout, "Business: rates over the range"), /^Task success no data \(0 judged; 5 not judged\) · Dislike rate no data \(5 requests; 0 with a thumbs\) · Handoff rate no data · /);
    assert.match(printed(stdout, "Business: rates over the range"), / · First-contact resolution no data/);
    // The refusal rates count every stored abstention reading, a refusal phrase beside claims among them: named heuristics.
    assert.match(printed(stdout, "Boundaries: rates over the range"), /^No-answer detection \(heuristic\) .* · Correct refusals \(heuristic\) .* · False refusals \(heuristic\) /);
    const values = await behaviourValues(page);
    assert.deepEqual(Object.keys(values), BEHAVIOUR_METRICS);
    assert.deepEqual(Object.values(values), BEHAVIOUR_METRICS.map(() => ""), JSON.stringify(values));
    const cells = await page.locator('#behaviour tr[data-behaviour="like_rate"] td[data-value]').textContent();
    assert.equal(cells, "no data");
    const notes = await page.locator('#behaviour p[data-behaviour-evidence="missing"]').allTextContents();
    assert.ok(notes.some((note) => /No request of the range carries a reaction to its answer \(thumbs, copy, handoff, citation click or rating\): no data, not 0\. Metrics: Like rate, Dislike rate/.test(note)), notes.join("\n"));
    assert.ok(notes.some((note) => /carries a session id: .*Repeated-question rate/.test(note)), notes.join("\n"));
  });

  test("a run where one request carries an event: the definitions' denominators, 0.0 % where nothing happened", async () => {
    const { stdout, page } = reports.get("candidate")!;
    assert.equal(printed(stdout, "User behaviour over the range"), "Like rate 0.0% · Dislike rate 20.0% (of 5 requests; 1 with a thumbs) · Copy rate 0.0% · Citation clicks no data (0 cited answers; 0 with a click) · Handoff rate 0.0% · Sessions resolved no data · First-contact resolution no data");
    const values = await behaviourValues(page);
    assert.deepEqual(values, {
      like_rate: "0",
      dislike_rate: "0.2",
      follow_up_rate: "0",
      repeated_question_rate: "",
      copy_rate: "0",
      citation_click_rate: "",
      handoff_rate: "0",
      session_resolution_rate: "",
      abandonment_rate: "",
      first_contact_resolution: "",
      satisfaction: "",
    });
  });
});

describe("small values keep their digits", () => {
  test("cost per request 0.002 and 0.00027 read as such in the headline and the stat tile, not 0", async () => {
    for (const [name, expected] of [["base", "0.002"], ["candidate", "0.00027"]] as const) {
      const { stdout, page } = reports.get(name)!;
      // The mean says what it stands on: the requests that recorded a cost (all 5 of each run here).
      assert.match(printed(stdout, "Traffic, reliability, latency and cost"), new RegExp(`· Cost per request ${expected.replace(".", "\\.")} \\(of 5 values\\) ·`));
      const tile = page.locator("div.stat", { has: page.locator('div.name:text-is("Cost per request")') }).first();
      assert.equal(await tile.locator("div.value").textContent(), expected);
    }
  });
});

describe("the Runs board", () => {
  test("Metrics side by side counts cases apart from values, and a small mean keeps its digits", async () => {
    const rows = await tableRows(reports.get("base")!.page, "Metrics side by side");
    const row = (metric: string) => rows.find((candidate) => candidate.metric === metric)!;
    // Three judge evaluations of each of the 5 cases record their own call's cost (0.0003 each): a case's judge cost is
    // its three calls together, 0.0009, one value a case, as eval and gate count it (not the mean per call, 0.0003).
    assert.deepEqual([row("judge_cost").baseline_cases, row("judge_cost").baseline_values, row("judge_cost").candidate_cases, row("judge_cost").candidate_values], ["5", "5", "5", "5"]);
    assert.equal(row("judge_cost").baseline, "0.0009");
    assert.deepEqual([row("faithfulness").baseline_cases, row("faithfulness").baseline_values], ["5", "5"]);
    assert.deepEqual([row("cost").baseline, row("cost").candidate], ["0.002", "0.00027"]);
  });

  test("the 0–1 score chart shows the scores only: no cost, no judge tokens or cost", async () => {
    const categories = await barCategories(reports.get("base")!.page, "Scores, baseline vs candidate");
    assert.deepEqual(categories, ["answer_correctness", "answer_relevance", "faithfulness"]);
  });
});
