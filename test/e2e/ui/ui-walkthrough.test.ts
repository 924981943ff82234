/**
 * A first walk through `ragscope serve`'s web UI as an evaluation engineer and
 * a reviewer meet it: serve as a subprocess (test/support/serve-with-ui.ts)
 * on a folder written through the store's own sink, two reviewer tokens, HTTP
 * as a browser sends it and Debian's Chromium for the pages.
 *
 * The store, by hand:
 *   - runs "run-1" (baseline) and "run-2" (candidate), service svc-a, cases
 *     c1..c3, each passed in both runs, each with cost 0.00002 in run-1 and
 *     0.00003 in run-2 (performance.usage): means 0.00002 and 0.00003,
 *     difference 0.00001 — values a four-place display wrote as 0.0000;
 *   - three online requests of service svc-b routed to review (automatic
 *     verdict review_required, citation.accuracy failed), one with a stage
 *     waterfall, a latency of 0.04 ms and a chunk whose ACL is empty (public);
 *   - one online request of service svc-c, passed.
 *
 * Each check below failed before its fix:
 *   - "/?service=svc-b" (the home page with a filter) redirected to "/traces",
 *     dropping the filter: the list showed every service;
 *   - the run comparison and the trace page wrote a cost of 0.00003 as 0.0000,
 *     the traces list and the trace page a latency of 0.04 ms as 0.0;
 *   - the label export held another reviewer's labels of a case the exporter
 *     had not labelled yet: a download undid the blind review;
 *   - the review queue's "More →" dropped the filters and page size, so page 2
 *     of "/review?service=svc-b&limit=1" listed other services' cases;
 *     /api/review gave no cursor at all;
 *   - the queue lists decided cases too (the second reviewer finds them there)
 *     while the report counts the undecided ones: nothing linked the two;
 *   - empty states: a store without runs showed an empty table and a compare
 *     form of empty selects; no flipped case was an empty list; agreement
 *     tables without a row said nothing; the import form sent without a file
 *     "imported" nothing silently, and an import said nothing of what it saved;
 *   - a traces list whose query was refused (400) still refreshed itself live,
 *     asking for the same 400 whenever a trace arrived, and said "Live";
 *   - Quality over time for a mistyped run id was a board of "no data", and
 *     Failures for a service the range does not hold "0 failing requests",
 *     neither saying no request matched; that service's select showed "all
 *     services" while the board was filtered by it;
 *   - accessibility: the stage waterfall had no header row, the Failures
 *     table an empty header cell; an empty ACL was a blank cell;
 *   - the import's notice rode in the address (/review?imported=1), so every
 *     reload said it again; the run comparison's rows were headed by field
 *     names ("reviewRequired"), the latency column "latency ms".
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { chromium, type Browser, type Page } from "playwright-core";
import { evaluationResult, type EvaluationResult } from "../../../contracts/evaluation-result.js";
import type { CaseResult } from "../../../contracts/case-result.js";
import { measured, plannedCaseResult, writeToFolder } from "../../support/stored-requests.js";
import { startServeWithUi, type ServeWithUi } from "../../support/serve-with-ui.js";
import { signIn } from "../../support/sign-in.js";

const chromiumPath = process.env.RAGSCOPE_CHROMIUM ?? "/usr/bin/chromium";
const CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const ALICE = "alice-token-0123456789abcdef";
const BOB = "bob-token-0123456789abcdef00";
const T0 = Date.parse("2026-05-04T08:00:00.000Z");
const MINUTE = 60_000;
const QUEUED = ["cr_q1", "cr_q2", "cr_q3"];

let folder: string;
let serve: ServeWithUi;
let browser: Browser;

const get = (address: string, token = ALICE, init: RequestInit = {}) => fetch(`${serve.uiUrl}${address}`, { redirect: "manual", ...init, headers: { authorization: `Bearer ${token}`, ...(init.headers ?? {}) } });
const text = async (address: string, token = ALICE) => {
  const answer = await get(address, token);
  assert.equal(answer.status, 200, `${address}: ${answer.status}`);
  return answer.text();
};

function decided(caseResultId: string, evaluatorId: string, outcome: "passed" | "failed", values: Record<string, number>, atMs: number): EvaluationResult {
  return evaluationResult.parse({ ...measured(caseResultId, evaluatorId, values, atMs), outcome });
}

function request(caseResult: CaseResult, changes: Partial<CaseResult>, observation: Partial<CaseResult["rag_observation"]> = {}): CaseResult {
  return { ...caseResult, ...changes, rag_observation: { ...caseResult.rag_observation, ...observation } };
}

before(async () => {
  assert.ok(existsSync(chromiumPath), `Chromium is needed at ${chromiumPath} (Debian package chromium)`);
  folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-ui-walkthrough-"));
  const batch: { caseResult: CaseResult; evaluationResults: EvaluationResult[] }[] = [];
  let index = 0;
  for (const [run, cost] of [["run-1", 0.00002], ["run-2", 0.00003]] as const) {
    for (const caseId of ["c1", "c2", "c3"]) {
      index += 1;
      const caseResultId = `cr_${run}_${caseId}`;
      const startedAtMs = T0 + index * MINUTE;
      batch.push({
        caseResult: request(plannedCaseResult({ caseResultId, traceId: `${index}`.padStart(32, "0"), runId: run, caseId, service: "svc-a", startedAtMs }), { quality_status: "passed" }),
        evaluationResults: [
          measured(caseResultId, "performance.usage", { cost }, startedAtMs + 1_000),
          decided(caseResultId, "citation.accuracy", "passed", { citation_accuracy: 1 }, startedAtMs + 1_000),
          measured(caseResultId, "context.sufficiency", { context_sufficiency: run === "run-1" ? 1 : 2 }, startedAtMs + 1_000),
        ],
      });
    }
  }
  for (const [position, caseResultId] of QUEUED.entries()) {
    index += 1;
    const startedAtMs = T0 + index * MINUTE;
    const observation: Partial<CaseResult["rag_observation"]> =
      position === 0
        ? {
            stage_timings: [
              { stage: "request", span_name: "rag.request", duration_ms: 12, status: "ok" },
              { stage: "retrieve", span_name: "rag.retrieve", duration_ms: 5, status: "ok" },
            ],
            latency_ms: 0.04,
            retrieved_chunks: [{ rank: 1, chunk_id: "public-1", text: "a public chunk", score: 0.9, document_id: "doc-1", document_version: null, section_id: null, effective_from: null, effective_to: null, acl: [], tenant_id: null }],
          }
        : {};
    batch.push({
      caseResult: request(plannedCaseResult({ caseResultId, traceId: `${index}`.padStart(32, "0"), service: "svc-b", startedAtMs }), { quality_status: "review_required" }, observation),
      evaluationResults: [decided(caseResultId, "citation.accuracy", "failed", { citation_accuracy: 0 }, startedAtMs + 1_000), measured(caseResultId, "performance.usage", { cost: 0.00003 }, startedAtMs + 1_000)],
    });
  }
  index += 1;
  batch.push({ caseResult: request(plannedCaseResult({ caseResultId: "cr_c", traceId: `${index}`.padStart(32, "0"), service: "svc-c", startedAtMs: T0 + index * MINUTE }), { quality_status: "passed" }), evaluationResults: [] });
  await writeToFolder(path.join(folder, "chdb"), batch);
  serve = await startServeWithUi(path.join(folder, "chdb"), { RAGSCOPE_UI_TOKENS: `alice=${ALICE},bob=${BOB}`, RAGSCOPE_UI_TENANT_TOKENS: "" });
  browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: CHROMIUM_FLAGS });
});

after(async () => {
  await browser?.close();
  if (serve?.child.exitCode === null) {
    serve.child.kill("SIGTERM");
    await serve.exited;
  }
  await rm(folder, { recursive: true, force: true });
});

async function alicePage(): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await signIn(page, `${serve.uiUrl}/traces`, ALICE);
  return page;
}

/**
 * What a screen reader user would miss on the page in the browser, as a script (the tests compile without the DOM's
 * types): no title, a form control without a label, a table without headers, a header cell that names nothing
 * (the corner cell of a row-and-column table excepted).
 */
const ACCESSIBILITY_PROBLEMS = `(() => {
  const found = [];
  if (document.title.trim() === "") found.push("no title");
  for (const control of document.querySelectorAll("input:not([type=hidden]), select, textarea, button")) {
    const named = control.closest("label") !== null || control.getAttribute("aria-label") !== null || control.getAttribute("aria-labelledby") !== null || (control.tagName === "BUTTON" && control.textContent.trim() !== "");
    if (!named) found.push("unlabelled " + control.outerHTML.slice(0, 80));
  }
  for (const table of document.querySelectorAll("table")) {
    if (table.querySelector("th") === null) found.push("a table without headers: " + table.outerHTML.slice(0, 120));
    for (const header of table.querySelectorAll("thead th")) if (header.textContent.trim() === "" && header.parentElement.firstElementChild !== header) found.push("an empty header in " + (table.id || table.outerHTML.slice(0, 80)));
  }
  return found;
})()`;

const listedIds = (page: string) => [...page.matchAll(/<tr data-case-result-id="([^"]+)"/g)].map((match) => match[1]!);

describe("a first walk through the web UI", () => {
  test("the home page keeps its filters: /?service=svc-b lists svc-b's requests only", async () => {
    const answer = await get("/?service=svc-b&verdict=review_required");
    assert.equal(answer.status, 302);
    assert.equal(answer.headers.get("location"), "/traces?service=svc-b&verdict=review_required");
    const page = await alicePage();
    await page.goto(`${serve.uiUrl}/?service=svc-b`);
    assert.equal(new URL(page.url()).search, "?service=svc-b");
    assert.equal(await page.inputValue("input[name=service]"), "svc-b");
    assert.deepEqual(listedIds(await page.content()).sort(), QUEUED);
  });

  test("a list query in error is not refreshed live: it would ask for the same 400 on every new trace", async () => {
    const answer = await get("/traces?limit=0");
    assert.equal(answer.status, 400);
    const page = await answer.text();
    assert.match(page, /<p class="error" id="error">limit=0: give a whole number from 1 to 200 in decimal digits<\/p>/);
    assert.doesNotMatch(page, /data-live=/);
    assert.match(page, /<p class="muted" id="live-status" data-mode="off">Not refreshed: fix the filters above\.<\/p>/);
    assert.match(await text("/traces?service=svc-b"), /data-live="\/traces\/rows\?service=svc-b"/);
  });

  test("a cost of 0.00003 is not written 0.0000: the run comparison and the trace page keep two significant digits", async () => {
    const compared = await text("/runs/compare?candidate=run-2&baseline=run-1");
    const cells = /<tr data-metric="cost"><td>cost<\/td><td>([^<]*)<\/td><td>([^<]*)<\/td><td>([^<]*)<\/td>/.exec(compared);
    assert.ok(cells, "a cost row");
    // Means by hand: 0.00003 and 0.00002; difference 0.00001.
    assert.deepEqual(cells.slice(1, 4).map(Number), [0.00003, 0.00002, 0.00001]);
    // And what the API gives agrees with the page.
    const api = (await (await get("/api/runs/compare?candidate=run-2&baseline=run-1")).json()) as { comparison: { metrics: { metric: string; candidateMean: number; baselineMean: number }[] } };
    const cost = api.comparison.metrics.find((metric) => metric.metric === "cost")!;
    assert.ok(Math.abs(cost.candidateMean - 0.00003) < 1e-12 && Math.abs(cost.baselineMean - 0.00002) < 1e-12);
    const trace = await text(`/traces/${QUEUED[1]}`);
    assert.match(trace, />cost=0\.00003</);
    assert.doesNotMatch(trace, />cost=0\.0000</);
    // A latency of 0.04 ms: not "0.0" in the list, nor on the trace page.
    assert.match(await text("/traces?service=svc-b"), /<td class="latency" title="0\.04">0\.04<\/td>/);
    assert.match(await text(`/traces/${QUEUED[0]}`), /latency 0\.04 ms/);
  });

  test("a heuristic rule's metric is labelled so on the run comparison, as eval and the boards label it; its row keeps the stored name", async () => {
    const compared = await text("/runs/compare?candidate=run-2&baseline=run-1");
    assert.match(compared, /<tr data-metric="context_sufficiency"><td>context_sufficiency \(heuristic\)<\/td><td>2\.0000<\/td><td>1\.0000<\/td><td>1\.0000<\/td>/);
    assert.match(compared, /<tr data-metric="cost"><td>cost<\/td>/);
  });

  test("no flipped case says none; the compare form and the runs list link where they say", async () => {
    const compared = await text("/runs/compare?candidate=run-2&baseline=run-1");
    assert.match(compared, /<p id="regressed" class="muted">None\.<\/p>/);
    assert.match(compared, /<p id="fixed" class="muted">None\.<\/p>/);
    const runs = await text("/runs");
    assert.deepEqual([...runs.matchAll(/<tr data-run-id="([^"]+)"/g)].map((match) => match[1]), ["run-2", "run-1"]);
    assert.match(runs, /<a href="\/traces\?run=run-1">run-1<\/a>/);
    assert.deepEqual(listedIds(await text("/traces?run=run-1")).sort(), ["cr_run-1_c1", "cr_run-1_c2", "cr_run-1_c3"]);
  });

  test("the review queue pages with its filters: /review?service=svc-b&limit=1 visits svc-b's three cases once each", async () => {
    const seen: string[] = [];
    let address: string | null = "/review?service=svc-b&limit=1";
    while (address !== null) {
      const page = await text(address);
      seen.push(...listedIds(page));
      const more = /<a id="more" href="([^"]+)">/.exec(page)?.[1]?.replaceAll("&amp;", "&") ?? null;
      if (more !== null) {
        const parameters = new URL(more, serve.uiUrl).searchParams;
        assert.equal(parameters.get("service"), "svc-b");
        assert.equal(parameters.get("limit"), "1");
      }
      address = more;
      assert.ok(seen.length <= 3, `more pages than cases: ${seen.join(", ")}`);
    }
    assert.deepEqual(seen.sort(), QUEUED);
    // The API pages too: its cursor continues where the page left off.
    const first = (await (await get("/api/review?service=svc-b&limit=2")).json()) as { items: { caseResultId: string }[]; next: string | null };
    assert.equal(first.items.length, 2);
    assert.ok(first.next !== null, "a cursor to the third case");
    const second = (await (await get(`/api/review?service=svc-b&limit=2&after=${first.next}`)).json()) as { items: { caseResultId: string }[]; next: string | null };
    assert.deepEqual([...first.items, ...second.items].map((item) => item.caseResultId).sort(), QUEUED);
    assert.equal(second.next, null);
  });

  test("Quality over time and Failures for a run or service that matches nothing say so, instead of \"no data\" and 0", async () => {
    const nothing = await text("/quality?run=run-9");
    assert.match(nothing, /<p id="board-empty" class="muted">No stored request started in this range with run=run-9: check the run id on the Runs page/);
    const failures = await text("/failures?service=svc-z");
    assert.match(failures, /<p id="board-empty" class="muted">No stored request started in this range with service=svc-z:/);
    // The form keeps the filter it shows: svc-z stays chosen, so "Show" does not drop it.
    assert.match(failures, /<option value="svc-z" selected>svc-z<\/option>/);
    assert.doesNotMatch(await text("/failures?service=svc-a"), /id="board-empty"/);
    const run = await text("/quality?run=run-1");
    assert.doesNotMatch(run, /id="board-empty"/);
    // Three requests of run-1: the board rests on them (error rate's request count, the behaviour section's).
    assert.match(run, /<tr data-aggregate="error_rate">[\s\S]*?<td class="samples">3<\/td>/);
  });

  test("before any label, the agreement tables say why they are empty", async () => {
    const queue = await text("/review");
    assert.match(queue, /id="reviewer-kappa-empty"/);
    assert.match(queue, /id="judge-kappa-empty"/);
  });

  test("the label export keeps the review blind: bob's labels reach alice's export only once she labelled the case", async () => {
    const saved = await get(`/review/${QUEUED[2]}`, BOB, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ verdicts: { "citation.accuracy": "fail" }, comment: "bob's own reading" }) });
    assert.equal(saved.status, 200, await saved.text());
    const labellers = async (token: string) =>
      (await text("/api/labels.jsonl", token))
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as { case_result_id: string; labeler_id: string })
        .filter((label) => label.case_result_id === QUEUED[2])
        .map((label) => label.labeler_id)
        .sort();
    assert.deepEqual(await labellers(BOB), ["bob"], "bob's export holds his own labels");
    assert.deepEqual(await labellers(ALICE), [], "alice has not labelled the case: bob's labels stay hidden, as on the trace page");
    const hers = await get(`/review/${QUEUED[2]}`, ALICE, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ verdicts: { "citation.accuracy": "fail" } }) });
    assert.equal(hers.status, 200, await hers.text());
    assert.deepEqual(await labellers(ALICE), ["alice", "bob"], "both labelled: both visible");
    // With labels of two reviewers, the reviewer agreement table has its row and no empty note.
    const queue = await text("/review");
    assert.match(queue, /<tr data-metric="citation.accuracy"><td>citation.accuracy<\/td><td>alice \/ bob<\/td><td class="items">1<\/td>/);
    // Both failed it: decided, so it stays in the queue (for every reviewer) but leaves the undecided list the queue links to.
    assert.deepEqual(listedIds(queue).sort(), QUEUED);
    const undecidedHref = /<a id="queue-undecided" href="([^"]+)">/.exec(queue)?.[1];
    assert.equal(undecidedHref, "/review?verdict=review_required");
    const undecided = await text(undecidedHref!);
    assert.deepEqual(listedIds(undecided).sort(), [QUEUED[0], QUEUED[1]]);
    assert.match(undecided, /<a id="queue-all" href="\/review">/);
    assert.doesNotMatch(queue, /id="reviewer-kappa-empty"/);
  });

  test("the import form: sent without a file it says to choose one; a file it imports says how many labels it saved", async () => {
    const page = await alicePage();
    await page.goto(`${serve.uiUrl}/review`);
    const [empty] = await Promise.all([page.waitForNavigation(), page.click("form[action='/review/import'] button[type=submit]")]);
    assert.equal(empty!.status(), 400);
    assert.equal(await page.textContent("#error"), "choose a JSONL file to import");
    await page.click("#back");
    const file = path.join(folder, "labels.jsonl");
    await writeFile(file, `${JSON.stringify({ case_result_id: QUEUED[1], metric: "citation.accuracy", verdict: "fail", note: "imported" })}\n`);
    await page.setInputFiles("form[action='/review/import'] input[type=file]", file);
    await Promise.all([page.waitForNavigation(), page.click("form[action='/review/import'] button[type=submit]")]);
    assert.equal(new URL(page.url()).pathname, "/review");
    assert.equal(await page.textContent("#message"), "Imported 1 label.");
    // Said once: the address holds no notice, so neither a reload nor a bookmark of it says it again.
    assert.equal(new URL(page.url()).search, "");
    await page.reload();
    assert.equal(await page.locator("#message").count(), 0, "the import notice is not repeated on reload");
    assert.equal(await page.locator(`#queue tr[data-case-result-id="${QUEUED[1]}"] td`).nth(5).textContent(), "labelled");
  });

  test("every page has a title, labelled controls and tables with named headers; an empty ACL reads public", async () => {
    const page = await alicePage();
    const addresses = ["/traces", "/traces?service=nobody", `/traces/${QUEUED[0]}`, `/review/${QUEUED[0]}`, "/review", "/runs", "/runs/compare?candidate=run-2&baseline=run-1", "/quality", "/failures", "/experiments"];
    for (const address of addresses) {
      const answer = await page.goto(`${serve.uiUrl}${address}`);
      assert.equal(answer!.status(), 200, address);
      const problems = (await page.evaluate(ACCESSIBILITY_PROBLEMS)) as string[];
      assert.deepEqual(problems, [], address);
    }
    await page.goto(`${serve.uiUrl}/runs`);
    for (const name of ["Compare", "against baseline"]) assert.equal(await page.getByLabel(name).count(), 1, `the select "${name}" is labelled`);
    await page.goto(`${serve.uiUrl}/traces/${QUEUED[0]}`);
    assert.deepEqual(await page.locator("#waterfall thead th").allTextContents(), ["stage", "span", "status", "duration (ms)", "share of the longest"]);
    assert.equal(await page.locator('#chunks tr[data-chunk-id="public-1"] td').nth(5).textContent(), "public (empty ACL)");
    // Headers read as words, a unit in parentheses, as "started (UTC)" does: not "latency ms", nor a field name.
    await page.goto(`${serve.uiUrl}/traces`);
    assert.equal(await page.locator("#traces thead th").nth(9).textContent(), "latency (ms)");
    await page.goto(`${serve.uiUrl}/runs/compare?candidate=run-2&baseline=run-1`);
    assert.deepEqual(await page.locator("#run-summaries tbody th").allTextContents(), ["cases", "passed", "failed", "review required", "unjudged", "not evaluated", "partial"]);
  });
});

describe("an empty store", () => {
  let empty: ServeWithUi;
  before(async () => {
    empty = await startServeWithUi(path.join(folder, "empty"), {});
  });
  after(async () => {
    await empty?.stop();
  });

  test("the runs page says how to get a run, instead of an empty table and a form comparing nothing", async () => {
    const page = await (await fetch(`${empty.uiUrl}/runs`)).text();
    assert.match(page, /<p id="no-runs" class="muted">No run stored yet: <code>ragscope eval/);
    assert.doesNotMatch(page, /action="\/runs\/compare"/);
  });
});
