/**
 * `ragscope report` end to end on the embedded default: a seeded data folder,
 * the real command line in a child process, then the HTML file opened in
 * headless Chromium (Debian's chromium, driven by playwright-core): no
 * console errors, every chart drawn, the legend works, and a screenshot is
 * written to test-output/report-html.png.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { openClickHouse } from "../../store/clickhouse/clickhouse-connection.js";
import { runMigrations } from "../../store/clickhouse/run-migrations.js";
import { CANDIDATE_RUN, ROOT_CAUSES, seedDashboardDataset } from "../integration/dashboards/dashboard-dataset.js";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const chromiumPath = process.env.RAGSCOPE_CHROMIUM ?? "/usr/bin/chromium";
const screenshot = path.join(projectRoot, "test-output", "report-html.png");

// The launch flags that work in this sandbox (no GPU, no network services).
const CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

let folder: string;
let reportFile: string;
let command: { code: number; stdout: string; stderr: string };
let context: BrowserContext;
let page: Page;
const consoleErrors: string[] = [];

/** The little of the DOM the in-page checks use (the project compiles without the DOM library). */
interface PageElement {
  querySelector(selector: string): PageElement | null;
  querySelectorAll(selector: string): ArrayLike<PageElement>;
  getBoundingClientRect(): { width: number };
  getBBox(): { width: number; height: number };
  firstChild: { textContent: string | null } | null;
}
interface PageWindow {
  document: PageElement;
  getComputedStyle(element: PageElement): { display: string };
}

function runCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(projectRoot, "bin/ragscope.js"), ...args], { cwd: projectRoot, env: { ...process.env, RAGSCOPE_CLICKHOUSE_URL: "" }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("exit", (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

before(async () => {
  assert.ok(existsSync(chromiumPath), `Chromium is needed at ${chromiumPath} (Debian package chromium; .ci/run installs it)`);
  folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-report-"));
  const dataDir = path.join(folder, "chdb");
  const connection = await openClickHouse({ url: null, username: "default", password: "", database: "ragscope", dataPath: dataDir });
  await runMigrations(connection);
  await seedDashboardDataset(connection);
  await connection.close();
  reportFile = path.join(folder, "report.html");
  command = await runCli(["report", "--data-dir", dataDir, "--out", reportFile, "--trace-url", "http://traces.example/trace/{trace_id}"]);
  context = await chromium.launchPersistentContext(path.join(folder, "chromium-profile"), {
    executablePath: chromiumPath,
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport: { width: 1400, height: 1000 },
  });
  page = context.pages()[0] ?? (await context.newPage());
  page.on("console", (message) => {
    if (message.type() === "error") consoleErrors.push(message.text());
  });
  page.on("pageerror", (error) => consoleErrors.push(error.message));
  await page.goto(pathToFileURL(reportFile).href, { waitUntil: "load" });
});

after(async () => {
  await context?.close();
  await rm(folder, { recursive: true, force: true });
});

describe("ragscope report", () => {
  test("the command writes the report and prints the headline numbers", () => {
    assert.equal(command.code, 0, command.stderr);
    // Each mean with the values it averages (rate-basis.ts), the complete requests after the means.
    assert.match(command.stdout, /Retrieval: means over the range: Hit@1 \d+(\.\d)?% \(of \d+ values\) · Recall@5 .* · Complete requests 144\n/);
    assert.match(command.stdout, /Traffic, reliability, latency and cost: Requests 144 /);
    assert.match(command.stdout, /Cases that flipped: [1-9]\d* rows/);
    assert.ok(command.stdout.includes(`Report written to ${reportFile}`));
  });

  test("the page opens without console errors", () => {
    assert.deepEqual(consoleErrors, []);
  });

  test("every dashboard is shown and every panel has data", async () => {
    const sections = await page.locator("section.dashboard h2").allTextContents();
    assert.deepEqual(sections, ["ragscope — RAG quality", "ragscope — Failures", "ragscope — Runs", "ragscope — Collector health", "Business — user behaviour"]);
    assert.equal(await page.locator("p.note").count(), 0, "no dashboard was skipped");
    const empty = await page.locator('figure.panel[data-empty="true"] figcaption').allTextContents();
    assert.deepEqual(empty, [], `panels without data: ${empty.join(", ")}`);
    assert.ok(await page.locator("h3.row", { hasText: `Baseline run-baseline · candidate ${CANDIDATE_RUN}` }).count() === 1);
  });

  test("every chart is drawn: an SVG with visible marks", async () => {
    const charts = await page.evaluate(() =>
      Array.from((globalThis as unknown as PageWindow).document.querySelectorAll('figure[data-panel-type="timeseries"], figure[data-panel-type="barchart"]')).map((figure) => {
        const svg = figure.querySelector("svg.chart");
        const marks = svg ? Array.from(svg.querySelectorAll(".mark")) : [];
        const visible = marks.filter((mark) => {
          const box = mark.getBBox();
          return box.width > 0 || box.height > 0;
        });
        return { title: figure.querySelector("figcaption")?.firstChild?.textContent ?? "", width: svg?.getBoundingClientRect().width ?? 0, marks: marks.length, visible: visible.length };
      }),
    );
    assert.ok(charts.length >= 20, `only ${charts.length} charts`);
    for (const chart of charts) {
      assert.ok(chart.width > 100, `${chart.title}: the chart has no width`);
      assert.ok(chart.visible > 0, `${chart.title}: ${chart.marks} marks, none visible`);
    }
  });

  test("clicking a legend entry hides that series", async () => {
    const figure = page.locator('figure[data-panel-type="timeseries"]').first();
    const series = figure.locator('svg [data-series="0"]').first();
    await figure.locator('ul.legend li[data-series="0"]').click();
    const display = (mark: unknown) => (globalThis as unknown as PageWindow).getComputedStyle(mark as PageElement).display;
    assert.equal(await series.evaluate(display), "none");
    await figure.locator('ul.legend li[data-series="0"]').click();
    assert.notEqual(await series.evaluate(display), "none");
  });

  test("trace ids link to the trace viewer template", async () => {
    const href = await page.locator('figure:has(figcaption:text-is("Failing cases")) td a').first().getAttribute("href");
    assert.match(href ?? "", /^http:\/\/traces\.example\/trace\/[0-9a-f]{32}$/);
  });

  test("the Failures board says what its root-cause labels mean: English first, the seed's Chinese after it", async () => {
    const glossary = page.locator('section#ragscope-failures section[data-glossary="root-causes"]');
    assert.equal(await glossary.count(), 1);
    const shown = await glossary.locator("dd").evaluateAll((items) => items.map((item) => (item as unknown as { dataset: { rootCause: string } }).dataset.rootCause));
    assert.deepEqual([...shown].sort(), [...ROOT_CAUSES].sort(), "the labels the board shows, each once");
    // Translations checked against seed 004 §十 by hand: 未召回正确文档, 生成无依据内容, 关键证据被截断, 引用错误.
    const expected: Record<string, string> = {
      RETRIEVAL_MISS: "The correct evidence was not retrieved (未召回正确文档)",
      HALLUCINATION: "Generated content without support (生成无依据内容)",
      CONTEXT_TRUNCATED: "Key evidence was cut off (关键证据被截断)",
      CITATION_ERROR: "Wrong citation (引用错误)",
    };
    for (const label of ROOT_CAUSES) {
      const entry = glossary.locator(`dd[data-root-cause="${label}"]`);
      assert.equal(await entry.textContent(), expected[label], label);
      assert.equal(await entry.getAttribute("title"), `Seed 004 §十: ${/\((.+)\)$/.exec(expected[label]!)![1]}`, label);
    }
  });

  test("a screenshot of the whole report is written", async () => {
    await mkdir(path.dirname(screenshot), { recursive: true });
    await page.screenshot({ path: screenshot, fullPage: true });
    assert.ok((await stat(screenshot)).size > 10_000);
  });
});
