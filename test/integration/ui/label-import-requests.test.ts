/**
 * A labels file against a case sent twice, whose requests offer different metrics for review: each line is checked
 * against the metrics of the request it is bound to; a file may not split one reviewer's review of a case between two
 * requests, nor move a label off the request it reviews with `trace_id: ""`; and a reviewer's labels moved off their
 * request are theirs alone to see. Each refusal would otherwise leave a part of a review on a request, where it would
 * count as a pass, or tell another reviewer's verdict.
 *
 * The web UI server runs in-process on 127.0.0.1 over the in-memory store, with two reviewer tokens. Case cr_offers
 * was sent on 2026-07-08 (request A: judged on faithfulness and answer_relevance) and on 2026-07-09 (request B: judged
 * on faithfulness only), both routed to review.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createMemoryStore } from "../../../store/memory/memory-store.js";
import { startUiServer, type UiServer } from "../../../ui/ui-server.js";
import { buildCaseResult, judgeVerdict } from "../../support/case-results.js";

const TOKENS = { alice: "alice-token-0123456789abcdef", bob: "bob-token-0123456789abcdef00" };
const CASE = "cr_offers";
const A = { traceId: "aa000000000000000000000000000011", startedAt: "2026-07-08T09:00:00.000Z", metrics: ["faithfulness", "answer_relevance"] };
const B = { traceId: "bb000000000000000000000000000022", startedAt: "2026-07-09T09:00:00.000Z", metrics: ["faithfulness"] };

let server: UiServer;
const headers = (reviewer: keyof typeof TOKENS) => ({ authorization: `Bearer ${TOKENS[reviewer]}` });

async function importLines(reviewer: keyof typeof TOKENS, lines: readonly object[]): Promise<{ status: number; error: string }> {
  const answer = await fetch(`${server.url}/api/labels.jsonl`, { method: "POST", headers: { ...headers(reviewer), "content-type": "application/x-ndjson" }, body: `${lines.map((line) => JSON.stringify(line)).join("\n")}\n` });
  const body = (await answer.json()) as { error?: string };
  return { status: answer.status, error: body.error ?? "" };
}

async function exported(reviewer: keyof typeof TOKENS): Promise<{ labeler_id: string; metric: string; trace_id: string }[]> {
  const text = await (await fetch(`${server.url}/api/labels.jsonl`, { headers: headers(reviewer) })).text();
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as { labeler_id: string; metric: string; trace_id: string });
}

async function review(reviewer: keyof typeof TOKENS, traceId: string, verdicts: Record<string, "pass" | "fail">): Promise<void> {
  const saved = await fetch(`${server.url}/review/${CASE}?trace=${traceId}`, { method: "POST", headers: { ...headers(reviewer), "content-type": "application/json" }, body: JSON.stringify({ verdicts }) });
  assert.equal(saved.status, 200, await saved.text());
}

before(async () => {
  const store = createMemoryStore();
  for (const request of [A, B]) {
    const written = await store.results.write([
      {
        caseResult: { ...buildCaseResult({ output: `the answer of ${request.traceId}` }), case_result_id: CASE, trace_id: request.traceId, quality_status: "review_required", started_at: request.startedAt, completed_at: request.startedAt },
        evaluationResults: request.metrics.map((metric) => ({ ...judgeVerdict(CASE, metric, true), review_required: true, evaluated_at: request.startedAt })),
      },
    ]);
    assert.ok(written.ok);
  }
  server = await startUiServer({ host: "127.0.0.1", port: 0, store, access: { tokens: new Map(Object.entries(TOKENS).map(([reviewer, token]) => [token, reviewer])) } });
});
after(() => server?.close());

describe("a labels file and the requests of a case sent twice", () => {
  test("a pass of request A is checked against A's metrics, not the newest request's", async () => {
    const partial = await importLines("alice", [{ case_result_id: CASE, trace_id: A.traceId, metric: "faithfulness", verdict: "pass" }]);
    assert.equal(partial.status, 400);
    assert.match(partial.error, /"cr_offers" \(alice\): only passes, and answer_relevance has no label/);
    const whole = await importLines("alice", A.metrics.map((metric) => ({ case_result_id: CASE, trace_id: A.traceId, metric, verdict: "pass" })));
    assert.equal(whole.status, 200, whole.error);
  });

  test("one reviewer's lines of a case naming two requests refuse the file", async () => {
    const split = await importLines("alice", [
      { case_result_id: CASE, trace_id: A.traceId, metric: "answer_relevance", verdict: "pass" },
      { case_result_id: CASE, trace_id: B.traceId, metric: "faithfulness", verdict: "fail" },
    ]);
    assert.equal(split.status, 400);
    assert.match(split.error, /^line 2: alice's labels of case_result_id "cr_offers" are of two requests \(trace_id "aa000000000000000000000000000011" on line 1, "bb000000000000000000000000000022" here\)/);
  });

  test("a line of no request may not move a label off the request it reviews", async () => {
    const off = await importLines("alice", [{ case_result_id: CASE, trace_id: "", metric: "answer_relevance", verdict: "pass" }]);
    assert.equal(off.status, 400);
    assert.match(off.error, /^line 1: trace_id "" would move alice's label of answer_relevance on case_result_id "cr_offers" off the request it reviews \(trace_id "aa000000000000000000000000000011"\)/);
    assert.deepEqual((await exported("alice")).map((label) => label.trace_id), [A.traceId, A.traceId], "nothing was imported");
  });

  test("labels moved off their request are their reviewer's alone to see", async () => {
    await review("bob", A.traceId, { faithfulness: "pass", answer_relevance: "pass" });
    // Each then reviews B: their answer_relevance labels of A are moved off it.
    await review("alice", B.traceId, { faithfulness: "fail" });
    await review("bob", B.traceId, { faithfulness: "fail" });
    const alices = await exported("alice");
    assert.deepEqual(
      alices.map((label) => [label.labeler_id, label.metric, label.trace_id]).sort(),
      [
        ["alice", "answer_relevance", ""],
        ["alice", "faithfulness", B.traceId],
        ["bob", "faithfulness", B.traceId],
      ],
      "bob's label of B, which both labelled; not his moved-off one",
    );
  });
});
