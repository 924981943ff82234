/**
 * The Failures board attributes a failing request to the root cause its reviewers agreed on, by the final verdict's
 * agreement rule (evaluators/reviewed-verdict.ts: two reviewers, agreeing), and falls back to the root-cause
 * evaluator's label otherwise (dashboards/source/root-causes.ts attributedRootCauses). End to end as users meet it:
 * `ragscope eval` (a subprocess) over test/e2e/ui/data/two-reviewers.yaml — one case review_required (so the evaluator
 * gave it no root cause), one failed with the evaluator's root cause — then `ragscope serve` with its UI and two
 * reviewer tokens (a subprocess), the reviews posted to the UI's own form route as a browser posts them, and
 * /failures and /api/failures read over HTTP.
 *
 * Checked:
 * - one reviewer failing both cases with HALLUCINATION changes nothing: the review_required case is not failing yet,
 *   the failed one keeps the evaluator's cause;
 * - the second reviewer agreeing: both are failing and counted under HALLUCINATION, none "without a root cause";
 * - `ragscope report` (a subprocess, after serve stops) runs the Grafana Failures board's "Root causes" panel over
 *   root_cause_rollups, which serve refreshed after the reviews: the same two under HALLUCINATION; its "Failing
 *   cases" table gives both HALLUCINATION as primary label, "chosen by agreeing reviewers" (after the withdrawal
 *   below: one of them, the other back to the evaluator's cause);
 * - the trace list counts them alike: the Failures page's "show the traces" link of HALLUCINATION lists as many
 *   traces as its bar counts (the HTML list and /api/traces under that filter), each with the reviewers' cause in
 *   the root-cause column, and the evaluator's cause lists none; the trace page and /api/traces/:id show the
 *   reviewers' cause beside the evaluator's;
 * - a reviewer who chose the cause and then saves "none" withdraws it: her form comes back with "none", and the case
 *   is no longer counted under the cause by the board, the traces list's root_cause filter or the trace page — only
 *   one reviewer still chose it, so the evaluator's cause is the case's again; the queue's root-cause agreement
 *   between reviewers no longer pairs her withdrawal with the other's cause.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { startServeWithUi, type ServeWithUi } from "../../support/serve-with-ui.js";
import { projectRoot, runRagscope } from "../experiments/support/run-ragscope.js";

const ALICE = "alice-token-0123456789abcdef";
const BOB = "bob-token-0123456789abcdef00";
const RUN = "reviewed-root-cause-run";
const DATASET = path.join(projectRoot, "test/e2e/ui/data/two-reviewers.yaml");
const TASK = path.join(projectRoot, "test/e2e/ui/tasks/listed-chunks-task.ts");
const ENVIRONMENT = { RAGSCOPE_CLICKHOUSE_URL: "" };
const CHOSEN = "HALLUCINATION";

interface EvalOutput {
  case_results: { case_result_id: string; case_id: string; quality_status: string }[];
  evaluation_results: { case_result_id: string; evaluator_id: string; reason: string }[];
}

interface FailureBoardAnswer {
  board: { failing: number; withoutRootCause: number; groups: { rootCause: string; failing: number }[] };
}

let folder: string;
let serve: ServeWithUi;
let uiUrl: string;
let reviewRequired = "";
let failedCase = "";
let automaticCause = "";

/** A review form posted as a browser posts it (application/x-www-form-urlencoded), with a reviewer's token. */
async function failWithRootCause(token: string, caseResultId: string, rootCause = CHOSEN): Promise<void> {
  const form = await (await fetch(`${uiUrl}/review/${caseResultId}`, { headers: { authorization: `Bearer ${token}` } })).text();
  const metric = /name="metric:([^"]+)"/.exec(form)?.[1];
  assert.ok(metric, "the review form offers a metric");
  const saved = await fetch(`${uiUrl}/review/${caseResultId}`, {
    method: "POST",
    redirect: "manual",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ [`metric:${metric}`]: "fail", root_cause: rootCause, comment: "the answer states what no chunk says" }).toString(),
  });
  assert.equal(saved.status, 303, await saved.text());
}

/** The Failures page's row of `cause`: its count and its "show the traces" link (HTML-escaped in the page). */
async function failuresRow(cause: string): Promise<{ failing: number; link: string | null }> {
  const answer = await fetch(`${uiUrl}/failures?run=${RUN}`, { headers: { authorization: `Bearer ${ALICE}` } });
  const page = await answer.text();
  assert.equal(answer.status, 200, page);
  const row = new RegExp(`<tr data-root-cause="${cause}">(.*?)</tr>`, "s").exec(page)?.[1] ?? "";
  const href = /<a class="drill-down" href="([^"]+)"/.exec(row)?.[1];
  return { failing: Number(/<td class="failing">(\d+)<\/td>/.exec(row)?.[1] ?? Number.NaN), link: href === undefined ? null : href.replaceAll("&amp;", "&") };
}

/** The traces a list address shows: the HTML page's rows, and /api/traces under the same query with their root causes. */
async function listedTraces(address: string): Promise<{ rows: string[]; api: { caseResultId: string; rootCause: string | null }[] }> {
  const headers = { authorization: `Bearer ${ALICE}` };
  const listPage = await fetch(`${uiUrl}${address}`, { headers });
  const html = await listPage.text();
  assert.equal(listPage.status, 200, html);
  const query = new URL(address, uiUrl).search;
  const api = await fetch(`${uiUrl}/api/traces${query}`, { headers });
  const body = await api.text();
  assert.equal(api.status, 200, body);
  const { traces } = JSON.parse(body) as { traces: { caseResultId: string; rootCause: string | null }[] };
  return { rows: [...html.matchAll(/<tr data-case-result-id="([^"]+)">/g)].map((match) => match[1]!).sort(), api: traces.map((trace) => ({ caseResultId: trace.caseResultId, rootCause: trace.rootCause })).sort((first, second) => (first.caseResultId < second.caseResultId ? -1 : 1)) };
}

async function apiBoard(): Promise<{ failing: number; withoutRootCause: number; counts: Map<string, number> }> {
  const answer = await fetch(`${uiUrl}/api/failures?run=${RUN}`, { headers: { authorization: `Bearer ${ALICE}` } });
  const body = await answer.text();
  assert.equal(answer.status, 200, body);
  const { board } = JSON.parse(body) as FailureBoardAnswer;
  return { failing: board.failing, withoutRootCause: board.withoutRootCause, counts: new Map(board.groups.map((group) => [group.rootCause, group.failing])) };
}

async function pageBoard(): Promise<{ failing: number; withoutRootCause: number; chosen: number }> {
  const answer = await fetch(`${uiUrl}/failures?run=${RUN}`, { headers: { authorization: `Bearer ${ALICE}` } });
  const page = await answer.text();
  assert.equal(answer.status, 200, page);
  const number = (pattern: RegExp) => Number(pattern.exec(page)?.[1] ?? Number.NaN);
  return {
    failing: number(/<span id="failing-total">(\d+)<\/span>/),
    withoutRootCause: number(/<span id="without-root-cause">(\d+)<\/span>/),
    chosen: number(new RegExp(`<tr data-root-cause="${CHOSEN}">.*?<td class="failing">(\\d+)</td>`, "s")),
  };
}

before(async () => {
  folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-reviewed-root-cause-"));
  const dataDir = path.join(folder, "chdb");
  const evaluated = await runRagscope(["eval", "--dataset", DATASET, "--task", TASK, "--run-id", RUN, "--data-dir", dataDir, "--output", path.join(folder, "results.json")], ENVIRONMENT);
  assert.equal(evaluated.status, 2, evaluated.stdout + evaluated.stderr);
  const output = JSON.parse(await readFile(path.join(folder, "results.json"), "utf8")) as EvalOutput;
  const caseOf = (caseId: string) => output.case_results.find((item) => item.case_id === caseId)!;
  assert.equal(caseOf("refund_listed_twice").quality_status, "review_required");
  assert.equal(caseOf("warranty_missed").quality_status, "failed");
  reviewRequired = caseOf("refund_listed_twice").case_result_id;
  failedCase = caseOf("warranty_missed").case_result_id;
  const cause = output.evaluation_results.find((item) => item.case_result_id === failedCase && item.evaluator_id === "root_cause");
  assert.ok(cause, "the evaluator gave the failed case a root cause");
  automaticCause = cause.reason.slice(0, cause.reason.indexOf(":"));
  assert.notEqual(automaticCause, CHOSEN, "the reviewers choose another cause than the evaluator's");
  assert.equal(output.evaluation_results.some((item) => item.case_result_id === reviewRequired && item.evaluator_id === "root_cause"), false, "a case needing review has no automatic root cause");
  serve = await startServeWithUi(dataDir, { ...ENVIRONMENT, RAGSCOPE_UI_TOKENS: `alice=${ALICE},bob=${BOB}` });
  uiUrl = serve.uiUrl;
});

after(async () => {
  if (serve !== undefined) await serve.stop();
  await rm(folder, { recursive: true, force: true });
});

describe("the Failures board attributes a case to the root cause its reviewers agreed on", () => {
  test("one reviewer alone decides nothing: the evaluator's cause stays", async () => {
    await failWithRootCause(ALICE, reviewRequired);
    await failWithRootCause(ALICE, failedCase);
    const board = await apiBoard();
    assert.equal(board.failing, 1);
    assert.equal(board.counts.get(automaticCause), 1);
    assert.equal(board.counts.get(CHOSEN), 0);
    assert.equal(board.withoutRootCause, 0);
  });

  test("two agreeing reviewers: both cases failing under their cause, on the page and in the API", async () => {
    await failWithRootCause(BOB, reviewRequired);
    await failWithRootCause(BOB, failedCase);
    const board = await apiBoard();
    assert.equal(board.failing, 2);
    assert.equal(board.counts.get(CHOSEN), 2);
    assert.equal(board.counts.get(automaticCause), 0);
    assert.equal(board.withoutRootCause, 0);
    assert.deepEqual(await pageBoard(), { failing: 2, withoutRootCause: 0, chosen: 2 });
  });

  test("the Failures link lists as many traces as its bar counts, under the reviewers' cause; the trace page shows it beside the evaluator's", async () => {
    const chosen = await failuresRow(CHOSEN);
    assert.equal(chosen.failing, 2);
    assert.ok(chosen.link !== null, "the bar links to its traces");
    assert.match(chosen.link, /root_cause=HALLUCINATION/);
    const listed = await listedTraces(chosen.link);
    const both = [failedCase, reviewRequired].sort();
    assert.deepEqual(listed.rows, both, "the list under the link holds the bar's traces");
    assert.deepEqual(listed.api, both.map((caseResultId) => ({ caseResultId, rootCause: CHOSEN })), "each with the reviewers' cause in the column");
    // The evaluator's cause counts none on the board, and its filter lists none.
    const automatic = await failuresRow(automaticCause);
    assert.deepEqual(automatic, { failing: 0, link: null });
    assert.deepEqual((await listedTraces(`/traces?root_cause=${automaticCause}&verdict=failed&run=${RUN}`)).api, []);

    const headers = { authorization: `Bearer ${ALICE}` };
    const tracePage = await (await fetch(`${uiUrl}/traces/${encodeURIComponent(failedCase)}`, { headers })).text();
    const section = /<section id="root-cause">(.*?)<\/section>/s.exec(tracePage)?.[1] ?? "";
    assert.match(section, new RegExp(`<strong id="root-cause-label">${CHOSEN}</strong> <span class="root-cause-meaning"[^>]*>[^<]+</span> <span class="muted seed-wording" lang="zh">[^<]+</span> <span class="muted" id="root-cause-source">\\(reviewers' agreed; evaluator said ${automaticCause}\\)</span>`), section);
    // The evaluator's other cause reads with its meaning too, not as a bare label.
    assert.match(section, new RegExp(`<p id="evaluator-root-cause">The evaluator's ${automaticCause} <span class="root-cause-meaning"[^>]*>[^<]+</span> <span class="muted seed-wording" lang="zh">[^<]+</span>: `), section);
    const reviewedOnly = await (await fetch(`${uiUrl}/traces/${encodeURIComponent(reviewRequired)}`, { headers })).text();
    assert.match(/<section id="root-cause">(.*?)<\/section>/s.exec(reviewedOnly)?.[1] ?? "", new RegExp(`<strong id="root-cause-label">${CHOSEN}</strong> <span class="root-cause-meaning"[^>]*>[^<]+</span> <span class="muted seed-wording" lang="zh">[^<]+</span> <span class="muted" id="root-cause-source">\\(reviewers' agreed; the evaluator gave none\\)</span>`));
    const detail = (await (await fetch(`${uiUrl}/api/traces/${encodeURIComponent(failedCase)}`, { headers })).json()) as { rootCause: unknown };
    assert.deepEqual(detail.rootCause, { rootCause: CHOSEN, reviewed: CHOSEN, automatic: automaticCause });
  });

  test("a reviewer who saves \"none\" withdraws her root cause: the form, the board, the list and the trace page no longer count it", async () => {
    await failWithRootCause(ALICE, failedCase, "");
    const headers = { authorization: `Bearer ${ALICE}` };
    const form = await (await fetch(`${uiUrl}/review/${failedCase}`, { headers })).text();
    assert.doesNotMatch(form, /<option value="[A-Z_]+" selected>/, "the form shows no root cause of hers");
    const board = await apiBoard();
    assert.equal(board.failing, 2);
    assert.equal(board.counts.get(CHOSEN), 1, "only the case both reviewers still chose it for");
    assert.equal(board.counts.get(automaticCause), 1, "the other is the evaluator's again");
    assert.deepEqual((await listedTraces(`/traces?root_cause=${CHOSEN}&run=${RUN}`)).api, [{ caseResultId: reviewRequired, rootCause: CHOSEN }]);
    const tracePage = await (await fetch(`${uiUrl}/traces/${encodeURIComponent(failedCase)}`, { headers })).text();
    const section = /<section id="root-cause">(.*?)<\/section>/s.exec(tracePage)?.[1] ?? "";
    assert.match(section, new RegExp(`<strong id="root-cause-label">${automaticCause}</strong>`), section);
    assert.doesNotMatch(section, /reviewers' agreed/, section);
    const detail = (await (await fetch(`${uiUrl}/api/traces/${encodeURIComponent(failedCase)}`, { headers })).json()) as { rootCause: unknown };
    assert.deepEqual(detail.rootCause, { rootCause: automaticCause, reviewed: null, automatic: automaticCause });
    // Nor is her withdrawal a rating the queue's agreement between reviewers pairs with the other's cause.
    const queue = (await (await fetch(`${uiUrl}/api/review`, { headers })).json()) as { agreement: { reviewers: { metric: string; statistics: { items: number } }[] } };
    assert.equal(queue.agreement.reviewers.find((entry) => entry.metric === "root_cause")?.statistics.items, 1, "only the case both still chose a cause for is compared");
  });

  test("ragscope report's root-cause panels (the Grafana Failures board's queries over root_cause_rollups) and its Failing cases table count them alike", async () => {
    assert.equal(await serve.stop(), 0, serve.output());
    const out = path.join(folder, "report.html");
    const report = await runRagscope(["report", "--data-dir", path.join(folder, "chdb"), "--out", out], ENVIRONMENT);
    assert.equal(report.status, 0, report.stderr);
    const html = await readFile(out, "utf8");
    // The bar chart "Root causes": one bar per label over the range, titled "<label> · <series>: <count>".
    const panel = /<figure class="panel" data-panel-type="barchart"[^>]*><figcaption>Root causes<.*?<\/figure>/s.exec(html)?.[0] ?? "";
    const bars = [...panel.matchAll(/<title>([A-Z_]+) · [^:<]*: (\d+)<\/title>/g)].map((match) => [match[1], Number(match[2])]);
    assert.deepEqual(bars.sort(), [[automaticCause, 1], [CHOSEN, 1]].sort(), panel);
    const table = /<figure class="panel" data-panel-type="table"[^>]*><figcaption>Failing cases<.*?<\/figure>/s.exec(html)?.[0] ?? "";
    // The "Failing cases" table: each case's primary label is the reviewers' cause, its reason says so.
    const labels = [...table.matchAll(/<tr><td>[^<]*<\/td><td>[^<]*<\/td><td>([^<]*)<\/td><td>[^<]*<\/td><td>([^<]*)<\/td><td>([^<]*)<\/td>/g)].map((match) => [match[1], match[2], match[3]!.startsWith("chosen by agreeing reviewers")]).sort();
    assert.deepEqual(labels, [["refund_listed_twice", CHOSEN, true], ["warranty_missed", automaticCause, false]], table);
  });
});
