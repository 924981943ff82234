/**
 * A sender may state a query and an answer of a megabyte each (within the receiver's attribute bound). The trace list
 * put them whole in every row: a page of 200 such rows was ~400 MB of JSON, built on the thread that also receives
 * OTLP (every tenant's ingest stalled for seconds), and past the largest string the page answered 500 with V8's
 * message. Now a list row carries the first 1,000 characters, "…" after a cut, and the trace's detail the whole text;
 * an unexpected error's answer names no internals. And a review naming a metric "__proto__" is refused like any other
 * name that is no judged metric: it was dropped, and the rest of the review saved as if it held no verdict.
 *
 * The web UI server in-process on 127.0.0.1, over the ClickHouse engine (embedded chDB) and over the in-memory store,
 * read and posted over HTTP as a client does.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createMemoryStore } from "../../../store/memory/memory-store.js";
import type { ScopableStore } from "../../../ui/ui-app.js";
import { startUiServer, type UiServer } from "../../../ui/ui-server.js";
import { buildCaseResult, judgeVerdict } from "../../support/case-results.js";
import { temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";

const TOKEN = "reviewer-token-0123456789abcdef";
const STARTED = "2026-07-08T09:00:00.000Z";
const NOW = Date.parse("2026-07-09T12:00:00.000Z");
// Past the list's 1,000 characters, with a character outside the BMP at the cut (a surrogate pair at 999–1000).
const QUERY = `${"q".repeat(999)}😀${"r".repeat(200_000)}`;
const ANSWER = `${"a".repeat(300_000)}`;
const SHORT = { case: "cr_short", trace: "ab000000000000000000000000000002" };
const LONG = { case: "cr_long", trace: "ab000000000000000000000000000001" };

type Listed = { traces: { caseResultId: string; query: string | null; output: string | null }[] };

async function get(server: UiServer, address: string): Promise<{ status: number; text: string }> {
  const answer = await fetch(`${server.url}${address}`, { headers: { authorization: `Bearer ${TOKEN}`, accept: "application/json" } });
  return { status: answer.status, text: await answer.text() };
}

async function seed(store: ScopableStore): Promise<void> {
  const request = (ids: { case: string; trace: string }, query: string, output: string) => {
    const base = buildCaseResult({ output });
    return {
      caseResult: { ...base, case_result_id: ids.case, trace_id: ids.trace, quality_status: "review_required" as const, started_at: STARTED, completed_at: STARTED, rag_observation: { ...base.rag_observation, query } },
      evaluationResults: [{ ...judgeVerdict(ids.case, "faithfulness", true), review_required: true, evaluated_at: STARTED }],
    };
  };
  const written = await store.results.write([request(LONG, QUERY, ANSWER), request(SHORT, "a short question", "a short answer")]);
  assert.ok(written.ok);
}

for (const kind of ["ClickHouse engine", "in-memory store"] as const) {
  describe(`list rows carry bounded text (${kind})`, () => {
    let server: UiServer;
    let clickhouse: TemporaryStore | null = null;

    before(async () => {
      clickhouse = kind === "ClickHouse engine" ? await temporaryStore() : null;
      const store: ScopableStore = clickhouse?.store ?? createMemoryStore();
      await seed(store);
      server = await startUiServer({ host: "127.0.0.1", port: 0, now: () => NOW, store, access: { tokens: new Map([[TOKEN, "reviewer"]]) } });
    });
    after(async () => {
      await server?.close();
      await clickhouse?.cleanup();
    });

    test("the list and the review queue carry the first 1,000 characters and '…'; the detail the whole text", async () => {
      const listed = await get(server, "/api/traces");
      assert.equal(listed.status, 200, listed.text);
      assert.ok(listed.text.length < 10_000, `the list's answer is ${listed.text.length} characters`);
      const rows = (JSON.parse(listed.text) as Listed).traces;
      const long = rows.find((row) => row.caseResultId === LONG.case)!;
      assert.equal(long.query, `${"q".repeat(999)}…`, "cut before the surrogate pair, never inside it");
      assert.equal(long.output, `${"a".repeat(1000)}…`);
      const short = rows.find((row) => row.caseResultId === SHORT.case)!;
      assert.deepEqual([short.query, short.output], ["a short question", "a short answer"], "a text within the bound is as stored, no mark");

      const page = await get(server, "/traces");
      assert.equal(page.status, 200);
      assert.ok(page.text.length < 20_000, `the list page is ${page.text.length} characters`);

      const queue = await get(server, "/api/review");
      assert.equal(queue.status, 200, queue.text);
      assert.ok(queue.text.length < 10_000, `the queue's answer is ${queue.text.length} characters`);

      const detail = await get(server, `/api/traces/${LONG.trace}`);
      assert.equal(detail.status, 200);
      assert.ok(detail.text.includes(QUERY.slice(-1000)) && detail.text.includes(ANSWER), "the detail has both texts whole");
    });

    test('a review naming the metric "__proto__" is refused, and the reviewer\'s stored review stays', async () => {
      const post = (body: object) => fetch(`${server.url}/review/${LONG.case}`, { method: "POST", headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", accept: "application/json" }, body: JSON.stringify(body) });
      const saved = await post({ verdicts: { faithfulness: "fail" }, root_cause: "HALLUCINATION" });
      assert.equal(saved.status, 200, await saved.text());
      const refused = await fetch(`${server.url}/review/${LONG.case}`, { method: "POST", headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", accept: "application/json" }, body: '{"verdicts":{"__proto__":"pass"}}' });
      assert.equal(refused.status, 400, "a name that is no judged metric");
      assert.match(await refused.text(), /__proto__/);
      const labels = await (await fetch(`${server.url}/api/labels.jsonl`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
      assert.match(labels, /"metric":"root_cause"[^\n]*"note":"HALLUCINATION"/, "the earlier review's root cause was not withdrawn");
    });
  });
}

describe("an unexpected error", () => {
  test("answers 500 without the engine's message, which goes to the log with the route", async () => {
    const clickhouse = await temporaryStore();
    const logged: string[] = [];
    const server = await startUiServer({ host: "127.0.0.1", port: 0, now: () => NOW, store: clickhouse.store, access: { tokens: new Map([[TOKEN, "reviewer"]]) }, logError: (line) => logged.push(line) });
    try {
      await seed(clickhouse.store);
      // A table gone under the running UI: the engine's error names the database and the table.
      await clickhouse.connection.client.command({ query: `DROP TABLE ${clickhouse.connection.database}.trace_list` });
      const answer = await get(server, "/api/traces");
      assert.equal(answer.status, 500);
      assert.deepEqual(JSON.parse(answer.text), { error: "the UI could not answer GET /api/traces (an internal error at 2026-07-09T12:00:00.000Z; the server's log has its cause)" });
      assert.equal(logged.length, 1);
      assert.match(logged[0]!, /^ragscope UI: GET \/api\/traces failed at 2026-07-09T12:00:00\.000Z: .*trace_list/s);
    } finally {
      await server.close();
      await clickhouse.cleanup();
    }
  });
});
