/**
 * A human review never passes a request that did not complete
 * (evaluators/reviewed-verdict.ts): no answer reached the user, so two
 * reviewers who agree on a pass leave it failed, and every surface says why
 * instead of silently ignoring them. End to end as users meet it:
 * `ragscope eval` (a subprocess) with a task that runs its stages through the
 * SDK's wrappers (test/e2e/experiments/tasks/staged-rag-task.ts), then
 * `ragscope serve` with its UI and two reviewer tokens (a subprocess) and the
 * review form posted over real HTTP as a browser posts it, then
 * `ragscope gate` and `ragscope report` (subprocesses; the report runs the
 * Grafana dashboards' panel SQL over the store) reading the data folder.
 *
 * The two cases, worked by hand:
 * - c_crash: the reranker throws, the task throws mid-way (execution_status
 *   failed, execution_error.type system_error): automatic verdict failed.
 *   alice and bob pass every metric the form offers → final verdict failed,
 *   their pass set aside, no case decided by review.
 * - c_made_up: completed; its answer's number (40) contradicts the reference
 *   (12): automatic verdict failed. alice and bob pass it → passed, decided
 *   by their review (a review still decides a request that completed).
 * So after the reviews: 1 passed (judged), 1 failed, 1 decided by human
 * review; the traces list's `verdict=passed` holds c_made_up alone.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { startServeWithUi, type ServeWithUi } from "../../support/serve-with-ui.js";
import { runRagscope, tasksFolder } from "../experiments/support/run-ragscope.js";

const ALICE = "alice-token-0123456789abcdef";
const BOB = "bob-token-0123456789abcdef00";
const RUN = "incomplete-review";
const ENVIRONMENT = { RAGSCOPE_CLICKHOUSE_URL: "" };
const SET_ASIDE =
  "the reviewers agreed on a pass, but the request did not complete (execution_error.type system_error): no answer reached the user, so a review can confirm it failed but never pass it; the verdict stays failed";

const chunk = (id: string, document: string, text: string) => ({ chunk: id, document, text });
const cases = [
  {
    // The reranker throws: the task throws, nothing is answered.
    case_id: "c_crash",
    input: "How fast is a refund?",
    reference_answer: "Refunds reach the original payment method within 7 days.",
    gold_evidence: [{ document_id: "refund-policy", chunk_id: "refund-1", text: "Refunds reach the original payment method within 7 days." }],
    metadata: { retrieve: [chunk("refund-1", "refund-policy", "Refunds reach the original payment method within 7 days."), chunk("points-1", "member-points", "Member points expire 12 months after they are earned.")], rerank: "throw", answer: "never given" },
  },
  {
    // Completed, with an answer whose number contradicts the reference: failed by a rule.
    case_id: "c_made_up",
    input: "What does express shipping cost?",
    reference_answer: "Express shipping costs 12 dollars.",
    metadata: { retrieve: [chunk("ship-2", "shipping", "Express shipping is available for all orders.")], answer: "Express shipping costs 40 dollars and arrives by drone." },
  },
].map((item) => ({ case_version: "1", ...item }));

interface EvalOutput {
  case_results: { case_result_id: string; case_id: string; quality_status: string; execution_status: string; execution_error: { type: string } }[];
}

/** The gate's "Case verdicts:" line as numbers. */
function gateVerdicts(stdout: string): { passed: number; failed: number; reviewed: number } {
  const match = /Case verdicts: (\d+) passed \(judged\), (\d+) failed, .*; (\d+) decided by human review/.exec(stdout);
  assert.ok(match, stdout);
  return { passed: Number(match[1]), failed: Number(match[2]), reviewed: Number(match[3]) };
}

/** The report's verdict counts over the range (the rag-quality dashboard's panel over the request rollups). */
function reportVerdicts(stdout: string): { passed: number; failed: number } {
  const match = /Verdicts over the range: Passed \(judged\) (\d+) · Failed (\d+)/.exec(stdout);
  assert.ok(match, stdout);
  return { passed: Number(match[1]), failed: Number(match[2]) };
}

const asReviewer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

/** The metrics a review form offers, as a browser reads them from the page's radios. */
async function offeredMetrics(uiUrl: string, token: string, caseResultId: string): Promise<string[]> {
  const page = await (await fetch(`${uiUrl}/review/${caseResultId}`, asReviewer(token))).text();
  return [...new Set([...page.matchAll(/name="metric:([^"]+)"/g)].map((match) => match[1]!))].sort();
}

/** Passes every offered metric on the review form, posted as a browser posts it (application/x-www-form-urlencoded). */
async function passEverything(uiUrl: string, token: string, caseResultId: string): Promise<void> {
  const metrics = await offeredMetrics(uiUrl, token, caseResultId);
  assert.ok(metrics.length > 0, `the form of ${caseResultId} offers metrics`);
  const fields = { ...Object.fromEntries(metrics.map((metric) => [`metric:${metric}`, "pass"])), root_cause: "", comment: "looks right to me" };
  const saved = await fetch(`${uiUrl}/review/${caseResultId}`, { method: "POST", redirect: "manual", headers: { ...asReviewer(token).headers, "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(fields).toString() });
  assert.equal(saved.status, 303, await saved.text());
}

let folder: string;
let dataDir: string;
let crash = "";
let madeUp = "";
let serve: ServeWithUi | null = null;

before(async () => {
  folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-incomplete-review-"));
  dataDir = path.join(folder, "store");
  const dataset = path.join(folder, "cases.json");
  await writeFile(dataset, JSON.stringify({ dataset_id: "incomplete_review", dataset_version: "1", cases }));
  const output = path.join(folder, "results.json");
  const evaluated = await runRagscope(["eval", "--dataset", dataset, "--task", path.join(tasksFolder, "staged-rag-task.ts"), "--run-id", RUN, "--data-dir", dataDir, "--output", output], ENVIRONMENT);
  assert.equal(evaluated.status, 1, evaluated.stdout + evaluated.stderr);
  const results = JSON.parse(await readFile(output, "utf8")) as EvalOutput;
  const caseOf = (caseId: string) => results.case_results.find((item) => item.case_id === caseId)!;
  assert.deepEqual([caseOf("c_crash").execution_status, caseOf("c_crash").execution_error.type, caseOf("c_crash").quality_status], ["failed", "system_error", "failed"]);
  assert.deepEqual([caseOf("c_made_up").execution_status, caseOf("c_made_up").quality_status], ["completed", "failed"]);
  crash = caseOf("c_crash").case_result_id;
  madeUp = caseOf("c_made_up").case_result_id;
});

after(async () => {
  if (serve !== null && serve.child.exitCode === null) serve.child.kill("SIGKILL");
  await rm(folder, { recursive: true, force: true });
});

describe("two reviewers' pass of a request whose reranker threw", () => {
  test("the review form says before anyone labels that a review cannot pass it; after both pass it, the traces list, the trace and the read API show it failed, with why", async () => {
    serve = await startServeWithUi(dataDir, { ...ENVIRONMENT, RAGSCOPE_UI_TOKENS: `alice=${ALICE},bob=${BOB}` });
    const uiUrl = serve.uiUrl;
    try {
      const form = await (await fetch(`${uiUrl}/review/${crash}`, asReviewer(ALICE))).text();
      assert.match(form, /<p class="notice" id="incomplete-request">Note: the request did not complete \(execution_error\.type system_error\): no answer reached the user, so a review can confirm it failed but never pass it\./);
      const completedForm = await (await fetch(`${uiUrl}/review/${madeUp}`, asReviewer(ALICE))).text();
      assert.doesNotMatch(completedForm, /id="incomplete-request"/, "a request that completed carries no such note");

      for (const token of [ALICE, BOB]) for (const id of [crash, madeUp]) await passEverything(uiUrl, token, id);

      const listed = async (verdict: string) => ((await (await fetch(`${uiUrl}/api/traces?verdict=${verdict}`, asReviewer(BOB))).json()) as { traces: { caseResultId: string }[] }).traces.map((trace) => trace.caseResultId);
      assert.deepEqual(await listed("passed"), [madeUp], "the agreed pass of the request that completed decides it; the other's does not");
      assert.deepEqual(await listed("failed"), [crash]);

      const list = await (await fetch(`${uiUrl}/traces?run=${RUN}`, asReviewer(BOB))).text();
      assert.match(list, new RegExp(`<tr data-case-result-id="${crash}">.*?data-verdict="failed" data-human="no">failed</span> <span class="review-state muted" data-review-state="set-aside">${SET_ASIDE.replace(/[()]/g, "\\$&")}</span>`, "s"));
      assert.match(list, new RegExp(`<tr data-case-result-id="${madeUp}">.*?data-verdict="passed" data-human="yes">`, "s"));

      const trace = await (await fetch(`${uiUrl}/traces/${crash}`, asReviewer(BOB))).text();
      assert.match(trace, /<td id="verdict"><span class="verdict failed" data-verdict="failed" data-human="no">failed<\/span> <span class="muted" data-review-state="set-aside">the reviewers agreed on a pass, but the request did not complete \(execution_error\.type system_error\)[^<]*\(reviewed by alice, bob\)<\/span><\/td>/);

      const detail = (await (await fetch(`${uiUrl}/api/traces/${crash}`, asReviewer(BOB))).json()) as { humanVerdict: { verdict: string; state: string }; finalVerdict: unknown };
      assert.deepEqual([detail.humanVerdict.verdict, detail.humanVerdict.state], ["passed", "agreed"], "the reviewers' own verdict is kept as they gave it");
      assert.deepEqual(detail.finalVerdict, { verdict: "failed", reviewedBy: [], reviewSetAside: SET_ASIDE });
    } finally {
      serve.child.kill("SIGTERM");
      assert.equal(await serve.exited, 0, serve.output());
      serve = null;
    }
  });

  test("ragscope gate and ragscope report (the dashboards' panel SQL over the store) count it failed, and only the other case decided by review", async () => {
    const gate = await runRagscope(["gate", "--run", RUN, "--data-dir", dataDir], ENVIRONMENT);
    assert.deepEqual(gateVerdicts(gate.stdout), { passed: 1, failed: 1, reviewed: 1 }, gate.stdout + gate.stderr);
    const report = await runRagscope(["report", "--data-dir", dataDir, "--run", RUN, "--out", path.join(folder, "report.html")], ENVIRONMENT);
    assert.equal(report.status, 0, report.stdout + report.stderr);
    assert.deepEqual(reportVerdicts(report.stdout), { passed: 1, failed: 1 });
  });
});
