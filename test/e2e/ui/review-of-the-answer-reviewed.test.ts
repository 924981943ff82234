/**
 * A human review is of the answer the reviewers read (evaluators/judge/calibration/human-label.ts): a case sent again
 * with another answer gets its automatic verdict back until it is reviewed again, rather than showing the earlier
 * answer's "passed (human)". End to end as users meet it: `ragscope serve` with two reviewer tokens (a subprocess),
 * an application's harness posting run "review-resent"'s case "refund_days" to its OTLP receiver, the reviews posted
 * to the UI's form route as a browser posts them, a labels file imported over HTTP, and `ragscope gate` (a
 * subprocess) reading the verdicts after serve stops.
 *
 * Worked by hand:
 *   1. request A (yesterday 10:00, "30 days"): alice and bob pass every metric the form offers → passed (human), the
 *      gate counts 1 decided by human review;
 *   2. the harness sends the case again the same day (request B, 11:00, "45 days": the same Case Result id, its own
 *      trace id; it replaces A as the case's request) → no review of B: the automatic verdict, the gate counts 0
 *      decided by review; the labels are kept, exported with A's trace id;
 *   3. alice and bob import a labels file without trace ids (labelled at the import's time) → bound to B, the newest
 *      request started before them: passed (human) again, 1 decided by review.
 * Before, step 2 showed B "passed (human)" by alice and bob, with label times from before B existed, and the gate
 * counted it as decided by review.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { oneRequestOtlp } from "../../support/one-request-otlp.js";
import { startServeWithUi, type ServeWithUi } from "../../support/serve-with-ui.js";
import { runRagscope } from "../experiments/support/run-ragscope.js";

const ALICE = "alice-token-0123456789abcdef";
const BOB = "bob-token-0123456789abcdef00";
const RUN = "review-resent";
const ENVIRONMENT = { RAGSCOPE_CLICKHOUSE_URL: "", RAGSCOPE_QUIET_PERIOD_MS: "200", RAGSCOPE_UI_TOKENS: `alice=${ALICE},bob=${BOB}` };
const DAY_MS = 86_400_000;
/** Yesterday's midnight UTC: both requests are on that day, in the past whatever the time now. */
const yesterday = Math.floor(Date.now() / DAY_MS) * DAY_MS - DAY_MS;
const REQUEST_A = { traceId: "a7000000000000000000000000000001", startMs: yesterday + 10 * 3_600_000, answer: "Refunds are accepted within 30 days." };
const REQUEST_B = { traceId: "a7000000000000000000000000000002", startMs: yesterday + 11 * 3_600_000, answer: "Refunds are accepted within 45 days." };

interface Detail {
  caseResult: { case_result_id: string; trace_id: string; quality_status: string };
  humanVerdict: { verdict: string | null; state: string; reviewers: string[] } | null;
  finalVerdict: { verdict: string; reviewedBy: string[] };
}

let folder: string;
let dataDir: string;
let serve: ServeWithUi | null = null;
let caseResultId = "";

const authorization = (token: string) => ({ authorization: `Bearer ${token}` });

function send(request: { traceId: string; startMs: number; answer: string }): Promise<Response> {
  const body = oneRequestOtlp({
    traceId: request.traceId,
    serviceName: "support-bot",
    startMs: request.startMs,
    spans: [{ name: "rag.request", attributes: { "openinference.span.kind": "CHAIN", "ragscope.stage": "request", "ragscope.run_id": RUN, "ragscope.case_id": "refund_days", "ragscope.case_version": "1", "ragscope.query": "what is the refund window?", "ragscope.answer": request.answer } }],
  });
  return fetch(`${serve!.receiverUrl}/v1/traces`, { method: "POST", headers: { "content-type": "application/json" }, body });
}

/** The case's request as the trace page opens it (its newest), polled (bounded) until it is `traceId`'s. */
async function storedRequest(traceId: string): Promise<Detail> {
  for (let attempt = 0; ; attempt += 1) {
    const listed = ((await (await fetch(`${serve!.uiUrl}/api/traces?run=${RUN}`, { headers: authorization(ALICE) })).json()) as { traces: { caseResultId: string; traceId: string }[] }).traces;
    const found = listed.find((trace) => trace.traceId === traceId);
    if (found !== undefined) {
      caseResultId = found.caseResultId;
      const detail = (await (await fetch(`${serve!.uiUrl}/api/traces/${encodeURIComponent(caseResultId)}`, { headers: authorization(ALICE) })).json()) as Detail;
      if (detail.caseResult.trace_id === traceId) return detail;
    }
    if (attempt >= 600) assert.fail(`request ${traceId} was not stored within 60 s: ${JSON.stringify(listed)}\n${serve!.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function offeredMetrics(token: string): Promise<string[]> {
  const page = await (await fetch(`${serve!.uiUrl}/review/${encodeURIComponent(caseResultId)}`, { headers: authorization(token) })).text();
  return [...new Set([...page.matchAll(/name="metric:([^"]+)"/g)].map((match) => match[1]!))].sort();
}

async function passAll(token: string): Promise<void> {
  const metrics = await offeredMetrics(token);
  assert.ok(metrics.length > 0, "the review form offers metrics");
  const saved = await fetch(`${serve!.uiUrl}/review/${encodeURIComponent(caseResultId)}`, {
    method: "POST",
    redirect: "manual",
    headers: { ...authorization(token), "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(Object.fromEntries(metrics.map((metric) => [`metric:${metric}`, "pass"]))).toString(),
  });
  assert.equal(saved.status, 303, await saved.text());
}

async function stopServe(): Promise<void> {
  assert.equal(await serve!.stop(), 0, serve!.output());
  serve = null;
}

/** The gate's count of cases decided by human review. */
async function decidedByReview(): Promise<number> {
  const gate = await runRagscope(["gate", "--run", RUN, "--data-dir", dataDir], ENVIRONMENT);
  const verdicts = /Case verdicts: .*; (\d+) decided by human review/.exec(gate.stdout);
  assert.ok(verdicts, gate.stdout + gate.stderr);
  return Number(verdicts[1]);
}

before(async () => {
  folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-review-resent-"));
  dataDir = path.join(folder, "chdb");
});

after(async () => {
  await serve?.stop();
  await rm(folder, { recursive: true, force: true });
});

describe("a review is of the answer the reviewers read", () => {
  test("alice and bob pass request A: passed (human), decided by review", async () => {
    serve = await startServeWithUi(dataDir, ENVIRONMENT);
    try {
      const answer = await send(REQUEST_A);
      assert.equal(answer.status, 200, await answer.text());
      const automatic = await storedRequest(REQUEST_A.traceId);
      assert.notEqual(automatic.caseResult.quality_status, "passed", "the automatic verdict is not a pass: the review is what passes it");
      await passAll(ALICE);
      await passAll(BOB);
      const reviewed = await storedRequest(REQUEST_A.traceId);
      assert.deepEqual(reviewed.humanVerdict, { verdict: "passed", state: "agreed", reviewers: ["alice", "bob"] });
      assert.equal(reviewed.finalVerdict.verdict, "passed");
    } finally {
      await stopServe();
    }
    assert.equal(await decidedByReview(), 1);
  });

  test("the case sent again with another answer (request B): its automatic verdict, no review; A's labels kept", async () => {
    serve = await startServeWithUi(dataDir, ENVIRONMENT);
    let automaticVerdict = "";
    try {
      const answer = await send(REQUEST_B);
      assert.equal(answer.status, 200, await answer.text());
      const resent = await storedRequest(REQUEST_B.traceId);
      assert.equal(resent.caseResult.case_result_id, caseResultId, "the same Case Result id: the same run, case and version");
      assert.equal(resent.humanVerdict, null, "nobody reviewed answer B");
      automaticVerdict = resent.caseResult.quality_status;
      assert.deepEqual(resent.finalVerdict, { verdict: automaticVerdict, reviewedBy: [], reviewSetAside: null });
      assert.notEqual(automaticVerdict, "passed");
      const listed = ((await (await fetch(`${serve.uiUrl}/api/traces?run=${RUN}&verdict=passed`, { headers: authorization(ALICE) })).json()) as { traces: unknown[] }).traces;
      assert.deepEqual(listed, [], "the trace list's verdict filter agrees");

      const exported = (await (await fetch(`${serve.uiUrl}/api/labels.jsonl`, { headers: authorization(ALICE) })).text()).trim().split("\n").map((line) => JSON.parse(line) as { labeler_id: string; trace_id: string });
      assert.ok(exported.length > 0);
      assert.deepEqual([...new Set(exported.map((label) => label.trace_id))], [REQUEST_A.traceId], "the labels are kept, of the answer reviewed");
    } finally {
      await stopServe();
    }
    assert.equal(await decidedByReview(), 0);
  });

  test("a labels file without trace ids, imported after B was stored, reviews B", async () => {
    serve = await startServeWithUi(dataDir, ENVIRONMENT);
    try {
      await storedRequest(REQUEST_B.traceId);
      for (const token of [ALICE, BOB]) {
        const lines = (await offeredMetrics(token)).map((metric) => JSON.stringify({ case_result_id: caseResultId, metric, verdict: "pass" }));
        const imported = await fetch(`${serve.uiUrl}/api/labels.jsonl`, { method: "POST", headers: { ...authorization(token), "content-type": "application/x-ndjson" }, body: `${lines.join("\n")}\n` });
        assert.equal(imported.status, 200, await imported.text());
      }
      const reviewed = await storedRequest(REQUEST_B.traceId);
      assert.deepEqual(reviewed.humanVerdict, { verdict: "passed", state: "agreed", reviewers: ["alice", "bob"] });
      const exported = (await (await fetch(`${serve.uiUrl}/api/labels.jsonl`, { headers: authorization(ALICE) })).text()).trim().split("\n").map((line) => JSON.parse(line) as { trace_id: string });
      assert.deepEqual([...new Set(exported.map((label) => label.trace_id))], [REQUEST_B.traceId], "the new labels replace the earlier ones, each reviewer's of each metric");
    } finally {
      await stopServe();
    }
    assert.equal(await decidedByReview(), 1);
  });
});
