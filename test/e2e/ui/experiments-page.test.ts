/**
 * The Experiments page end to end. The simulated online stream of the
 * experiment acceptance test (test/support/simulated-experiment-stream.ts:
 * assignVariant, traceRequest, late user events over OTLP/HTTP into the
 * embedded collector) is stored in a data folder; `ragscope experiment report
 * --json` (a subprocess) prints each experiment's report; `ragscope serve`
 * opens the folder and Debian's Chromium (playwright-core) reads the pages.
 * Checked:
 * - the list names every stored experiment, and a tenant-limited token sees
 *   none of them (the requests carry no tenant), page and API alike;
 * - every number on the page — traffic, each metric's value per variant,
 *   difference, interval, p-value, minimum sample, verdict, sample ratio
 *   check, decisions, warnings (the SRM one), lineage — equals the CLI's
 *   JSON, and the JSON read API returns the CLI's report itself;
 * - the settings form recomputes (minimum effect), bad settings are a 400
 *   that says what to give;
 * - the seed's caution on citation clicks is on the page;
 * - no console errors. Screenshot: test-output/ui-experiments.png.
 * Both the CLI and the page count windows from their own clock; the
 * behaviour windows are 10–30 minutes, far longer than this test.
 */
import assert from "node:assert/strict";
import { spawnSync, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import type { ExperimentReport } from "../../../evaluators/experiments/experiment-report.js";
import { simulatedStreams, storeSimulatedStreams } from "../../support/simulated-experiment-stream.js";
import { startServeWithUi, type ServeWithUi } from "../../support/serve-with-ui.js";
import { signIn } from "../../support/sign-in.js";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const ragscope = path.join(projectRoot, "bin/ragscope.js");
const chromiumPath = process.env.RAGSCOPE_CHROMIUM ?? "/usr/bin/chromium";
const outputFolder = path.join(projectRoot, "test-output");
const CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const OPERATOR = "operator-token-0123456789abcdef";
const TENANT = "tenant-token-0123456789abcdef00";
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const CLUSTERED = simulatedStreams.clustered.experiment;
const MISMATCHED = simulatedStreams.srm.experiment;

let folder: string;
let dataDir: string;
let child: ChildProcess;
let serve: ServeWithUi;
let exited: Promise<number | null>;
let uiUrl: string;
let browser: Browser;
let operator: Page;
const cliReports = new Map<string, ExperimentReport>();
const consoleErrors: string[] = [];

function cliReport(experiment: string, extra: string[]): ExperimentReport {
  const run = spawnSync(process.execPath, [ragscope, "experiment", "report", "--id", experiment, "--data-dir", dataDir, "--json", ...extra], { cwd: projectRoot, encoding: "utf8", env: { ...process.env, RAGSCOPE_CONFIG: "", RAGSCOPE_CLICKHOUSE_URL: "" } });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout) as ExperimentReport;
}

async function api(token: string, pathAndQuery: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${uiUrl}${pathAndQuery}`, { headers: { Authorization: `Bearer ${token}` } });
  return { status: response.status, body: await response.json() };
}

const text = (value: number | null | undefined) => (value === null || value === undefined ? "" : String(value));

before(async () => {
  assert.ok(existsSync(chromiumPath), `Chromium is needed at ${chromiumPath} (Debian package chromium)`);
  await mkdir(outputFolder, { recursive: true });
  folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-ui-experiments-"));
  dataDir = path.join(folder, "chdb");
  await storeSimulatedStreams(dataDir);
  cliReports.set(`${CLUSTERED} default`, cliReport(CLUSTERED, []));
  cliReports.set(`${CLUSTERED} mde`, cliReport(CLUSTERED, ["--mde", "0.5"]));
  cliReports.set(`${MISMATCHED} mde`, cliReport(MISMATCHED, ["--mde", "0.5"]));

  serve = await startServeWithUi(dataDir, { RAGSCOPE_UI_TOKENS: "", RAGSCOPE_UI_TENANT_TOKENS: `olga:*=${sha256(OPERATOR)},tina:acme=${sha256(TENANT)}` });
  ({ child, exited, uiUrl } = serve);
  browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: CHROMIUM_FLAGS });
  operator = await (await browser.newContext({ viewport: { width: 1500, height: 1000 } })).newPage();
  operator.on("console", (message) => {
    if (message.type() === "error") consoleErrors.push(message.text());
  });
  operator.on("pageerror", (error) => consoleErrors.push(error.message));
  await signIn(operator, `${uiUrl}/experiments`, OPERATOR);
});

after(async () => {
  await browser?.close();
  if (child?.exitCode === null) child.kill("SIGKILL");
  await rm(folder, { recursive: true, force: true });
});

/** Every number and word of the report page, compared with the CLI's JSON of the same settings. */
async function assertPageShows(page: Page, report: ExperimentReport): Promise<void> {
  assert.equal(await page.locator("#control").textContent(), report.control);
  for (const traffic of report.traffic) {
    const row = page.locator(`#traffic tr[data-variant="${traffic.variant}"]`);
    assert.deepEqual([await row.locator(".requests").textContent(), await row.locator(".units").textContent(), await row.locator(".sessions").textContent()], [String(traffic.requests), String(traffic.units), String(traffic.sessions)], traffic.variant);
  }
  const ratio = page.locator("#sample-ratio");
  assert.ok(report.sampleRatio);
  assert.deepEqual([await ratio.getAttribute("data-chi-square"), await ratio.getAttribute("data-p-value"), await ratio.getAttribute("data-mismatch")], [String(report.sampleRatio.chiSquare), String(report.sampleRatio.pValue), report.sampleRatio.mismatch ? "yes" : "no"]);
  assert.ok(report.metrics.length >= 10, "behaviour and rule metrics are reported");
  for (const metric of report.metrics) {
    for (const value of metric.values) {
      const cell = page.locator(`#metrics tr[data-metric="${metric.metric}"] td.value[data-variant="${value.variant}"]`);
      assert.equal(await cell.getAttribute("data-value"), text(value.value), `${metric.metric} ${value.variant} value`);
      assert.equal(await cell.getAttribute("data-observations"), String(value.observations), `${metric.metric} ${value.variant} n`);
    }
    for (const compared of metric.comparisons) {
      const row = page.locator(`#metrics tr[data-metric="${metric.metric}"][data-variant="${compared.variant}"]`);
      assert.equal(await row.getAttribute("data-verdict"), compared.verdict, `${metric.metric} verdict`);
      assert.equal(await row.locator(".required").getAttribute("data-required"), text(compared.requiredObservations), `${metric.metric} minimum sample`);
      if (compared.comparison === null) continue;
      const shown = [await row.locator(".difference").getAttribute("data-difference"), await row.locator(".interval").getAttribute("data-lower"), await row.locator(".interval").getAttribute("data-upper"), await row.locator(".p-value").getAttribute("data-p-value"), await row.locator(".p-value").getAttribute("data-method")];
      assert.deepEqual(shown, [String(compared.comparison.difference), String(compared.comparison.lower), String(compared.comparison.upper), text(compared.comparison.pValue), compared.comparison.method], metric.metric);
    }
  }
  assert.deepEqual(await page.locator("#decision .decision").allTextContents(), report.decisions);
  assert.deepEqual(await page.locator("#warnings .warning").allTextContents(), report.warnings);
  for (const field of report.lineage) assert.equal(await page.locator(`#lineage tr[data-field="${field.field}"]`).getAttribute("data-differs"), field.differs ? "yes" : "no", field.field);
}

describe("Experiments page", () => {
  test("the list names every stored experiment, most requests first", async () => {
    await operator.goto(`${uiUrl}/experiments`);
    assert.deepEqual(await operator.locator("#experiments li").evaluateAll((items) => items.map((item) => item.getAttribute("data-experiment"))), [CLUSTERED, MISMATCHED]);
    assert.deepEqual((await api(OPERATOR, "/api/experiments")).body, { experiments: [CLUSTERED, MISMATCHED] });
  });

  test("a report opened from the list shows the CLI's numbers (default settings)", async () => {
    await operator.goto(`${uiUrl}/experiments`);
    await operator.locator(`#experiments li[data-experiment="${CLUSTERED}"] a`).click();
    await operator.waitForURL(`**/experiments/${CLUSTERED}`);
    await assertPageShows(operator, cliReports.get(`${CLUSTERED} default`)!);
  });

  test("the settings form recomputes: with a 50 % minimum effect the page and the API equal the CLI with --mde 0.5", async () => {
    await operator.locator('input[name="mde"]').fill("0.5");
    await operator.locator("form.filters button").click();
    await operator.waitForURL(/mde=0\.5/);
    const expected = cliReports.get(`${CLUSTERED} mde`)!;
    await assertPageShows(operator, expected);
    assert.match((await operator.locator("#decision").textContent()) ?? "", /better on [^;]*like_rate/);
    assert.match((await operator.locator('#metrics tr[data-metric="citation_click_rate"] .caution').textContent()) ?? "", /high citation-click rate/);
    await operator.screenshot({ path: path.join(outputFolder, "ui-experiments.png"), fullPage: true });
    assert.deepEqual((await api(OPERATOR, `/api/experiments/${CLUSTERED}?mde=0.5`)).body, JSON.parse(JSON.stringify(expected)));
  });

  test("the sample ratio mismatch: flagged, nothing decided, the CLI's numbers", async () => {
    await operator.goto(`${uiUrl}/experiments/${MISMATCHED}?mde=0.5`);
    const expected = cliReports.get(`${MISMATCHED} mde`)!;
    await assertPageShows(operator, expected);
    assert.equal(await operator.locator("#sample-ratio").getAttribute("data-mismatch"), "yes");
    assert.match((await operator.locator("#warnings").textContent()) ?? "", /sample ratio mismatch/);
    assert.equal(await operator.locator('#metrics tr[data-verdict="untrustworthy"]').count(), expected.metrics.filter((metric) => metric.comparisons.some((item) => item.verdict === "untrustworthy")).length);
  });

  test("bad settings and an unknown experiment: what to give, with 400 and 404", async () => {
    const bad = await api(OPERATOR, `/api/experiments/${CLUSTERED}?alpha=2&unit=team`);
    assert.equal(bad.status, 400);
    assert.match((bad.body as { error: string }).error, /alpha takes a number between 0 and 1 \(exclusive\), got "2"; unit takes "user" or "session", got "team"/);
    const unknown = await api(OPERATOR, "/api/experiments/no-such-experiment");
    assert.equal(unknown.status, 404);
    assert.match((unknown.body as { error: string }).error, new RegExp(`no request of experiment "no-such-experiment".*stored experiments: ${CLUSTERED}, ${MISMATCHED}`));
    // Another tab: the browser logs a 404 as a console error, which the last test counts on the operator's tab.
    const tab = await operator.context().newPage();
    const page = await tab.goto(`${uiUrl}/experiments/no-such-experiment`);
    assert.equal(page?.status(), 404);
    assert.match((await tab.locator("#error").textContent()) ?? "", /no request of experiment "no-such-experiment"/);
    await tab.close();
  });

  test("a token limited to another tenant sees no experiment, page and API alike", async () => {
    assert.deepEqual((await api(TENANT, "/api/experiments")).body, { experiments: [] });
    const report = await api(TENANT, `/api/experiments/${CLUSTERED}`);
    assert.equal(report.status, 404);
    assert.doesNotMatch((report.body as { error: string }).error, new RegExp(MISMATCHED), "another tenant's experiment ids are not named");
    const tenantPage = await (await browser.newContext()).newPage();
    await signIn(tenantPage, `${uiUrl}/experiments`, TENANT);
    assert.equal(await tenantPage.locator("#no-experiments").count(), 1);
    assert.equal(await tenantPage.locator("#experiments li").count(), 0);
  });

  test("no console errors; serve stops cleanly", async () => {
    assert.deepEqual(consoleErrors, []);
    child.kill("SIGTERM");
    assert.equal(await exited, 0, serve.output());
  });
});
