/**
 * A labels file's line that a later label with the same id (case, metric, reviewer) outlasts: the store keeps the
 * later label, so the line changes nothing. The import counted it as imported ("imported": 1) and said nothing, so a
 * reviewer restoring an older file believed its verdicts were back. Now the answer counts only the lines that took
 * effect and says how many changed nothing, and why; the queue's notice after the import form says the same.
 *
 * The web UI server in-process on 127.0.0.1 over the in-memory store, with a reviewer token and its clock at NOW;
 * read and posted over HTTP as a client does.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createMemoryStore } from "../../../store/memory/memory-store.js";
import { startUiServer, type UiServer } from "../../../ui/ui-server.js";
import { buildCaseResult, judgeVerdict } from "../../support/case-results.js";

const ALICE = "alice-token-0123456789abcdef";
const CASE = "cr_outlasted";
const TRACE = "ab000000000000000000000000000001";
const STARTED = "2026-07-08T09:00:00.000Z";
const NOW = Date.parse("2026-07-09T12:00:00.000Z");
const REASON = /^a label with the same case_result_id, metric and labeler_id dated later \(stored, or on another line of the file\) outlasts each of them/;

let server: UiServer;

async function importLines(lines: readonly object[]): Promise<{ status: number; body: { imported?: number; unchanged?: number; unchanged_reason?: string; error?: string } }> {
  const answer = await fetch(`${server.url}/api/labels.jsonl`, { method: "POST", headers: { authorization: `Bearer ${ALICE}`, "content-type": "application/x-ndjson" }, body: `${lines.map((line) => JSON.stringify(line)).join("\n")}\n` });
  return { status: answer.status, body: (await answer.json()) as { imported?: number } };
}

async function storedVerdicts(): Promise<Record<string, string>> {
  const text = await (await fetch(`${server.url}/api/labels.jsonl`, { headers: { authorization: `Bearer ${ALICE}` } })).text();
  const labels = text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as { metric: string; verdict: string; labeled_at: string });
  return Object.fromEntries(labels.map((label) => [label.metric, `${label.verdict} ${label.labeled_at}`]));
}

before(async () => {
  const store = createMemoryStore();
  const written = await store.results.write([
    {
      caseResult: { ...buildCaseResult({ output: "an answer" }), case_result_id: CASE, trace_id: TRACE, quality_status: "review_required", started_at: STARTED, completed_at: STARTED },
      evaluationResults: ["faithfulness", "answer_relevance"].map((metric) => ({ ...judgeVerdict(CASE, metric, true), review_required: true, evaluated_at: STARTED })),
    },
  ]);
  assert.ok(written.ok);
  server = await startUiServer({ host: "127.0.0.1", port: 0, now: () => NOW, store, access: { tokens: new Map([[ALICE, "alice"]]) } });
});
after(() => server?.close());

describe("an imported line that a later label with the same id outlasts", () => {
  test("older than the stored label: not counted as imported, the answer says how many lines changed nothing and why", async () => {
    const first = await importLines([
      { case_result_id: CASE, trace_id: TRACE, metric: "faithfulness", verdict: "fail", labeled_at: "2026-07-09T10:00:00.000Z" },
      { case_result_id: CASE, trace_id: TRACE, metric: "answer_relevance", verdict: "fail", labeled_at: "2026-07-09T10:00:00.000Z" },
    ]);
    assert.deepEqual(first, { status: 200, body: { imported: 2 } }, "nothing stored before: both lines take effect, nothing said of unchanged lines");

    // An older backup: faithfulness dated before the stored label, answer_relevance after it.
    const restored = await importLines([
      { case_result_id: CASE, trace_id: TRACE, metric: "faithfulness", verdict: "pass", labeled_at: "2026-07-09T09:00:00.000Z" },
      { case_result_id: CASE, trace_id: TRACE, metric: "answer_relevance", verdict: "pass", labeled_at: "2026-07-09T11:00:00.000Z" },
    ]);
    assert.equal(restored.status, 200);
    assert.equal(restored.body.imported, 1);
    assert.equal(restored.body.unchanged, 1);
    assert.match(restored.body.unchanged_reason ?? "", REASON);
    assert.deepEqual(await storedVerdicts(), { faithfulness: "fail 2026-07-09T10:00:00.000Z", answer_relevance: "pass 2026-07-09T11:00:00.000Z" });
  });

  test("two lines of one label in a file: the later one stays, the other is counted as changing nothing", async () => {
    const both = await importLines([
      { case_result_id: CASE, trace_id: TRACE, metric: "answer_relevance", verdict: "fail", labeled_at: "2026-07-09T11:30:00.000Z" },
      { case_result_id: CASE, trace_id: TRACE, metric: "answer_relevance", verdict: "pass", labeled_at: "2026-07-09T11:20:00.000Z" },
    ]);
    assert.equal(both.status, 200);
    assert.deepEqual([both.body.imported, both.body.unchanged], [1, 1]);
    assert.equal((await storedVerdicts()).answer_relevance, "fail 2026-07-09T11:30:00.000Z");
  });

  test("the same file again (an export imported back): its lines replace labels dated alike, so all count as imported", async () => {
    const exported = await (await fetch(`${server.url}/api/labels.jsonl`, { headers: { authorization: `Bearer ${ALICE}` } })).text();
    const again = await fetch(`${server.url}/api/labels.jsonl`, { method: "POST", headers: { authorization: `Bearer ${ALICE}`, "content-type": "application/x-ndjson" }, body: exported });
    assert.deepEqual(await again.json(), { imported: 2 });
  });

  test("the import form: the queue's notice after its redirect says how many lines changed nothing", async () => {
    const form = new FormData();
    const line = { case_result_id: CASE, trace_id: TRACE, metric: "faithfulness", verdict: "pass", labeled_at: "2026-07-09T08:00:00.000Z" };
    form.set("file", new File([`${JSON.stringify(line)}\n`], "labels.jsonl", { type: "application/x-ndjson" }));
    const posted = await fetch(`${server.url}/review/import`, { method: "POST", headers: { authorization: `Bearer ${ALICE}` }, body: form, redirect: "manual" });
    assert.equal(posted.status, 303);
    const cookie = posted.headers.get("set-cookie")!.split(";")[0]!;
    const queue = await (await fetch(`${server.url}/review`, { headers: { authorization: `Bearer ${ALICE}`, cookie } })).text();
    const notice = /<p class="notice" id="message" role="status">([^<]*)<\/p>/.exec(queue);
    assert.ok(notice !== null, queue);
    assert.match(notice[1]!, /^Imported 0 labels\. 1 line changed nothing: a label with the same case_result_id, metric and labeler_id dated later/);
  });
});
