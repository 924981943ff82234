/**
 * The review queue on the ClickHouse store (embedded chDB), read over HTTP
 * from the UI server in-process: its judge and reviewer agreement are the
 * figures computed by hand below, and the store queries one load of the
 * queue makes do not grow with the number of labelled cases. Before the bulk
 * read (TraceReader.readEvaluationResults) the queue read every labelled
 * case's trace, three to four queries each: 2,000 labels took ~40 s a load.
 *
 * The queries are counted by the engine itself: chDB keeps no
 * system.query_log, but its system.events counter SelectQuery counts every
 * SELECT statement it runs (the counting query included, once per reading).
 *
 * The small set, one metric (faithfulness), the judge's verdict stored as
 * `judge.faithfulness` (judge id "judge-a"), cases in blocks of four:
 *   case in block   judge   alice   bob
 *   0               pass    pass    pass
 *   1               pass    fail    pass
 *   2               fail    fail    fail
 *   3               fail    fail    pass
 * Judge agreement pairs each human label with the judge (human first), per block:
 *   (p,p) alice0 bob0 bob1 = 3; (f,p) alice1 = 1; (f,f) alice2 alice3 bob2 = 3; (p,f) bob3 = 1; 8 pairs.
 *   p_o = 6/8 = 0.75; humans pass 4/8, judge pass 4/8: p_e = 0.5·0.5 + 0.5·0.5 = 0.5; kappa = 0.25/0.5 = 0.5.
 * Reviewer agreement (alice first, by id), per block: (p,p) (f,p) (f,f) (f,p); 4 items.
 *   p_o = 2/4 = 0.5; alice pass 1/4, bob pass 3/4: p_e = 1/4·3/4 + 3/4·1/4 = 0.375; kappa = 0.125/0.625 = 0.2.
 * Every block has the same counts, so any number of blocks has the same kappas, with 8 (4) per block.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { startUiServer, type UiServer } from "../../../ui/ui-server.js";
import { buildCaseResult, judgeVerdict } from "../../support/case-results.js";
import { queryRows, temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";

const TOKENS = { alice: "alice-token-0123456789abcdef", bob: "bob-token-0123456789abcdef00" };
const JUDGE = ["pass", "pass", "fail", "fail"] as const;
const REVIEWERS = { alice: ["pass", "fail", "fail", "fail"], bob: ["pass", "pass", "fail", "pass"] } as const;
/** 150 blocks: 600 cases, under one slice of the bulk read (1,000 ids), so the count of its queries is the same for 4 and 600. */
const BLOCKS = 150;
const CASES = BLOCKS * 4;
const idOf = (index: number) => `cr_queue_${String(index).padStart(4, "0")}`;

interface Agreement {
  judge: { judgeId: string; metric: string; pairs: number; unpairedHumanLabels: number; passFail: { items: number; table: number[][]; percentAgreement: number; expectedAgreement: number; kappa: number } }[];
  reviewers: { metric: string; reviewers: [string, string] | null; statistics: { items: number; table: number[][]; percentAgreement: number; expectedAgreement: number; kappa: number } }[];
}

describe("the review queue's agreement comes from one bulk read of the labelled cases' results", () => {
  let temporary: TemporaryStore;
  let server: UiServer;

  const selectQueries = async () => Number((await queryRows<{ value: string | number }>(temporary.connection, "SELECT value FROM system.events WHERE event = 'SelectQuery'"))[0]?.value ?? 0);
  const importLabels = async (reviewer: keyof typeof TOKENS, from: number, to: number) => {
    const lines = [];
    for (let index = from; index < to; index += 1) lines.push(JSON.stringify({ case_result_id: idOf(index), metric: "faithfulness", verdict: REVIEWERS[reviewer][index % 4], labeled_at: "2026-07-08T10:00:00Z" }));
    const imported = await fetch(`${server.url}/api/labels.jsonl`, { method: "POST", headers: { authorization: `Bearer ${TOKENS[reviewer]}`, "content-type": "application/x-ndjson" }, body: `${lines.join("\n")}\n` });
    assert.equal(imported.status, 200, await imported.text());
  };
  /** One load of the queue's read API: its agreement, and the SELECT statements the engine ran for it. */
  const loadQueue = async () => {
    // Nothing else may query meanwhile: the rollups the label writes noted are refreshed first (their timer is an hour away).
    await temporary.store.rollups.refresh();
    const before = await selectQueries();
    const response = await fetch(`${server.url}/api/review`, { headers: { authorization: `Bearer ${TOKENS.alice}` } });
    assert.equal(response.status, 200);
    const answer = (await response.json()) as { items: unknown[]; agreement: Agreement };
    const queries = (await selectQueries()) - before;
    return { answer, queries };
  };
  const checkAgreement = (agreement: Agreement, blocks: number) => {
    assert.equal(agreement.judge.length, 1);
    const judge = agreement.judge[0]!;
    assert.equal(judge.judgeId, "judge-a");
    assert.equal(judge.metric, "faithfulness");
    assert.equal(judge.pairs, 8 * blocks);
    assert.equal(judge.unpairedHumanLabels, 0);
    // Rows the humans' verdict, columns the judge's, categories [fail, pass].
    assert.deepEqual(judge.passFail.table, [[3 * blocks, 1 * blocks], [1 * blocks, 3 * blocks]]);
    assert.equal(judge.passFail.percentAgreement, 0.75);
    assert.equal(judge.passFail.expectedAgreement, 0.5);
    assert.equal(judge.passFail.kappa, 0.5);
    const reviewers = agreement.reviewers.find((entry) => entry.metric === "faithfulness");
    assert.ok(reviewers);
    assert.deepEqual(reviewers.reviewers, ["alice", "bob"]);
    assert.equal(reviewers.statistics.items, 4 * blocks);
    // Rows alice, columns bob: (f,f) 1, (f,p) 2, (p,f) 0, (p,p) 1 per block.
    assert.deepEqual(reviewers.statistics.table, [[1 * blocks, 2 * blocks], [0, 1 * blocks]]);
    assert.equal(reviewers.statistics.percentAgreement, 0.5);
    assert.equal(reviewers.statistics.expectedAgreement, 0.375);
    assert.ok(Math.abs(reviewers.statistics.kappa - 0.2) < 1e-12, `reviewer kappa ${reviewers.statistics.kappa}`);
  };

  before(async () => {
    temporary = await temporaryStore({ store: { rollupRefreshMs: 3_600_000 } });
    const written = await temporary.store.results.write(
      Array.from({ length: CASES }, (_, index) => ({
        caseResult: { ...buildCaseResult({ output: `answer ${index}` }), case_result_id: idOf(index), trace_id: `trace_${idOf(index)}`, quality_status: "review_required" as const, started_at: new Date(Date.parse("2026-07-08T09:00:00Z") + index * 1000).toISOString() },
        evaluationResults: [judgeVerdict(idOf(index), "faithfulness", JUDGE[index % 4] === "pass")],
      })),
    );
    assert.ok(written.ok);
    server = await startUiServer({ host: "127.0.0.1", port: 0, store: temporary.store, access: { tokens: new Map(Object.entries(TOKENS).map(([reviewer, token]) => [token, reviewer])) } });
  });
  after(async () => {
    await server?.close();
    await temporary?.cleanup();
  });

  test("the figures are the hand-computed ones, and 150 times the labelled cases cost the queue no more queries", async () => {
    await importLabels("alice", 0, 4);
    await importLabels("bob", 0, 4);
    const one = await loadQueue();
    checkAgreement(one.answer.agreement, 1);

    await importLabels("alice", 4, CASES);
    await importLabels("bob", 4, CASES);
    const all = await loadQueue();
    checkAgreement(all.answer.agreement, BLOCKS);
    // The queue's page and its rows' labels are the same in both loads (600 cases listed either way); only the labelled cases grew.
    assert.equal(all.answer.items.length, one.answer.items.length);
    assert.ok(one.queries > 0, "the engine's SelectQuery counter saw the queue's queries");
    assert.equal(all.queries, one.queries, `SELECT statements for one load of the queue: ${one.queries} with 4 labelled cases, ${all.queries} with ${CASES}`);
  });
});
