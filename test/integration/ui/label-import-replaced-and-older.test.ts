/**
 * Two label imports that went wrong with labels bound to the request reviewed:
 * - an export did not import back when it held labels of a request a later one of its case replaced (sent again the
 *   same UTC day from the same service): "trace_id … is no stored request", and no change to the line was accepted
 *   but deleting it. A line restating where a stored label already is now imports as it is;
 * - an old file's line of another metric, dated before the reviewer's stored review of a newer request, bound itself to
 *   an older request and moved that newer review off its request ("Imported 1 label", the request's human pass gone).
 *   Such a line now refuses the file, naming it.
 *
 * The web UI server in-process on 127.0.0.1 over the in-memory store, with reviewer tokens and its clock at NOW;
 * reviews posted through the form's endpoint, labels exported and imported over HTTP.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createMemoryStore, type MemoryStore } from "../../../store/memory/memory-store.js";
import { startUiServer, type UiServer } from "../../../ui/ui-server.js";
import { buildCaseResult, judgeVerdict } from "../../support/case-results.js";

const TOKENS = { alice: "alice-token-0123456789abcdef", bob: "bob-token-0123456789abcdef00", carol: "carol-token-0123456789abcdef" };
const NOW = Date.parse("2026-07-10T12:00:00.000Z");
const BOTH = ["faithfulness", "answer_relevance"];
const REPLACED = { caseResultId: "cr_replaced", first: "a1000000000000000000000000000001", second: "a2000000000000000000000000000002" };
const OLDER = { caseResultId: "cr_older", first: "b1000000000000000000000000000001", second: "b2000000000000000000000000000002" };
const MOVED = { caseResultId: "cr_moved", first: "c1000000000000000000000000000001", second: "c2000000000000000000000000000002" };

let store: MemoryStore;
let server: UiServer;
let clock = NOW;
const headers = (reviewer: keyof typeof TOKENS) => ({ authorization: `Bearer ${TOKENS[reviewer]}` });

async function write(caseResultId: string, traceId: string, startedAt: string, metrics: readonly string[]): Promise<void> {
  const written = await store.results.write([
    {
      caseResult: { ...buildCaseResult({ output: `the answer of ${traceId}` }), case_result_id: caseResultId, trace_id: traceId, quality_status: "review_required", started_at: startedAt, completed_at: startedAt },
      evaluationResults: metrics.map((metric) => ({ ...judgeVerdict(caseResultId, metric, true), review_required: true, evaluated_at: startedAt })),
    },
  ]);
  assert.ok(written.ok);
}

async function review(reviewer: keyof typeof TOKENS, caseResultId: string, traceId: string, verdicts: Record<string, "pass" | "fail">): Promise<void> {
  const saved = await fetch(`${server.url}/review/${caseResultId}?trace=${traceId}`, { method: "POST", headers: { ...headers(reviewer), "content-type": "application/json" }, body: JSON.stringify({ verdicts }) });
  assert.equal(saved.status, 200, await saved.text());
}

/** The reviewer's own lines of the case in their export (which holds the others' too once the review is in: each reviewer imports their own). */
async function exported(reviewer: keyof typeof TOKENS, caseResultId: string): Promise<string> {
  const text = await (await fetch(`${server.url}/api/labels.jsonl`, { headers: headers(reviewer) })).text();
  return text
    .split("\n")
    .filter((line) => line !== "" && (JSON.parse(line) as { case_result_id: string }).case_result_id === caseResultId && (JSON.parse(line) as { labeler_id: string }).labeler_id === reviewer)
    .map((line) => `${line}\n`)
    .join("");
}

/** The reviewer's own labels of the case in their export, parsed. */
async function exportedLabels(reviewer: keyof typeof TOKENS, caseResultId: string): Promise<{ metric: string; trace_id: string; verdict: string }[]> {
  return (await exported(reviewer, caseResultId))
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as { metric: string; trace_id: string; verdict: string });
}

async function importText(reviewer: keyof typeof TOKENS, body: string): Promise<{ status: number; body: { imported?: number; error?: string } }> {
  const answer = await fetch(`${server.url}/api/labels.jsonl`, { method: "POST", headers: { ...headers(reviewer), "content-type": "application/x-ndjson" }, body });
  return { status: answer.status, body: (await answer.json()) as { imported?: number; error?: string } };
}

before(async () => {
  store = createMemoryStore();
  server = await startUiServer({ host: "127.0.0.1", port: 0, now: () => clock, store, access: { tokens: new Map(Object.entries(TOKENS).map(([reviewer, token]) => [token, reviewer])) } });
});
after(() => server?.close());

describe("label import and requests replaced or reviewed later", () => {
  test("an export holding labels of a replaced request imports back as it is; a line naming that request for a label not stored there is still refused", async () => {
    await write(REPLACED.caseResultId, REPLACED.first, "2026-07-08T09:00:00.000Z", BOTH);
    clock = Date.parse("2026-07-08T09:30:00.000Z");
    for (const reviewer of ["alice", "bob"] as const) await review(reviewer, REPLACED.caseResultId, REPLACED.first, { faithfulness: "pass", answer_relevance: "pass" });
    // Sent again the same UTC day from the same service: the second request replaces the first.
    await write(REPLACED.caseResultId, REPLACED.second, "2026-07-08T10:00:00.000Z", BOTH);
    clock = NOW;
    const found = await store.traces.findRequestsOfCases([REPLACED.caseResultId]);
    assert.deepEqual(found.get(REPLACED.caseResultId)?.map((request) => request.traceId), [REPLACED.second], "the first request is no longer stored");

    const file = await exported("alice", REPLACED.caseResultId);
    assert.equal(file.split("\n").filter((line) => line.includes(REPLACED.first)).length, 2, file);
    const again = await importText("alice", file);
    assert.deepEqual(again, { status: 200, body: { imported: 2 } });
    assert.equal(await exported("alice", REPLACED.caseResultId), file, "the labels are as they were");

    const carol = await importText("carol", `${JSON.stringify({ case_result_id: REPLACED.caseResultId, trace_id: REPLACED.first, metric: "faithfulness", verdict: "fail" })}\n`);
    assert.equal(carol.status, 400);
    assert.match(carol.body.error ?? "", /^line 1: trace_id "a1000000000000000000000000000001" is no stored request of case_result_id "cr_replaced"/);
  });

  test("an old line of another metric, dated before the reviewer's review of a newer request, refuses the file rather than move that review off", async () => {
    await write(OLDER.caseResultId, OLDER.first, "2026-07-08T09:00:00.000Z", [...BOTH, "completeness"]);
    await write(OLDER.caseResultId, OLDER.second, "2026-07-09T09:00:00.000Z", BOTH);
    clock = NOW;
    await review("alice", OLDER.caseResultId, OLDER.second, { faithfulness: "pass", answer_relevance: "pass" });
    const before = await exported("alice", OLDER.caseResultId);

    // From a file written on the 8th: without trace_id it binds to the first request, the newest started by then.
    const stale = await importText("alice", `${JSON.stringify({ case_result_id: OLDER.caseResultId, metric: "completeness", verdict: "fail", labeled_at: "2026-07-08T12:00:00.000Z" })}\n`);
    assert.equal(stale.status, 400, JSON.stringify(stale.body));
    assert.equal(
      stale.body.error,
      `line 1: labeled_at 2026-07-08T12:00:00.000Z is earlier than alice's stored review of case_result_id "cr_older" on another request (trace_id "${OLDER.second}", labelled up to 2026-07-10T12:00:00.000Z): taken, it would move that later review off its request — give a later labeled_at, or leave it out to label at the import's time`,
    );
    assert.equal(await exported("alice", OLDER.caseResultId), before, "alice's review of the second request stays on it");

    // The same line beside a later-dated line that replaces her stored label of faithfulness: that label is the file's
    // then, not a later review the file would move — but her answer_relevance on the second request still is.
    const withReplacement = await importText(
      "alice",
      [
        { case_result_id: OLDER.caseResultId, trace_id: OLDER.first, metric: "faithfulness", verdict: "fail", labeled_at: "2026-07-10T12:01:00.000Z" },
        { case_result_id: OLDER.caseResultId, trace_id: OLDER.first, metric: "answer_relevance", verdict: "fail", labeled_at: "2026-07-10T12:02:00.000Z" },
        { case_result_id: OLDER.caseResultId, trace_id: OLDER.first, metric: "completeness", verdict: "fail", labeled_at: "2026-07-08T12:00:00.000Z" },
      ]
        .map((line) => `${JSON.stringify(line)}\n`)
        .join(""),
    );
    assert.deepEqual(withReplacement, { status: 200, body: { imported: 3 } }, "every stored label of the later review is replaced by a line of the file");
    const replaced = await exportedLabels("alice", OLDER.caseResultId);
    assert.deepEqual(replaced.map((label) => [label.metric, label.trace_id, label.verdict]).sort(), [
      ["answer_relevance", OLDER.first, "fail"],
      ["completeness", OLDER.first, "fail"],
      ["faithfulness", OLDER.first, "fail"],
    ]);
  });

  test("a review imported up to 5 minutes ahead of the clock does not refuse a later import labelled at its own time", async () => {
    const AHEAD = { caseResultId: "cr_ahead", first: "d1000000000000000000000000000001", second: "d2000000000000000000000000000002" };
    await write(AHEAD.caseResultId, AHEAD.first, "2026-07-08T09:00:00.000Z", [...BOTH, "completeness"]);
    await write(AHEAD.caseResultId, AHEAD.second, "2026-07-09T09:00:00.000Z", BOTH);
    clock = NOW;
    const ahead = `${JSON.stringify({ case_result_id: AHEAD.caseResultId, trace_id: AHEAD.second, metric: "faithfulness", verdict: "fail", labeled_at: new Date(NOW + 4 * 60_000).toISOString() })}\n`;
    assert.deepEqual(await importText("alice", ahead), { status: 200, body: { imported: 1 } });
    // A minute later, a line of the first request without labeled_at: it is labelled at the import's time.
    clock = NOW + 60_000;
    const later = await importText("alice", `${JSON.stringify({ case_result_id: AHEAD.caseResultId, trace_id: AHEAD.first, metric: "completeness", verdict: "fail" })}\n`);
    assert.deepEqual(later, { status: 200, body: { imported: 1 } });
    const labels = await exportedLabels("alice", AHEAD.caseResultId);
    assert.deepEqual(labels.map((label) => [label.metric, label.trace_id]).sort(), [
      ["completeness", AHEAD.first],
      ["faithfulness", ""],
    ], "her review moved to the first request, the earlier label moved off the second");
  });

  test("a later line of the first request moves a review of the second there, as a form save would", async () => {
    await write(MOVED.caseResultId, MOVED.first, "2026-07-08T09:00:00.000Z", [...BOTH, "completeness"]);
    await write(MOVED.caseResultId, MOVED.second, "2026-07-09T09:00:00.000Z", BOTH);
    clock = NOW;
    await review("alice", MOVED.caseResultId, MOVED.second, { faithfulness: "pass", answer_relevance: "pass" });
    clock = NOW + 60_000;
    // Dated after it, the same line is a newer review of the first request, which moves hers there as a form save would.
    const newer = await importText("alice", `${JSON.stringify({ case_result_id: MOVED.caseResultId, trace_id: MOVED.first, metric: "completeness", verdict: "fail" })}\n`);
    assert.deepEqual(newer, { status: 200, body: { imported: 1 } });
    const moved = await exportedLabels("alice", MOVED.caseResultId);
    assert.deepEqual(moved.map((label) => [label.metric, label.trace_id]).sort(), [
      ["answer_relevance", ""],
      ["completeness", MOVED.first],
      ["faithfulness", ""],
    ]);
  });
});
