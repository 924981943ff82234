/**
 * The failing requests no root-cause label explains, as users meet them: the Failures page counts them "without a
 * root-cause label" and links that count to the traces list under root_cause=UNATTRIBUTED, which lists exactly them,
 * on the page and in /api/traces; the Grafana Failures board (`ragscope report` runs its queries) counts them apart
 * from the labels' bars, as many. Before, /api/traces and /traces refused root_cause=UNATTRIBUTED ("is not a
 * root-cause label"), the count had no link, and the traces page offered no such choice.
 *
 * End to end: `ragscope eval` (a subprocess) over test/e2e/ui/data/two-reviewers.yaml — one case review_required
 * (the evaluator gave it no root cause), one failed with the evaluator's cause, one passed — then `ragscope serve`
 * with its UI and two reviewer tokens; both reviewers fail the review_required case on the UI's review form without
 * choosing a cause, so it fails without a label. Worked by hand: 2 failing requests, 1 under the evaluator's label,
 * 1 without a label (the reviewed case).
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
const RUN = "unattributed-failures-run";
const DATASET = path.join(projectRoot, "test/e2e/ui/data/two-reviewers.yaml");
const TASK = path.join(projectRoot, "test/e2e/ui/tasks/listed-chunks-task.ts");
const ENVIRONMENT = { RAGSCOPE_CLICKHOUSE_URL: "" };
const headers = { authorization: `Bearer ${ALICE}` };

interface EvalOutput {
  case_results: { case_result_id: string; case_id: string; quality_status: string }[];
  evaluation_results: { case_result_id: string; evaluator_id: string; reason: string }[];
}

let folder: string;
let serve: ServeWithUi;
let uiUrl: string;
let reviewRequired = "";
let automaticCause = "";

/** A reviewer fails the case's first metric on the review form, posted as a browser posts it, choosing no root cause. */
async function failWithoutRootCause(token: string, caseResultId: string): Promise<void> {
  const form = await (await fetch(`${uiUrl}/review/${caseResultId}`, { headers: { authorization: `Bearer ${token}` } })).text();
  const metric = /name="metric:([^"]+)"/.exec(form)?.[1];
  assert.ok(metric, "the review form offers a metric");
  const saved = await fetch(`${uiUrl}/review/${caseResultId}`, {
    method: "POST",
    redirect: "manual",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ [`metric:${metric}`]: "fail", root_cause: "", comment: "wrong, and no label says why" }).toString(),
  });
  assert.equal(saved.status, 303, await saved.text());
}

/** The traces a list address shows: the HTML page's rows, and /api/traces under the same query with their root causes. */
async function listedTraces(address: string): Promise<{ rows: string[]; api: { caseResultId: string; rootCause: string | null }[] }> {
  const listPage = await fetch(`${uiUrl}${address}`, { headers });
  const html = await listPage.text();
  assert.equal(listPage.status, 200, html);
  const api = await fetch(`${uiUrl}/api/traces${new URL(address, uiUrl).search}`, { headers });
  const body = await api.text();
  assert.equal(api.status, 200, body);
  const { traces } = JSON.parse(body) as { traces: { caseResultId: string; rootCause: string | null }[] };
  return { rows: [...html.matchAll(/<tr data-case-result-id="([^"]+)">/g)].map((match) => match[1]!), api: traces.map((trace) => ({ caseResultId: trace.caseResultId, rootCause: trace.rootCause })) };
}

before(async () => {
  folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-unattributed-failures-"));
  const dataDir = path.join(folder, "chdb");
  const evaluated = await runRagscope(["eval", "--dataset", DATASET, "--task", TASK, "--run-id", RUN, "--data-dir", dataDir, "--output", path.join(folder, "results.json")], ENVIRONMENT);
  assert.equal(evaluated.status, 2, evaluated.stdout + evaluated.stderr);
  const output = JSON.parse(await readFile(path.join(folder, "results.json"), "utf8")) as EvalOutput;
  const caseOf = (caseId: string) => output.case_results.find((item) => item.case_id === caseId)!;
  assert.equal(caseOf("refund_listed_twice").quality_status, "review_required");
  assert.equal(caseOf("warranty_missed").quality_status, "failed");
  reviewRequired = caseOf("refund_listed_twice").case_result_id;
  const cause = output.evaluation_results.find((item) => item.case_result_id === caseOf("warranty_missed").case_result_id && item.evaluator_id === "root_cause");
  assert.ok(cause, "the evaluator gave the failed case a root cause");
  automaticCause = cause.reason.slice(0, cause.reason.indexOf(":"));
  serve = await startServeWithUi(dataDir, { ...ENVIRONMENT, RAGSCOPE_UI_TOKENS: `alice=${ALICE},bob=${BOB}` });
  uiUrl = serve.uiUrl;
  await failWithoutRootCause(ALICE, reviewRequired);
  await failWithoutRootCause(BOB, reviewRequired);
});

after(async () => {
  if (serve !== undefined) await serve.stop();
  await rm(folder, { recursive: true, force: true });
});

describe("failing requests without a root-cause label", () => {
  test("the Failures page's count links to the traces list, which lists as many, the page and the API alike", async () => {
    const answer = await fetch(`${uiUrl}/api/failures?run=${RUN}`, { headers });
    const { board } = (await answer.json()) as { board: { failing: number; withoutRootCause: number } };
    assert.deepEqual([board.failing, board.withoutRootCause], [2, 1]);
    const page = await (await fetch(`${uiUrl}/failures?run=${RUN}`, { headers })).text();
    assert.match(page, /<span id="without-root-cause">1<\/span> without a root-cause label \(<a id="without-root-cause-traces"/);
    const link = /<a id="without-root-cause-traces" class="drill-down" href="([^"]+)"/.exec(page)?.[1]?.replaceAll("&amp;", "&");
    assert.ok(link !== undefined, "the count links to its traces");
    assert.match(link, /^\/traces\?root_cause=UNATTRIBUTED&verdict=failed&/);
    const listed = await listedTraces(link);
    assert.deepEqual(listed.rows, [reviewRequired], "the list under the link holds the count's request");
    assert.deepEqual(listed.api, [{ caseResultId: reviewRequired, rootCause: null }]);
    assert.equal(listed.api.length, board.withoutRootCause);
    // Asked of the API without a verdict: the failed requests all the same.
    assert.deepEqual((await listedTraces(`/traces?root_cause=UNATTRIBUTED&run=${RUN}`)).api, [{ caseResultId: reviewRequired, rootCause: null }]);
    // The evaluator's label lists its own request, not this one.
    assert.notDeepEqual((await listedTraces(`/traces?root_cause=${automaticCause}&verdict=failed&run=${RUN}`)).rows, [reviewRequired]);
  });

  test("the traces page offers UNATTRIBUTED among the root causes, and a verdict it cannot have is refused with the reason", async () => {
    const page = await (await fetch(`${uiUrl}/traces?root_cause=UNATTRIBUTED`, { headers })).text();
    assert.match(page, /<option value="UNATTRIBUTED" selected>UNATTRIBUTED \(failed, without a root-cause label\)<\/option>/);
    const refused = await fetch(`${uiUrl}/api/traces?root_cause=UNATTRIBUTED&verdict=passed`, { headers });
    assert.equal(refused.status, 400);
    assert.match(((await refused.json()) as { error: string }).error, /^root_cause=UNATTRIBUTED lists failed requests without a root-cause label, so verdict=passed matches none/);
    const mistyped = await fetch(`${uiUrl}/api/traces?root_cause=UNATRIBUTED`, { headers });
    assert.equal(mistyped.status, 400);
    assert.match(((await mistyped.json()) as { error: string }).error, /or UNATTRIBUTED for the failed requests without one$/);
  });

  test("ragscope report (the Grafana Failures board's queries) draws the labels only and counts the request without one apart", async () => {
    assert.equal(await serve.stop(), 0, serve.output());
    const out = path.join(folder, "report.html");
    const report = await runRagscope(["report", "--data-dir", path.join(folder, "chdb"), "--out", out], ENVIRONMENT);
    assert.equal(report.status, 0, report.stderr);
    assert.match(report.stdout, /^ {2}Without a root-cause label: Failing requests 1$/m, report.stdout);
    const html = await readFile(out, "utf8");
    const panel = /<figure class="panel" data-panel-type="barchart"[^>]*><figcaption>Root causes<.*?<\/figure>/s.exec(html)?.[0] ?? "";
    const bars = [...panel.matchAll(/<title>([A-Z_]+) · [^:<]*: (\d+)<\/title>/g)].map((match) => [match[1], Number(match[2])]);
    assert.deepEqual(bars, [[automaticCause, 1]], panel);
  });
});
