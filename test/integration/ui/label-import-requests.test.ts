/**
 * A labels file against a case sent twice, whose requests offer different metrics for review: each line is checked
 * against the metrics of the request it is bound to; a file may not split one reviewer's review of a case between two
 * requests, nor move a label off the request it reviews with `trace_id: ""`; and a reviewer's labels moved off their
 * request are theirs alone to see. Each refusal would otherwise leave a part of a review on a request, where it would
 * count as a pass, or tell another reviewer's verdict.
 *
 * The web UI server runs in-process on 127.0.0.1 over the in-memory store, with two reviewer tokens and its clock
 * at NOW. Case cr_offers was sent on 2026-07-08 (request A: judged on faithfulness and answer_relevance) and on
 * 2026-07-09 (request B: judged on faithfulness only), both routed to review. Case cr_services was sent twice on
 * 2026-07-10 from two services (two stored requests; the second's Evaluation Results replaced the first's, one per
 * case, evaluator and day). Case cr_ahead was sent on 2026-07-11 (C) and 2026-07-12 (D), each judged on both metrics.
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
const BOTH = ["faithfulness", "answer_relevance"];
const NOW = Date.parse("2026-07-13T12:00:00.000Z");
const SERVICES = [
  { traceId: "ee000000000000000000000000000055", service: "bot-a", startedAt: "2026-07-10T09:00:00.000Z" },
  { traceId: "ff000000000000000000000000000066", service: "bot-b", startedAt: "2026-07-10T10:00:00.000Z" },
];
const C = { traceId: "c0000000000000000000000000000077", startedAt: "2026-07-11T09:00:00.000Z" };
const D = { traceId: "d0000000000000000000000000000088", startedAt: "2026-07-12T09:00:00.000Z" };

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

async function review(reviewer: keyof typeof TOKENS, traceId: string, verdicts: Record<string, "pass" | "fail">, caseResultId = CASE): Promise<void> {
  const saved = await fetch(`${server.url}/review/${caseResultId}?trace=${traceId}`, { method: "POST", headers: { ...headers(reviewer), "content-type": "application/json" }, body: JSON.stringify({ verdicts }) });
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
  const sent = (caseResultId: string, traceId: string, startedAt: string, service: string) => ({
    caseResult: { ...buildCaseResult({ output: `the answer of ${traceId}` }), case_result_id: caseResultId, trace_id: traceId, quality_status: "review_required" as const, started_at: startedAt, completed_at: startedAt, rag_observation: { ...buildCaseResult().rag_observation, service_name: service } },
    evaluationResults: BOTH.map((metric) => ({ ...judgeVerdict(caseResultId, metric, true), review_required: true, evaluated_at: startedAt })),
  });
  for (const request of SERVICES) assert.ok((await store.results.write([sent("cr_services", request.traceId, request.startedAt, request.service)])).ok);
  for (const request of [C, D]) assert.ok((await store.results.write([sent("cr_ahead", request.traceId, request.startedAt, "bot")])).ok);
  server = await startUiServer({ host: "127.0.0.1", port: 0, now: () => NOW, store, access: { tokens: new Map(Object.entries(TOKENS).map(([reviewer, token]) => [token, reviewer])) } });
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

  test("two lines of one label naming different requests refuse the file", async () => {
    const twice = await importLines("bob", [
      { case_result_id: CASE, trace_id: B.traceId, metric: "faithfulness", verdict: "pass" },
      { case_result_id: CASE, trace_id: "", metric: "faithfulness", verdict: "fail" },
    ]);
    assert.equal(twice.status, 400);
    assert.match(twice.error, /^line 2: bob's label of faithfulness on case_result_id "cr_offers" is given twice, of two requests \(trace_id "bb000000000000000000000000000022" on line 1, "" here\)/);
  });

  test("a pass of a request whose Evaluation Results a later request replaced is refused: its metrics are not known", async () => {
    const [first] = SERVICES;
    const pass = await importLines("alice", BOTH.map((metric) => ({ case_result_id: "cr_services", trace_id: first!.traceId, metric, verdict: "pass" })));
    assert.equal(pass.status, 400);
    assert.match(pass.error, /"cr_services" \(alice\): only passes of request ee000000000000000000000000000055, whose Evaluation Results a later request of the case replaced/);
  });

  test("a save replaces a label dated ahead of the clock, and moves the rest of that review off its request", async () => {
    // An import dated four minutes ahead (within the skew allowed): alice passes both metrics of C.
    const ahead = new Date(NOW + 4 * 60_000).toISOString();
    const imported = await importLines("alice", BOTH.map((metric) => ({ case_result_id: "cr_ahead", trace_id: C.traceId, metric, verdict: "pass", labeled_at: ahead })));
    assert.equal(imported.status, 200, imported.error);
    // She then fails faithfulness on D in the form, at the server's clock: before the import's time.
    await review("alice", D.traceId, { faithfulness: "fail" }, "cr_ahead");
    const alices = (await exported("alice")).filter((label) => label.labeler_id === "alice" && JSON.stringify(label).includes("cr_ahead"));
    assert.deepEqual(
      alices.map((label) => [label.metric, label.trace_id]).sort(),
      [
        ["answer_relevance", ""],
        ["faithfulness", D.traceId],
      ],
      "left behind, her answer_relevance pass of C would count as her pass of C",
    );
  });
});
