/**
 * The review queue's table of the judge against the reviewers keeps the
 * review blind. It counted every reviewer's labels: carol, who had not
 * labelled case X, saw its pairs and 2×2 table change the moment bob failed
 * faithfulness on X, and could read his verdict off it. It now counts, for
 * each viewer, only the labels of cases they have labelled themselves (their
 * own, and the others' of those cases, which the review page shows them too),
 * and the page says so.
 * The UI server in-process on 127.0.0.1 with two reviewer tokens, the
 * in-memory store, reviews posted as a browser posts the form.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createMemoryStore } from "../../../store/memory/memory-store.js";
import { startUiServer, type UiServer } from "../../../ui/ui-server.js";
import { buildCaseResult, judgeVerdict } from "../../support/case-results.js";

const TOKENS = { carol: "carol-token-0123456789abcdef", bob: "bob-token-0123456789abcdef00", dave: "dave-token-0123456789abcdef0" };
const CASE_X = "cr_blind_judge_x";
const CASE_Y = "cr_blind_judge_y";

interface JudgeEntry {
  metric: string;
  pairs: number;
  passFail: { table: number[][] };
}

describe("the judge-against-reviewers table counts only the cases the viewer labelled", () => {
  let server: UiServer;
  before(async () => {
    const store = createMemoryStore();
    const written = await store.results.write(
      [CASE_X, CASE_Y].map((id, index) => ({
        caseResult: { ...buildCaseResult({ output: "an answer" }), case_result_id: id, trace_id: `${index}af7651916cd43dd8448eb211c80319c`, quality_status: "review_required" as const, started_at: `2026-07-08T09:00:0${index}.000Z` },
        // The judge passed faithfulness on both.
        evaluationResults: [judgeVerdict(id, "faithfulness", true)],
      })),
    );
    assert.ok(written.ok);
    server = await startUiServer({ host: "127.0.0.1", port: 0, store, access: { tokens: new Map(Object.entries(TOKENS).map(([reviewer, token]) => [token, reviewer])) } });
  });
  after(() => server?.close());

  const judgeTable = async (reviewer: keyof typeof TOKENS) => {
    const answer = (await (await fetch(`${server.url}/api/review`, { headers: { authorization: `Bearer ${TOKENS[reviewer]}` } })).json()) as { agreement: { judge: JudgeEntry[] } };
    return answer.agreement.judge.map((entry) => ({ metric: entry.metric, pairs: entry.pairs, table: entry.passFail.table }));
  };
  const reviewersTable = async (reviewer: keyof typeof TOKENS) => {
    const answer = (await (await fetch(`${server.url}/api/review`, { headers: { authorization: `Bearer ${TOKENS[reviewer]}` } })).json()) as { agreement: { reviewers: { metric: string; reviewers: string[] | null }[] } };
    return answer.agreement.reviewers.map((entry) => ({ metric: entry.metric, reviewers: entry.reviewers }));
  };
  const queuePage = async (reviewer: keyof typeof TOKENS) => (await fetch(`${server.url}/review`, { headers: { authorization: `Bearer ${TOKENS[reviewer]}` } })).text();
  const review = async (reviewer: keyof typeof TOKENS, caseResultId: string, verdict: "pass" | "fail") => {
    const answer = await fetch(`${server.url}/review/${caseResultId}`, { method: "POST", redirect: "manual", headers: { authorization: `Bearer ${TOKENS[reviewer]}`, "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ "metric:faithfulness": verdict }).toString() });
    assert.equal(answer.status, 303, await answer.text());
  };

  test("bob's fail of a case carol has not labelled changes nothing carol sees; bob sees his own pair", async () => {
    const carolBefore = await judgeTable("carol");
    const pageBefore = await queuePage("carol");
    await review("bob", CASE_X, "fail");
    assert.deepEqual(await judgeTable("carol"), carolBefore);
    assert.deepEqual(carolBefore, []);
    const page = await queuePage("carol");
    assert.equal(/<table id="judge-kappa">[\s\S]*?<\/table>/.exec(page)?.[0], /<table id="judge-kappa">[\s\S]*?<\/table>/.exec(pageBefore)?.[0]);
    assert.match(page, /<p id="judge-kappa-scope" class="muted">Counts only the cases you have labelled/);
    // Rows the humans' verdict, columns the judge's, categories [fail, pass].
    assert.deepEqual(await judgeTable("bob"), [{ metric: "faithfulness", pairs: 1, table: [[0, 1], [0, 0]] }]);
  });

  test("once carol labels the case she sees both reviewers' pairs; a case only bob labelled stays out of hers", async () => {
    await review("carol", CASE_X, "pass");
    assert.deepEqual(await judgeTable("carol"), [{ metric: "faithfulness", pairs: 2, table: [[0, 1], [0, 1]] }]);
    await review("bob", CASE_Y, "fail");
    assert.deepEqual(await judgeTable("carol"), [{ metric: "faithfulness", pairs: 2, table: [[0, 1], [0, 1]] }]);
    assert.deepEqual(await judgeTable("bob"), [{ metric: "faithfulness", pairs: 3, table: [[0, 2], [0, 1]] }]);
  });

  test("the table between reviewers is blind the same way: dave, who has not labelled X, does not see bob and carol's pair on it", async () => {
    // bob failed X and carol passed it (above): counted over every label, dave's table showed their pair, and whether
    // they agreed, before he had labelled X himself.
    assert.deepEqual(await reviewersTable("dave"), []);
    assert.deepEqual(await reviewersTable("carol"), [{ metric: "faithfulness", reviewers: ["bob", "carol"] }]);
    await review("dave", CASE_X, "pass");
    assert.deepEqual(await reviewersTable("dave"), [{ metric: "faithfulness", reviewers: ["bob", "carol"] }]);
  });
});
