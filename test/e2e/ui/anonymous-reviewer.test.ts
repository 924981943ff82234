/**
 * The anonymous reviewer of the web UI without tokens ("local") never counts toward the two agreeing reviewers who
 * decide a case, nor blocks them (evaluators/reviewed-verdict.ts ANONYMOUS_REVIEWER): one person labelling once with
 * a token and once without would otherwise be "two reviewers agree". End to end as users meet it: `ragscope eval` (a
 * subprocess) over test/e2e/ui/data/two-reviewers.yaml, `ragscope serve` with two reviewer tokens (carol, dave), then
 * restarted on loopback without tokens, the reviews posted to the UI's form route as a browser posts them, the
 * verdicts read over HTTP, and `ragscope gate` / `ragscope report` (subprocesses) after serve stops.
 *
 * The cases, worked by hand:
 *   refund_listed_twice  review_required; carol fails it (HALLUCINATION), then "local" fails it (HALLUCINATION)
 *                        → pending (carol alone counts): review_required, no reviewers' cause
 *   warranty_missed      failed; carol and dave pass every metric, "local" fails one
 *                        → agreed pass by carol and dave ("local" does not block it): passed
 *   shipping_found       passed, unlabelled
 * so the gate counts passed 2, failed 0, needs review 1, decided by review 1; before, passed 1, failed 2 (the first
 * "agreed" failed by carol and local, the second "disagreed"), needs review 0.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { startServeWithUi, type ServeWithUi } from "../../support/serve-with-ui.js";
import { projectRoot, runRagscope } from "../experiments/support/run-ragscope.js";

const CAROL = "carol-token-0123456789abcdef";
const DAVE = "dave-token-0123456789abcdef00";
const RUN = "anonymous-reviewer-run";
const DATASET = path.join(projectRoot, "test/e2e/ui/data/two-reviewers.yaml");
const TASK = path.join(projectRoot, "test/e2e/ui/tasks/listed-chunks-task.ts");
const ENVIRONMENT = { RAGSCOPE_CLICKHOUSE_URL: "" };

let folder: string;
let dataDir: string;
let serve: ServeWithUi | null = null;
let reviewRequired = "";
let failedCase = "";

const authorization = (token: string | null): Record<string, string> => (token === null ? {} : { authorization: `Bearer ${token}` });

/** The metrics a review form offers, as a reviewer's browser reads them from its radios. */
async function offeredMetrics(uiUrl: string, token: string | null, caseResultId: string): Promise<string[]> {
  const page = await (await fetch(`${uiUrl}/review/${caseResultId}`, { headers: authorization(token) })).text();
  return [...new Set([...page.matchAll(/name="metric:([^"]+)"/g)].map((match) => match[1]!))].sort();
}

/** A review form posted as a browser posts it; `token` null: the UI without tokens. */
async function review(uiUrl: string, token: string | null, caseResultId: string, fields: Record<string, string>): Promise<void> {
  const saved = await fetch(`${uiUrl}/review/${caseResultId}`, { method: "POST", redirect: "manual", headers: { ...authorization(token), "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(fields).toString() });
  assert.equal(saved.status, 303, await saved.text());
}

async function failOne(uiUrl: string, token: string | null, caseResultId: string): Promise<void> {
  const [metric] = await offeredMetrics(uiUrl, token, caseResultId);
  assert.ok(metric, "the review form offers a metric");
  await review(uiUrl, token, caseResultId, { [`metric:${metric}`]: "fail", root_cause: "HALLUCINATION" });
}

async function passAll(uiUrl: string, token: string, caseResultId: string): Promise<void> {
  const metrics = await offeredMetrics(uiUrl, token, caseResultId);
  assert.ok(metrics.length > 0, "the review form offers metrics");
  await review(uiUrl, token, caseResultId, Object.fromEntries(metrics.map((metric) => [`metric:${metric}`, "pass"])));
}

/** Runs `steps` with serve up (with `environment`), and stops it whatever they do: the next test's subprocesses open the data folder. */
async function withServe(environment: Record<string, string>, steps: (uiUrl: string) => Promise<void>): Promise<void> {
  serve = await startServeWithUi(dataDir, { ...ENVIRONMENT, ...environment });
  try {
    await steps(serve.uiUrl);
  } finally {
    assert.equal(await serve.stop(), 0, serve.output());
    serve = null;
  }
}

before(async () => {
  folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-anonymous-reviewer-"));
  dataDir = path.join(folder, "chdb");
  const evaluated = await runRagscope(["eval", "--dataset", DATASET, "--task", TASK, "--run-id", RUN, "--data-dir", dataDir, "--output", path.join(folder, "results.json")], ENVIRONMENT);
  assert.equal(evaluated.status, 2, evaluated.stdout + evaluated.stderr);
  const output = JSON.parse(await readFile(path.join(folder, "results.json"), "utf8")) as { case_results: { case_result_id: string; case_id: string; quality_status: string }[] };
  const caseOf = (caseId: string) => output.case_results.find((item) => item.case_id === caseId)!;
  assert.equal(caseOf("refund_listed_twice").quality_status, "review_required");
  assert.equal(caseOf("warranty_missed").quality_status, "failed");
  reviewRequired = caseOf("refund_listed_twice").case_result_id;
  failedCase = caseOf("warranty_missed").case_result_id;
});

after(async () => {
  await serve?.stop();
  await rm(folder, { recursive: true, force: true });
});

describe("the anonymous reviewer (the UI without tokens) counts toward no review", () => {
  test("carol and dave review with their tokens", async () => {
    await withServe({ RAGSCOPE_UI_TOKENS: `carol=${CAROL},dave=${DAVE}` }, async (uiUrl) => {
      await failOne(uiUrl, CAROL, reviewRequired);
      await passAll(uiUrl, CAROL, failedCase);
      await passAll(uiUrl, DAVE, failedCase);
    });
  });

  test("without tokens, \"local\" fails both: its labels are kept and shown, but decide and block nothing", async () => {
    await withServe({}, async (uiUrl) => {
      await failOne(uiUrl, null, reviewRequired);
      await failOne(uiUrl, null, failedCase);

      const detail = async (caseResultId: string) => (await (await fetch(`${uiUrl}/api/traces/${encodeURIComponent(caseResultId)}`)).json()) as { humanVerdict: unknown; finalVerdict: { verdict: string; reviewedBy: string[] }; rootCause: { reviewed: string | null }; humanLabels: { labeler_id: string }[] };
      const pending = await detail(reviewRequired);
      assert.deepEqual(pending.humanVerdict, { verdict: null, state: "pending", reviewers: ["carol"] });
      assert.equal(pending.finalVerdict.verdict, "review_required");
      assert.equal(pending.rootCause.reviewed, null, "carol alone chose the cause that counts");
      assert.deepEqual([...new Set(pending.humanLabels.map((label) => label.labeler_id))].sort(), ["carol", "local"], "the anonymous labels are kept and shown");
      const passed = await detail(failedCase);
      assert.deepEqual(passed.humanVerdict, { verdict: "passed", state: "agreed", reviewers: ["carol", "dave"] });
      assert.deepEqual(passed.finalVerdict, { verdict: "passed", reviewedBy: ["carol", "dave"], reviewSetAside: null });

      const listed = async (verdict: string) => ((await (await fetch(`${uiUrl}/api/traces?run=${RUN}&verdict=${verdict}`)).json()) as { traces: { caseResultId: string }[] }).traces.map((trace) => trace.caseResultId);
      assert.deepEqual(await listed("failed"), []);
      assert.deepEqual(await listed("review_required"), [reviewRequired]);
      const board = (await (await fetch(`${uiUrl}/api/failures?run=${RUN}`)).json()) as { board: { failing: number } };
      assert.equal(board.board.failing, 0);

      const queue = await (await fetch(`${uiUrl}/review`)).text();
      assert.match(queue, /<p class="notice" id="anonymous-reviews">Without tokens, every review here is by one anonymous reviewer/);
      assert.match(queue, /a verdict by review needs 2 named reviewers: reviewers with tokens \(RAGSCOPE_UI_TENANT_TOKENS\), or the labeler ids of a labels file imported here/);
    });
  });

  test("ragscope gate and ragscope report (the request rollups serve refreshed) count the verdicts alike", async () => {
    const gate = await runRagscope(["gate", "--run", RUN, "--data-dir", dataDir], ENVIRONMENT);
    const verdicts = /Case verdicts: (\d+) passed \(judged\), (\d+) failed, (\d+) need review, .*; (\d+) decided by human review/.exec(gate.stdout);
    assert.ok(verdicts, gate.stdout + gate.stderr);
    assert.deepEqual(verdicts.slice(1).map(Number), [2, 0, 1, 1]);
    const report = await runRagscope(["report", "--data-dir", dataDir, "--out", path.join(folder, "report.html")], ENVIRONMENT);
    assert.equal(report.status, 0, report.stderr);
    assert.match(report.stdout, /Verdicts over the range: Passed \(judged\) 2 · Failed 0 · Needs review 1/);
  });
});
