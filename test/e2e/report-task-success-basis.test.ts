/**
 * `ragscope report` says what task success stands on (bin/ragscope.js as a
 * subprocess on a store written through the collector's sink, the HTML file
 * read back in Debian's Chromium).
 *
 * Task success (seed 004 §六.1, evaluators/aggregate/task-success.ts) is over
 * the requests with a verdict, errors and timeouts included; requests nothing
 * was able to judge are left out. The store of a walkthrough:
 *   18 requests, one a minute: 14 completed, measured (a cost), quality_status
 *   unjudged — no judge looked; 4 whose request threw (execution_status
 *   failed, system_error), never evaluated.
 * Worked by hand from the definition: 0 passed of 4 with a verdict (the 4
 *   errors) = 0.0 %, a true 0 — but "Task success 0.0%" alone read as none of
 *   the 18 succeeding. Shown: 0.0% of 4 judged; 14 not judged.
 * A second store holds the 14 unjudged requests only: nothing has a verdict,
 *   so task success is no data (0 judged; 14 not judged), never 0.0 %.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium, type Browser } from "playwright-core";
import type { CaseResult } from "../../contracts/case-result.js";
import { measured, plannedCaseResult, writeToFolder } from "../support/stored-requests.js";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const ragscope = path.join(projectRoot, "bin/ragscope.js");
const chromiumPath = process.env.RAGSCOPE_CHROMIUM ?? "/usr/bin/chromium";
const CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const MINUTE = 60_000;
const T0 = Math.floor((Date.now() - 86_400_000) / MINUTE) * MINUTE;
const BUSINESS = "Business: rates over the range";

let folder: string;
let browser: Browser;

function unjudged(index: number) {
  const caseResultId = `cr_unjudged_${index}`;
  const startedAtMs = T0 + index * MINUTE;
  const caseResult: CaseResult = { ...plannedCaseResult({ caseResultId, traceId: `a${index}`.padStart(32, "0"), startedAtMs }), quality_status: "unjudged" };
  return { caseResult, evaluationResults: [measured(caseResultId, "performance.usage", { cost: 0.001 }, startedAtMs + 5_000)] };
}

function threw(index: number) {
  const caseResultId = `cr_threw_${index}`;
  const planned = plannedCaseResult({ caseResultId, traceId: `b${index}`.padStart(32, "0"), startedAtMs: T0 + (14 + index) * MINUTE });
  const caseResult: CaseResult = { ...planned, execution_status: "failed", output: null, execution_error: { type: "system_error", message: "the application threw" } };
  return { caseResult, evaluationResults: [] };
}

async function report(name: string, batch: ReturnType<typeof unjudged>[]): Promise<{ stdout: string; tiles: string[] }> {
  const dataDir = path.join(folder, name);
  await writeToFolder(dataDir, batch);
  const out = path.join(folder, `${name}.html`);
  const child = spawnSync(process.execPath, [ragscope, "report", "--data-dir", dataDir, "--out", out], { cwd: projectRoot, encoding: "utf8", env: { ...process.env, RAGSCOPE_CONFIG: "", RAGSCOPE_CLICKHOUSE_URL: "" } });
  assert.equal(child.status, 0, child.stdout + child.stderr);
  const page = await browser.newPage();
  await page.goto(pathToFileURL(out).href, { waitUntil: "load" });
  const figure = page.locator("figure.panel", { has: page.locator(`figcaption:text-is("${BUSINESS}")`) });
  const tiles = (await figure.locator("div.stat").allInnerTexts()).map((text) => text.replace(/\s+/g, " ").trim());
  await page.close();
  return { stdout: child.stdout, tiles };
}

function printed(stdout: string, title: string): string {
  const line = stdout.split("\n").find((text) => text.startsWith(`  ${title}: `));
  assert.ok(line, `no line "${title}" in:\n${stdout}`);
  return line.slice(`  ${title}: `.length);
}

const fourteenUnjudged = Array.from({ length: 14 }, (_, index) => unjudged(index));
const fourThrew = Array.from({ length: 4 }, (_, index) => threw(index));

before(async () => {
  assert.ok(existsSync(chromiumPath), `Chromium is needed at ${chromiumPath} (Debian package chromium)`);
  folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-task-success-basis-"));
  browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: CHROMIUM_FLAGS });
});

after(async () => {
  await browser?.close();
  await rm(folder, { recursive: true, force: true });
});

describe("task success says what it stands on", () => {
  test("14 unjudged and 4 that threw: 0.0% of the 4 judged, the 14 left out said", async () => {
    const { stdout, tiles } = await report("walkthrough", [...fourteenUnjudged, ...fourThrew]);
    assert.match(printed(stdout, BUSINESS), /^Task success 0\.0% \(of 4 judged; 14 not judged\) · Dislike rate no data \(18 requests; 0 with a thumbs\) · /);
    // The counts are the rate's basis, not rates of their own.
    assert.doesNotMatch(printed(stdout, BUSINESS), /Task success · /);
    assert.equal(tiles[0], "0.0% Task success of 4 judged; 14 not judged");
    assert.equal(tiles.filter((tile) => tile.includes("· judged")).length, 0);
  });

  test("nothing judged: task success is no data, with its counts, never 0.0%", async () => {
    const { stdout, tiles } = await report("unjudged-only", fourteenUnjudged);
    assert.match(printed(stdout, BUSINESS), /^Task success no data \(0 judged; 14 not judged\) · /);
    assert.equal(tiles[0], "no data Task success 0 judged; 14 not judged");
  });
});
