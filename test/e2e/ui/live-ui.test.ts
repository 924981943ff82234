/**
 * The live web UI end to end: `ragscope serve` as a child process (the
 * embedded default, the UI on a free port with two reviewer tokens), SDK spans
 * sent as real OTLP/HTTP while Debian's Chromium (driven by playwright-core)
 * has the Traces page open. Checked in the browser: traces appear without a
 * reload; a filter narrows the list; a trace's page shows what the store
 * holds for it (compared, after serve stops, with the stored Case Result read
 * from the data folder); two reviewers label review items blind and the queue
 * shows Cohen's kappa between them; no console errors. Screenshots go to
 * test-output/ui-*.png.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import { caseResult as caseResultSchema, type CaseResult } from "../../../contracts/case-result.js";
import { traceCite, traceContext, traceGenerate, traceQueryRewrite, traceRequest, traceRetrieve } from "../../../instrumentation/index.js";
import { openClickHouse } from "../../../store/clickhouse/clickhouse-connection.js";
import { ClickHouseHumanLabelStore } from "../../../store/clickhouse/clickhouse-human-label-store.js";
import type { HumanLabel } from "../../../evaluators/judge/calibration/human-label.js";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { postTraces, startSpanRecorder, toOtlpProtobuf, type SpanRecorder } from "../../support/recorded-spans.js";
import { queryRows } from "../../support/temporary-store.js";
import { signIn } from "../../support/sign-in.js";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const chromiumPath = process.env.RAGSCOPE_CHROMIUM ?? "/usr/bin/chromium";
const outputFolder = path.join(projectRoot, "test-output");
const CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const ALICE = "alice-token-0123456789abcdef";
const BOB = "bob-token-0123456789abcdef00";

let folder: string;
let child: ChildProcess;
let output = "";
let exited: Promise<number | null>;
let receiverUrl: string;
let uiUrl: string;
let recorder: SpanRecorder;
let browser: Browser;
let alice: Page;
let bob: Page;
const consoleErrors: string[] = [];
/** What the browser showed, checked against the store once serve has stopped. */
const shown: { caseResultId: string; query: string; answer: string; rewritten: string; chunks: { rank: string; chunkId: string; score: string; version: string; acl: string; packed: string; cited: string }[]; evaluators: string[]; citations: string[] } = {
  caseResultId: "",
  query: "",
  answer: "",
  rewritten: "",
  chunks: [],
  evaluators: [],
  citations: [],
};
const labelledCases: string[] = [];
/** The fourth queued case, which nobody labels in the browser: the imported label's. */
let importedCase = "";
/** The spans each request sent, by request index, for the raw spans section. */
const sentSpans = new Map<number, ReadableSpan[]>();
/** Markup in a span attribute: the page must show it as text. */
const HOSTILE_TEXT = "Unrelated <img src=x onerror=globalThis.injected=1> & <b>text</b>.";
/** Labels saved through the browser: one per metric offered, plus the root cause, per submission. */
let labelsSaved = 0;

async function sendRequest(index: number, topic: string): Promise<void> {
  recorder.reset();
  const query = `question ${index} about ${topic}?`;
  const context = `Museum ${index} opened in Lyon in ${1850 + index}.`;
  await traceRequest({ query }, async () => {
    await traceQueryRewrite({ query }, () => `rewritten ${index} ${topic}`);
    await traceRetrieve({ query }, () => [
      { chunkId: `chunk_${index}_a`, documentId: "museums", documentVersion: "v3", text: context, score: 0.9, acl: ["staff"] },
      { chunkId: `chunk_${index}_b`, documentId: "museums", documentVersion: "v3", text: index === 4 ? HOSTILE_TEXT : "Unrelated text.", score: 0.4 },
    ]);
    await traceContext({}, () => ({ text: context, chunkIds: [`chunk_${index}_a`] }));
    // Fabricated: the answer has no overlap with the context, so the heuristic routes it to review.
    const answer = await traceGenerate({ model: "m" }, () => ({ text: `Museum ${index} opened in Vienna in ${1950 + index}, designed by Koolhaas (${topic}).` }));
    await traceCite(() => [`chunk_${index}_a`]);
    return answer;
  });
  sentSpans.set(index, [...recorder.spans()]);
  assert.equal(await postTraces(receiverUrl, toOtlpProtobuf(recorder.spans())), 200);
}

const rowCount = (page: Page) => page.locator("#trace-rows tr").count();

async function newReviewerPage(token: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const page = await context.newPage();
  page.on("console", (message) => {
    if (message.type() === "error") consoleErrors.push(message.text());
  });
  page.on("pageerror", (error) => consoleErrors.push(error.message));
  await signIn(page, `${uiUrl}/traces`, token);
  return page;
}

async function label(page: Page, caseResultId: string, verdict: "pass" | "fail", rootCause: string): Promise<void> {
  await page.goto(`${uiUrl}/review/${caseResultId}`);
  const radios = page.locator(`#review-form input[type=radio][value=${verdict}]`);
  assert.ok((await radios.count()) > 0, "the flagged measurement is offered for a pass/fail label");
  for (let index = 0; index < (await radios.count()); index += 1) await radios.nth(index).check();
  labelsSaved += (await radios.count()) + 1;
  await page.selectOption("select[name=root_cause]", rootCause);
  await page.fill("textarea[name=comment]", `${verdict} by ${await page.locator("#reviewer").textContent()}`);
  const [saved] = await Promise.all([page.waitForNavigation(), page.click("#save-labels")]);
  assert.equal(saved?.status(), 200);
  // A saved review is a notice, said once: a reload of the page does not say it again.
  assert.equal(await page.locator("#message.notice").textContent(), "Saved.");
  await page.reload();
  assert.equal(await page.locator("#message").count(), 0, "the notice is not repeated on reload");
}

before(async () => {
  assert.ok(existsSync(chromiumPath), `Chromium is needed at ${chromiumPath} (Debian package chromium)`);
  await mkdir(outputFolder, { recursive: true });
  folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-ui-"));
  child = spawn(process.execPath, [path.join(projectRoot, "bin/ragscope.js"), "serve", "--port", "0", "--metrics-port", "0", "--ui-port", "0", "--data-dir", path.join(folder, "chdb")], {
    cwd: projectRoot,
    env: { ...process.env, RAGSCOPE_CLICKHOUSE_URL: "", RAGSCOPE_QUIET_PERIOD_MS: "200", RAGSCOPE_UI_TOKENS: `alice=${ALICE},bob=${BOB}` },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  exited = new Promise((resolve) => child.once("exit", (code) => resolve(code)));
  // Start-up: wait for the printed addresses.
  while (!/web UI and read API on/.test(output) && child.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 100));
  receiverUrl = /OTLP\/HTTP on (http:\/\/[\d.:]+)\/v1\/traces/.exec(output)?.[1] ?? "";
  uiUrl = /web UI and read API on (http:\/\/[\d.:]+)/.exec(output)?.[1] ?? "";
  assert.ok(receiverUrl !== "" && uiUrl !== "", output);
  recorder = startSpanRecorder("museum-guide");
  browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: CHROMIUM_FLAGS });
  alice = await newReviewerPage(ALICE);
  bob = await newReviewerPage(BOB);
});

after(async () => {
  await browser?.close();
  await recorder?.shutdown();
  if (child?.exitCode === null) child.kill("SIGKILL");
  await rm(folder, { recursive: true, force: true });
});

describe("the live web UI of ragscope serve", () => {
  test("without a token the UI answers 401; the token's reviewer is shown", async () => {
    assert.equal((await fetch(`${uiUrl}/api/traces`)).status, 401);
    assert.equal((await fetch(`${uiUrl}/api/traces`, { headers: { authorization: "Bearer wrong-token-0123456789" } })).status, 401);
    assert.equal(await alice.locator("#reviewer").textContent(), "alice");
    assert.equal(await bob.locator("#reviewer").textContent(), "bob");
    assert.doesNotMatch(alice.url(), /token=/, "the token is moved into a cookie, out of the address");
  });

  test("traces appear in the open list while they are sent", async () => {
    assert.equal(await rowCount(alice), 0);
    // A page of three, open while the list was empty: once refreshed it must lead on to the fourth trace.
    await bob.goto(`${uiUrl}/traces?limit=3`);
    assert.equal(await bob.locator("#list-end").textContent(), "End of the list.");
    assert.equal(await alice.locator("#list-empty").count(), 1, "an empty list says why");
    await sendRequest(1, "lighthouses");
    await sendRequest(2, "bridges");
    await alice.waitForFunction(() => (globalThis as unknown as { document: { querySelectorAll(selector: string): { length: number } } }).document.querySelectorAll("#trace-rows tr").length === 2);
    await sendRequest(3, "lighthouses");
    await sendRequest(4, "castles");
    await alice.waitForFunction(() => (globalThis as unknown as { document: { querySelectorAll(selector: string): { length: number } } }).document.querySelectorAll("#trace-rows tr").length === 4);
    const queries = await alice.locator("#trace-rows tr td:nth-child(11)").allTextContents();
    assert.deepEqual(queries, ["question 4 about castles?", "question 3 about lighthouses?", "question 2 about bridges?", "question 1 about lighthouses?"], "newest first");
    assert.equal(await alice.locator("#live-status").getAttribute("data-mode"), "events", "new traces came by server-sent events");
    assert.equal(await alice.locator("#list-empty").count(), 0, "the empty list's note leaves with the first rows");
    await bob.waitForFunction(() => (globalThis as unknown as { document: { querySelector(selector: string): unknown } }).document.querySelector("#older") !== null);
    assert.deepEqual(await bob.locator("#trace-rows tr td:nth-child(11)").allTextContents(), ["question 4 about castles?", "question 3 about lighthouses?", "question 2 about bridges?"]);
    await Promise.all([bob.waitForURL(/after=/), bob.click("#older")]);
    assert.deepEqual(await bob.locator("#trace-rows tr td:nth-child(11)").allTextContents(), ["question 1 about lighthouses?"], "the page after the refreshed rows starts right after them");
    await alice.screenshot({ path: path.join(outputFolder, "ui-traces.png"), fullPage: true });
  });

  test("a filter narrows the list: free text, and the service", async () => {
    await alice.fill("input[name=q]", "LIGHTHOUSES");
    await Promise.all([alice.waitForURL(/q=LIGHTHOUSES/), alice.click("form.filters button")]);
    assert.deepEqual(await alice.locator("#trace-rows tr td:nth-child(11)").allTextContents(), ["question 3 about lighthouses?", "question 1 about lighthouses?"]);
    await alice.goto(`${uiUrl}/traces?service=another-service`);
    assert.equal(await rowCount(alice), 0);
    await alice.goto(`${uiUrl}/traces?service=museum-guide&verdict=review_required`);
    assert.equal(await rowCount(alice), 4);
  });

  test("a trace's page shows its stages, chunks, citations and Evaluation Results", async () => {
    await alice.goto(`${uiUrl}/traces?q=castles`);
    // The row links its own request: the Case Result id and the trace id (a case sent again has a row per request).
    await Promise.all([alice.waitForURL(/\/traces\/[^?]+\?trace=[0-9a-f]+$/), alice.locator("#trace-rows tr a").first().click()]);
    shown.caseResultId = (await alice.locator("#case-result-id").textContent()) ?? "";
    shown.query = (await alice.locator("#query").textContent()) ?? "";
    shown.rewritten = (await alice.locator("#rewritten-query").textContent()) ?? "";
    shown.answer = (await alice.locator("#answer").textContent()) ?? "";
    shown.citations = await alice.locator("#citations a.citation").allTextContents();
    shown.evaluators = await alice.locator("tr.evaluation").evaluateAll((rows) => rows.map((row) => (row as unknown as { dataset: { evaluator: string } }).dataset.evaluator));
    for (const row of await alice.locator("tr.chunk").all()) {
      const cells = await row.locator("td").allTextContents();
      shown.chunks.push({ rank: cells[0]!, score: cells[1]!, chunkId: cells[2]!, version: cells[4]!, acl: cells[5]!, packed: cells[7]!, cited: cells[8]! });
    }
    assert.ok((await alice.locator("tr.stage").count()) >= 4, "the stage waterfall lists the recorded stages");
    // A citation links to its chunk row.
    assert.equal(await alice.locator(`#citations a.citation`).first().getAttribute("href"), "#chunk-chunk_4_a");
    assert.equal(await alice.locator("#chunk-chunk_4_a").count(), 1);

    // The raw spans: every span sent, with its name, parent and every attribute as sent; markup shown as text.
    const sent = sentSpans.get(4)!;
    assert.equal(await alice.locator("#raw-span-count").textContent(), `${sent.length} of ${sent.length} spans stored.`);
    assert.equal(await alice.locator("details.raw-span").count(), sent.length);
    let hostileShown = 0;
    for (const span of sent) {
      const block = alice.locator(`details.raw-span[data-span-id="${span.spanContext().spanId}"]`);
      assert.equal(await block.count(), 1, `span ${span.name} is shown`);
      assert.equal(await block.getAttribute("open"), null, "collapsed until opened");
      assert.equal(await block.locator(".span-name").textContent(), span.name);
      const parent = span.parentSpanContext?.spanId ?? "";
      assert.match((await block.locator("summary").textContent()) ?? "", parent === "" ? /\(root\)/ : new RegExp(`← ${parent}`));
      const keys = Object.keys(span.attributes).sort();
      assert.deepEqual(await block.locator("table.attributes tr.attribute").evaluateAll((rows) => rows.map((row) => (row as unknown as { dataset: { key: string } }).dataset.key)), keys);
      for (const key of keys) {
        const value = span.attributes[key];
        const text = await block.locator(`table.attributes tr[data-key="${key}"] .attribute-value`).textContent();
        assert.equal(text, typeof value === "string" ? value : JSON.stringify(value), `${span.name} ${key}`);
        if (text!.includes(HOSTILE_TEXT)) hostileShown += 1;
      }
      assert.equal(await block.locator('table.resource tr[data-key="service.name"] .attribute-value').textContent(), "museum-guide");
    }
    assert.ok(hostileShown > 0, "the retrieval span's documents carry the markup, shown as text");
    await alice.locator("details.raw-span summary").first().click();
    assert.equal(await alice.locator("details.raw-span").first().getAttribute("open"), "");
    assert.equal(await alice.locator("#raw-spans img").count(), 0, "no element made from an attribute");
    assert.equal(await alice.evaluate(() => (globalThis as unknown as { injected?: number }).injected), undefined);
    await alice.screenshot({ path: path.join(outputFolder, "ui-trace.png"), fullPage: true });
  });

  test("two reviewers label blind, then see each other's labels and Cohen's kappa", async () => {
    await alice.goto(`${uiUrl}/review`);
    const ids = await alice.locator("#queue tbody tr").evaluateAll((rows) => rows.map((row) => (row as unknown as { dataset: { caseResultId: string } }).dataset.caseResultId));
    assert.equal(ids.length, 4, "the four fabricated answers are queued for review");
    labelledCases.push(...ids.slice(0, 3));
    importedCase = ids[3]!;
    // Root causes: alice H H N, bob H N N → agreement 2/3, kappa 0.4 (worked by hand in the assertion below).
    await label(alice, labelledCases[0]!, "fail", "HALLUCINATION");
    await label(alice, labelledCases[1]!, "fail", "HALLUCINATION");
    await label(alice, labelledCases[2]!, "pass", "CONTEXT_NOISY");
    // One reviewer of two decides nothing (REVIEWERS_PER_CASE): bob's queue still holds the cases, his labels to do.
    await bob.goto(`${uiUrl}/review`);
    const bobsQueue = await bob.locator("#queue tbody tr").evaluateAll((rows) => rows.map((row) => [(row as unknown as { dataset: { caseResultId: string } }).dataset.caseResultId, row.children[4]!.textContent, row.children[5]!.textContent]));
    assert.deepEqual(bobsQueue, ids.map((id) => [id, labelledCases.includes(id) ? "1 of 2" : "0 of 2", "to do"]));
    await bob.goto(`${uiUrl}/review/${labelledCases[0]}`);
    assert.equal(await bob.locator("#blind").count(), 1, "bob does not see alice's labels before his own");
    await label(bob, labelledCases[0]!, "fail", "HALLUCINATION");
    assert.equal(await bob.locator("#blind").count(), 0);
    assert.match((await bob.locator("#other-labels").textContent()) ?? "", /alice: root cause HALLUCINATION/);
    await label(bob, labelledCases[1]!, "pass", "CONTEXT_NOISY");
    await label(bob, labelledCases[2]!, "pass", "CONTEXT_NOISY");

    await alice.goto(`${uiUrl}/review`);
    const rootCause = alice.locator('#reviewer-kappa tr[data-metric="root_cause"]');
    assert.equal(await rootCause.locator(".items").textContent(), "3");
    // p_o = 2/3; p_e = (2/3)(1/3) + (1/3)(2/3) = 4/9; kappa = (2/3 - 4/9) / (1 - 4/9) = 0.4.
    assert.match((await rootCause.locator(".kappa").textContent()) ?? "", /^0\.400/);
    // Pass/fail on the flagged measure: alice F F P, bob F P P → the same table, kappa 0.4.
    const measure = alice.locator('#reviewer-kappa tr[data-metric="online.groundedness"]');
    assert.equal(await measure.locator(".items").textContent(), "3");
    assert.match((await measure.locator(".kappa").textContent()) ?? "", /^0\.400/);
    await alice.screenshot({ path: path.join(outputFolder, "ui-review.png"), fullPage: true });

    // Both failed the first case: its reviewed verdict overrides the automatic one, marked as human.
    await alice.goto(`${uiUrl}/traces/${labelledCases[0]}`);
    // A root cause reads as the cause the reviewer chose, not as the store's placeholder verdict ("root_cause fail").
    const humanLabels = (await alice.locator("#human-labels").textContent()) ?? "";
    assert.match(humanLabels, /alice: root cause HALLUCINATION/);
    assert.doesNotMatch(humanLabels, /root_cause fail/);
    assert.equal(await alice.locator("#verdict .verdict").getAttribute("data-human"), "yes");
    assert.equal(await alice.locator("#verdict .verdict").getAttribute("data-verdict"), "failed");
    await alice.goto(`${uiUrl}/traces`);
    assert.equal(await alice.locator(`#trace-rows tr[data-case-result-id="${labelledCases[0]}"] .verdict`).getAttribute("data-human"), "yes");
  });

  test("labels export as JSONL and import back, as the importer's token says", async () => {
    const exported = await (await fetch(`${uiUrl}/api/labels.jsonl`, { headers: { authorization: `Bearer ${BOB}` } })).text();
    const lines = exported.trim().split("\n").map((line) => JSON.parse(line) as HumanLabel);
    assert.equal(lines.length, labelsSaved, "one label per metric offered and one root cause, per case and reviewer");
    assert.equal(lines.filter((line) => line.metric === "root_cause").length, 6);
    // Without labeled_at (the import's time): the live traffic was sent now, and a line is bound to the newest request
    // of its case started at or before it was labelled.
    const imported = await fetch(`${uiUrl}/api/labels.jsonl`, {
      method: "POST",
      headers: { authorization: `Bearer ${BOB}`, "content-type": "application/x-ndjson" },
      body: JSON.stringify({ case_result_id: importedCase, metric: "online.groundedness", verdict: "fail" }) + "\n",
    });
    assert.equal(imported.status, 200, await imported.text());
    const afterImport = (await (await fetch(`${uiUrl}/api/labels.jsonl`, { headers: { authorization: `Bearer ${BOB}` } })).text()).trim().split("\n").map((line) => JSON.parse(line) as HumanLabel);
    assert.deepEqual(
      afterImport.filter((line) => line.case_result_id === importedCase).map((line) => line.labeler_id),
      ["bob"],
      "a line without labeler_id is the importing reviewer's",
    );
    // Bob cannot import a label as Carol: the reviewer is whoever the token belongs to.
    const asCarol = await fetch(`${uiUrl}/api/labels.jsonl`, {
      method: "POST",
      headers: { authorization: `Bearer ${BOB}`, "content-type": "application/x-ndjson" },
      body: JSON.stringify({ case_result_id: importedCase, metric: "online.groundedness", labeler_id: "carol", verdict: "pass" }) + "\n",
    });
    assert.equal(asCarol.status, 400);
    assert.match(((await asCarol.json()) as { error: string }).error, /^line 1: labeler_id "carol" is not you \("bob"\)/);
    const broken = await fetch(`${uiUrl}/api/labels.jsonl`, { method: "POST", headers: { authorization: `Bearer ${BOB}`, "content-type": "application/x-ndjson" }, body: '{"case_result_id":"x"}\n' });
    assert.equal(broken.status, 400);
    assert.match(((await broken.json()) as { error: string }).error, /^line 1: /);
  });

  test("the runs page renders: live traffic carries no run, so it says how to get one (the compare form's labels: ui-walkthrough.test.ts)", async () => {
    await alice.goto(`${uiUrl}/runs`);
    assert.match((await alice.locator("#no-runs").textContent()) ?? "", /^No run stored yet: ragscope eval/);
    assert.equal(await alice.locator("form[action='/runs/compare']").count(), 0, "no form comparing nothing with nothing");
    await alice.screenshot({ path: path.join(outputFolder, "ui-runs.png"), fullPage: true });
  });

  test("pages fit the window: no sideways scrolling at 1280 pixels, and a phone gets the page at its own width", async () => {
    const traceId = await alice.goto(`${uiUrl}/traces`).then(() => alice.locator("#trace-rows tr a").first().getAttribute("href"));
    for (const [width, height] of [[1280, 900], [390, 844]] as const) {
      const context = await browser.newContext({ viewport: { width, height }, isMobile: width < 600, deviceScaleFactor: 1 });
      const page = await context.newPage();
      await signIn(page, `${uiUrl}/traces`, ALICE);
      for (const address of ["/traces", traceId!, "/runs", "/review", "/quality"]) {
        await page.goto(`${uiUrl}${address}`);
        const { scrollWidth, innerWidth } = (await page.evaluate("({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth })")) as { scrollWidth: number; innerWidth: number };
        assert.ok(scrollWidth <= innerWidth, `${address} at ${width} px: the page is ${scrollWidth} px wide in a ${innerWidth} px window`);
        assert.equal(innerWidth, width, `${address}: the page is laid out at the device's width (a viewport meta element)`);
      }
      await context.close();
    }
  });

  test("the review form names each radio by its metric, and a saved review is a notice, not an error", async () => {
    // The notice itself: label() above, after each save.
    await alice.goto(`${uiUrl}/review/${labelledCases[0]}`);
    const metrics = await alice.locator("#review-form tr th").allTextContents();
    assert.ok(metrics.length > 0);
    for (const metric of metrics) for (const verdict of ["pass", "fail"]) assert.equal(await alice.getByRole("radio", { name: `${metric}: ${verdict}` }).count(), 1, `${metric}: ${verdict}`);
    await alice.goto(`${uiUrl}/review`);
    assert.equal(await alice.getByLabel("Labels file (JSONL)").count(), 1);
  });

  test("no console errors on any page", () => {
    assert.deepEqual(consoleErrors, []);
  });

  test("after serve stops, what the pages showed is what the store holds", async () => {
    child.kill("SIGTERM");
    assert.equal(await exited, 0, output);
    const connection = await openClickHouse({ url: null, username: "default", password: "", database: "ragscope", dataPath: path.join(folder, "chdb") });
    try {
      const [row] = await queryRows<{ payload: string }>(connection, `SELECT payload FROM {{database}}.case_results FINAL WHERE case_result_id = '${shown.caseResultId.replace(/'/g, "")}'`);
      assert.ok(row, `case result ${shown.caseResultId} is stored`);
      const stored: CaseResult = caseResultSchema.parse(JSON.parse(row.payload));
      const observation = stored.rag_observation;
      assert.equal(shown.query, observation.query);
      assert.equal(shown.rewritten, observation.rewritten_query);
      assert.equal(shown.answer, stored.output);
      assert.deepEqual(shown.citations, observation.citations);
      const packed = new Set((observation.context_chunks ?? []).map((chunk) => chunk.chunk_id));
      assert.deepEqual(
        shown.chunks,
        (observation.retrieved_chunks ?? []).map((chunk) => ({
          rank: String(chunk.rank),
          score: String(chunk.score),
          chunkId: chunk.chunk_id,
          version: chunk.document_version,
          acl: chunk.acl === null ? "none recorded" : chunk.acl.join(", "),
          packed: packed.has(chunk.chunk_id) ? "yes" : "no",
          cited: (observation.citations ?? []).includes(chunk.chunk_id ?? "") ? "yes" : "no",
        })),
      );
      const evaluators = await queryRows<{ evaluator_id: string }>(connection, `SELECT evaluator_id FROM {{database}}.evaluation_results FINAL WHERE case_result_id = '${shown.caseResultId.replace(/'/g, "")}' ORDER BY evaluator_id, evaluation_result_id`);
      assert.deepEqual(shown.evaluators, evaluators.map((item) => item.evaluator_id));
      const labels = await new ClickHouseHumanLabelStore(connection).list();
      assert.equal(labels.length, labelsSaved + 1, "the labels saved in the browser, and the one imported");
      assert.deepEqual(new Set(labels.map((item) => item.labeler_id)), new Set(["alice", "bob"]));
    } finally {
      await connection.close();
    }
  });
});
