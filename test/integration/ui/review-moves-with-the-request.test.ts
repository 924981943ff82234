/**
 * A reviewer's review of a case is of one request (evaluators/judge/calibration/human-label.ts): the labels name the
 * request the form showed, and a review of another request of the case moves the reviewer's review there — their
 * labels of the earlier request that the new review does not replace are moved off it, never left behind as a part
 * of a review that counts as a pass on its own. A labels file binds each line to a stored request of its case, and
 * refuses a line that names or finds none, with its line.
 *
 * The web UI server runs in-process on 127.0.0.1 over the in-memory store, with three reviewer tokens. Case cr_twice
 * was sent on two days (request A on 2026-07-08, request B on 2026-07-09: two stored requests of one Case Result id),
 * each judged on faithfulness and answer_relevance, each routed to review.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createMemoryStore } from "../../../store/memory/memory-store.js";
import { startUiServer, type UiServer } from "../../../ui/ui-server.js";
import { buildCaseResult, judgeVerdict } from "../../support/case-results.js";

const TOKENS = { alice: "alice-token-0123456789abcdef", bob: "bob-token-0123456789abcdef00", carol: "carol-token-0123456789abcdef" };
const CASE = "cr_twice";
const A = { traceId: "aa000000000000000000000000000001", startedAt: "2026-07-08T09:00:00.000Z" };
const B = { traceId: "bb000000000000000000000000000002", startedAt: "2026-07-09T09:00:00.000Z" };

interface Detail {
  caseResult: { trace_id: string };
  humanVerdict: { verdict: string | null; state: string; reviewers: string[] } | null;
}
interface ExportedLabel {
  labeler_id: string;
  metric: string;
  trace_id: string;
  verdict: string;
}

let server: UiServer;
const headers = (reviewer: keyof typeof TOKENS) => ({ authorization: `Bearer ${TOKENS[reviewer]}` });

async function review(reviewer: keyof typeof TOKENS, traceId: string, verdicts: Record<string, "pass" | "fail">): Promise<void> {
  const saved = await fetch(`${server.url}/review/${CASE}?trace=${traceId}`, { method: "POST", headers: { ...headers(reviewer), "content-type": "application/json" }, body: JSON.stringify({ verdicts }) });
  assert.equal(saved.status, 200, await saved.text());
}

async function detail(traceId: string): Promise<Detail> {
  const answer = await fetch(`${server.url}/api/traces/${CASE}?trace=${traceId}`, { headers: headers("alice") });
  assert.equal(answer.status, 200);
  const read = (await answer.json()) as Detail;
  assert.equal(read.caseResult.trace_id, traceId);
  return read;
}

/** The labels export as `reviewer` downloads it (blind: the others' labels of a request only once they labelled it too). */
async function exported(reviewer: keyof typeof TOKENS = "alice"): Promise<ExportedLabel[]> {
  const text = await (await fetch(`${server.url}/api/labels.jsonl`, { headers: headers(reviewer) })).text();
  return text
    .trim()
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as ExportedLabel)
    .map(({ labeler_id, metric, trace_id, verdict }) => ({ labeler_id, metric, trace_id, verdict }));
}

function importLines(reviewer: keyof typeof TOKENS, lines: readonly object[]): Promise<Response> {
  return fetch(`${server.url}/api/labels.jsonl`, { method: "POST", headers: { ...headers(reviewer), "content-type": "application/x-ndjson" }, body: `${lines.map((line) => JSON.stringify(line)).join("\n")}\n` });
}

before(async () => {
  const store = createMemoryStore();
  for (const request of [A, B]) {
    const written = await store.results.write([
      {
        caseResult: { ...buildCaseResult({ output: `the answer of ${request.traceId}` }), case_result_id: CASE, trace_id: request.traceId, quality_status: "review_required", started_at: request.startedAt, completed_at: request.startedAt },
        evaluationResults: ["faithfulness", "answer_relevance"].map((metric) => ({ ...judgeVerdict(CASE, metric, true), review_required: true, evaluated_at: request.startedAt })),
      },
    ]);
    assert.ok(written.ok);
  }
  server = await startUiServer({ host: "127.0.0.1", port: 0, store, access: { tokens: new Map(Object.entries(TOKENS).map(([reviewer, token]) => [token, reviewer])) } });
});
after(() => server?.close());

describe("a review moves with the request reviewed", () => {
  test("alice and bob pass request A: A is passed by review, B is not reviewed", async () => {
    await review("alice", A.traceId, { faithfulness: "pass", answer_relevance: "pass" });
    await review("bob", A.traceId, { faithfulness: "pass", answer_relevance: "pass" });
    assert.deepEqual((await detail(A.traceId)).humanVerdict, { verdict: "passed", state: "agreed", reviewers: ["alice", "bob"] });
    assert.equal((await detail(B.traceId)).humanVerdict, null);
  });

  test("alice then fails faithfulness on B: her whole review moves to B, none of it is left on A", async () => {
    await review("alice", B.traceId, { faithfulness: "fail" });
    // Left behind, her answer_relevance pass would have made her a reviewer who passed A, agreeing with bob.
    assert.deepEqual((await detail(A.traceId)).humanVerdict, { verdict: null, state: "pending", reviewers: ["bob"] });
    assert.deepEqual((await detail(B.traceId)).humanVerdict, { verdict: null, state: "pending", reviewers: ["alice"] });
    const alices = (await exported()).filter((label) => label.labeler_id === "alice");
    assert.deepEqual(
      alices.sort((first, second) => (first.metric < second.metric ? -1 : 1)),
      [
        { labeler_id: "alice", metric: "answer_relevance", trace_id: "", verdict: "pass" },
        { labeler_id: "alice", metric: "faithfulness", trace_id: B.traceId, verdict: "fail" },
      ],
      "kept and exported, the moved-off label naming no request",
    );
    // Her export imports again as it is: the label of no request stays one, the verdicts are unchanged.
    const export_ = await (await fetch(`${server.url}/api/labels.jsonl`, { headers: headers("alice") })).text();
    const mine = export_.split("\n").filter((line) => line !== "" && (JSON.parse(line) as ExportedLabel).labeler_id === "alice");
    const again = await fetch(`${server.url}/api/labels.jsonl`, { method: "POST", headers: { ...headers("alice"), "content-type": "application/x-ndjson" }, body: `${mine.join("\n")}\n` });
    assert.equal(again.status, 200, await again.text());
    assert.deepEqual((await exported()).filter((label) => label.labeler_id === "alice").map((label) => label.trace_id).sort(), ["", B.traceId]);
    assert.deepEqual((await detail(A.traceId)).humanVerdict, { verdict: null, state: "pending", reviewers: ["bob"] });
  });

  test("a labels file: a line naming a trace that is no request of its case, or labelled before any request started, refuses the file with its line", async () => {
    const unknown = await importLines("bob", [
      { case_result_id: CASE, trace_id: B.traceId, metric: "faithfulness", verdict: "fail" },
      { case_result_id: CASE, trace_id: "cc000000000000000000000000000003", metric: "answer_relevance", verdict: "fail" },
    ]);
    assert.equal(unknown.status, 400);
    assert.match(((await unknown.json()) as { error: string }).error, /^line 2: trace_id "cc000000000000000000000000000003" is no stored request of case_result_id "cr_twice"/);
    const early = await importLines("bob", [{ case_result_id: CASE, metric: "faithfulness", verdict: "fail", labeled_at: "2026-07-07T23:00:00.000Z" }]);
    assert.equal(early.status, 400);
    assert.match(((await early.json()) as { error: string }).error, /^line 1: no request of case_result_id "cr_twice" started at or before labeled_at 2026-07-07T23:00:00.000Z \(the earliest started 2026-07-08T09:00:00.000Z\)/);
    // A line older than bob's stored label of the same metric on another request: the stored one would stay.
    const older = await importLines("bob", [{ case_result_id: CASE, trace_id: B.traceId, metric: "faithfulness", verdict: "fail", labeled_at: "2026-07-08T10:00:00.000Z" }]);
    assert.equal(older.status, 400);
    assert.match(((await older.json()) as { error: string }).error, /^line 1: labeled_at 2026-07-08T10:00:00.000Z is earlier than bob's stored label of faithfulness on case_result_id "cr_twice" \(.+\), which reviews another request of the case/);
    assert.deepEqual((await detail(A.traceId)).humanVerdict, { verdict: null, state: "pending", reviewers: ["bob"] }, "nothing was imported");
  });

  test("a line without trace_id labelled between the two requests reviews A; one labelled at the import's time reviews B", async () => {
    const carolOnA = await importLines(
      "carol",
      ["faithfulness", "answer_relevance"].map((metric) => ({ case_result_id: CASE, metric, verdict: "pass", labeled_at: "2026-07-08T12:00:00.000Z" })),
    );
    assert.equal(carolOnA.status, 200, await carolOnA.text());
    assert.deepEqual(
      (await exported("carol")).filter((label) => label.labeler_id === "carol").map((label) => label.trace_id),
      [A.traceId, A.traceId],
    );
    const bobOnB = await importLines("bob", [{ case_result_id: CASE, metric: "faithfulness", verdict: "fail" }]);
    assert.equal(bobOnB.status, 200, await bobOnB.text());
    assert.deepEqual((await detail(B.traceId)).humanVerdict, { verdict: "failed", state: "agreed", reviewers: ["alice", "bob"] });
    // Bob's review moved to B with him: on A, carol alone, whose pass decides nothing.
    assert.deepEqual((await detail(A.traceId)).humanVerdict, { verdict: null, state: "pending", reviewers: ["carol"] });
  });

  test("the judge is compared with the labels of the request it judged: carol's labels of answer A pair with no verdict of B's", async () => {
    const pairs = async (reviewer: keyof typeof TOKENS) => {
      const answer = (await (await fetch(`${server.url}/api/review`, { headers: headers(reviewer) })).json()) as { agreement: { judge: { metric: string; pairs: number }[] } };
      return Object.fromEntries(answer.agreement.judge.map((entry) => [entry.metric, entry.pairs]));
    };
    // The judge's verdicts read are each case's newest request's, B's.
    assert.deepEqual(await pairs("bob"), { answer_relevance: 0, faithfulness: 2 }, "alice's and bob's labels of B");
    const carols = await pairs("carol");
    assert.equal(Object.values(carols).reduce((sum, count) => sum + count, 0), 0, JSON.stringify(carols));
  });
});
