/**
 * The review queue holds every case the evaluation routed to review until each
 * reviewer has given their labels: the page says two reviewers label each case,
 * and a review decides the case only once two reviewers agree
 * (evaluators/reviewed-verdict.ts REVIEWERS_PER_CASE). Filtered by the final
 * verdict, the queue lost a case as soon as its first reviewer's complete pass
 * made it "passed", and the second reviewer never saw it; and that one pass
 * was the case's verdict everywhere. The first reviewer's verdict is shown to
 * them as pending, never to the second reviewer before their own labels (the
 * review is blind). Through the UI's review endpoints with two reviewers' tokens; the UI
 * server in-process on 127.0.0.1, the in-memory store (the store contract
 * checks the ClickHouse store's automatic-verdict filter gives the same rows).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createMemoryStore } from "../../../store/memory/memory-store.js";
import { startUiServer, type UiServer } from "../../../ui/ui-server.js";
import { buildCaseResult, judgeVerdict } from "../../support/case-results.js";

const TOKENS = { alice: "alice-token-0123456789abcdef", bob: "bob-token-0123456789abcdef00" };
const ROUTED = "cr_queue_routed";
const PASSED = "cr_queue_passed";

interface QueueItem {
  caseResultId: string;
  labelledByMe: boolean;
  reviewers: number;
  myVerdict: string | null;
  human: { verdict: string | null; state: string } | null;
}

describe("the review queue keeps a case for its second reviewer", () => {
  let server: UiServer;
  before(async () => {
    const store = createMemoryStore();
    const written = await store.results.write([
      { caseResult: { ...buildCaseResult({ output: "an answer" }), case_result_id: ROUTED, quality_status: "review_required" as const, started_at: "2026-07-08T09:00:00.000Z" }, evaluationResults: [judgeVerdict(ROUTED, "faithfulness", false)] },
      { caseResult: { ...buildCaseResult({ output: "another answer" }), case_result_id: PASSED, quality_status: "passed" as const, started_at: "2026-07-08T09:01:00.000Z" }, evaluationResults: [judgeVerdict(PASSED, "faithfulness", true)] },
    ]);
    assert.ok(written.ok);
    server = await startUiServer({ host: "127.0.0.1", port: 0, store, access: { tokens: new Map(Object.entries(TOKENS).map(([reviewer, token]) => [token, reviewer])) } });
  });
  after(() => server?.close());

  const queueOf = async (reviewer: keyof typeof TOKENS) => {
    const answer = await fetch(`${server.url}/api/review`, { headers: { authorization: `Bearer ${TOKENS[reviewer]}` } });
    assert.equal(answer.status, 200);
    return ((await answer.json()) as { items: QueueItem[] }).items.map((item) => ({ id: item.caseResultId, mine: item.labelledByMe, reviewers: item.reviewers, verdict: item.human?.verdict ?? null, state: item.human?.state ?? null, myVerdict: item.myVerdict }));
  };
  const review = (reviewer: keyof typeof TOKENS, verdict: "pass" | "fail") =>
    fetch(`${server.url}/review/${ROUTED}`, { method: "POST", headers: { authorization: `Bearer ${TOKENS[reviewer]}`, "content-type": "application/json" }, body: JSON.stringify({ verdicts: { faithfulness: verdict }, comment: "" }) });

  test("only the case routed to review is queued", async () => {
    assert.deepEqual(await queueOf("alice"), [{ id: ROUTED, mine: false, reviewers: 0, verdict: null, state: null, myVerdict: null }]);
  });

  test("after the first reviewer's pass the automatic verdict stays, hers shown to her as pending; the second reviewer finds it to do", async () => {
    assert.equal((await review("alice", "pass")).status, 200);
    assert.deepEqual(await queueOf("alice"), [{ id: ROUTED, mine: true, reviewers: 1, verdict: null, state: "pending", myVerdict: "passed" }]);
    assert.deepEqual(await queueOf("bob"), [{ id: ROUTED, mine: false, reviewers: 1, verdict: null, state: "pending", myVerdict: null }], "bob does not learn alice's verdict");
    const alicePage = await (await fetch(`${server.url}/review`, { headers: { authorization: `Bearer ${TOKENS.alice}` } })).text();
    assert.match(alicePage, new RegExp(`<tr data-case-result-id="${ROUTED}">.*?data-verdict="review_required" data-human="no">.*?yours: <span data-pending-verdict="passed">passed</span>, pending until 2 reviewers agree.*?<td>1 of 2</td><td>labelled</td>`, "s"));
    const bobPage = await (await fetch(`${server.url}/review`, { headers: { authorization: `Bearer ${TOKENS.bob}` } })).text();
    assert.match(bobPage, new RegExp(`<tr data-case-result-id="${ROUTED}">.*?data-verdict="review_required" data-human="no">.*?pending until 2 reviewers agree.*?<td>1 of 2</td><td>to do</td>`, "s"));
    assert.doesNotMatch(bobPage, /data-pending-verdict/, "no verdict of alice's on bob's page");
    const pending = await fetch(`${server.url}/api/review?verdict=review_required`, { headers: { authorization: `Bearer ${TOKENS.bob}` } });
    assert.equal(((await pending.json()) as { items: QueueItem[] }).items.length, 1, "its final verdict is still review_required");
  });

  test("both reviews in, the case stays listed with the reviewers' verdict; a filter narrows the queue to it", async () => {
    assert.equal((await review("bob", "fail")).status, 200);
    assert.deepEqual(await queueOf("bob"), [{ id: ROUTED, mine: true, reviewers: 2, verdict: null, state: "disagreed", myVerdict: "failed" }], "they disagree: no reviewed verdict");
    const answer = await fetch(`${server.url}/api/review?verdict=passed`, { headers: { authorization: `Bearer ${TOKENS.bob}` } });
    assert.deepEqual(((await answer.json()) as { items: QueueItem[] }).items, [], "the final verdict is the automatic review_required again");
    // Bob changes his label to a pass: the two reviewers agree, and their verdict is the case's.
    assert.equal((await review("bob", "pass")).status, 200);
    assert.deepEqual(await queueOf("bob"), [{ id: ROUTED, mine: true, reviewers: 2, verdict: "passed", state: "agreed", myVerdict: "passed" }]);
    const passed = await fetch(`${server.url}/api/review?verdict=passed`, { headers: { authorization: `Bearer ${TOKENS.bob}` } });
    assert.deepEqual(((await passed.json()) as { items: QueueItem[] }).items.map((item) => item.caseResultId), [ROUTED]);
  });

  test("the queue, the traces list and the trace page show a start time in one form", async () => {
    const shown = '<time datetime="2026-07-08T09:00:00.000Z">2026-07-08 09:00:00.000</time>';
    for (const path of ["/review", "/traces", `/traces/${ROUTED}`]) {
      const page = await (await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${TOKENS.alice}` } })).text();
      assert.ok(page.includes(shown), `${path} shows ${shown}`);
    }
  });
});

/**
 * A case in the queue whose request did not complete — a row the evaluation routed to review before a request that
 * threw was failed automatically (evaluators/case-verdict.ts), stored as that release left it: review_required,
 * execution_status failed with a system_error. Two reviewers who agree on a pass do not pass it
 * (evaluators/reviewed-verdict.ts): the queue row shows it failed, says why, and the passed filter leaves it out.
 */
describe("the review queue says why two reviewers' pass of a request that did not complete leaves it failed", () => {
  const THREW = "cr_queue_threw";
  let server: UiServer;
  before(async () => {
    const store = createMemoryStore();
    const caseResult = { ...buildCaseResult({ output: null }), case_result_id: THREW, quality_status: "review_required" as const, started_at: "2026-07-08T09:00:00.000Z", execution_status: "failed" as const, execution_error: { type: "system_error" as const, message: "reranker backend unavailable (HTTP 503)" } };
    const written = await store.results.write([{ caseResult, evaluationResults: [judgeVerdict(THREW, "faithfulness", false)] }]);
    assert.ok(written.ok);
    server = await startUiServer({ host: "127.0.0.1", port: 0, store, access: { tokens: new Map(Object.entries(TOKENS).map(([reviewer, token]) => [token, reviewer])) } });
  });
  after(() => server?.close());

  test("the form says so before anyone labels; after both pass it the queue row reads failed with the reason, not passed (human)", async () => {
    const form = await (await fetch(`${server.url}/review/${THREW}`, { headers: { authorization: `Bearer ${TOKENS.alice}` } })).text();
    assert.match(form, /id="incomplete-request">Note: the request did not complete \(execution_error\.type system_error\): no answer reached the user, so a review can confirm it failed but never pass it\./);
    for (const reviewer of ["alice", "bob"] as const) {
      const saved = await fetch(`${server.url}/review/${THREW}`, { method: "POST", headers: { authorization: `Bearer ${TOKENS[reviewer]}`, "content-type": "application/json" }, body: JSON.stringify({ verdicts: { faithfulness: "pass" }, comment: "" }) });
      assert.equal(saved.status, 200, await saved.text());
    }
    const queue = await (await fetch(`${server.url}/review`, { headers: { authorization: `Bearer ${TOKENS.bob}` } })).text();
    assert.match(
      queue,
      new RegExp(
        `<tr data-case-result-id="${THREW}">.*?data-verdict="failed" data-human="no">failed</span> <span class="review-state muted" data-review-state="set-aside">the reviewers agreed on a pass, but the request did not complete \\(execution_error\\.type system_error\\): no answer reached the user, so a review can confirm it failed but never pass it; the verdict stays failed</span>.*?<td>2 of 2</td>`,
        "s",
      ),
    );
    const listed = async (verdict: string) => ((await (await fetch(`${server.url}/api/review?verdict=${verdict}`, { headers: { authorization: `Bearer ${TOKENS.bob}` } })).json()) as { items: QueueItem[] }).items.map((item) => item.caseResultId);
    assert.deepEqual(await listed("passed"), []);
    assert.deepEqual(await listed("failed"), [THREW]);
  });
});
