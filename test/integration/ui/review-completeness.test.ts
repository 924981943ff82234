/**
 * A reviewer's pass decides a case only once they labelled every metric it
 * offers for review: one metric ticked "pass" on a case that failed two turned
 * it into that reviewer's pass of the case (the final verdict is the
 * reviewers' when two agree, evaluators/reviewed-verdict.ts). The same holds for labels
 * imported as JSONL. Through the UI's review and import endpoints with
 * reviewer tokens; the UI server in-process on 127.0.0.1, the in-memory store.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createMemoryStore } from "../../../store/memory/memory-store.js";
import { startUiServer, type UiServer } from "../../../ui/ui-server.js";
import { buildCaseResult, judgeVerdict } from "../../support/case-results.js";

const TOKENS = { alice: "alice-token-0123456789abcdef", bob: "bob-token-0123456789abcdef00" };
const CASE = "cr_review_completeness";
const IMPORTED = "cr_review_completeness_imported";


describe("a review's pass needs every metric labelled", () => {
  let server: UiServer;
  before(async () => {
    const store = createMemoryStore();
    const written = await store.results.write([
      { caseResult: { ...buildCaseResult({ output: "an answer" }), case_result_id: CASE, quality_status: "failed" as const, started_at: "2026-07-08T09:00:00.000Z" }, evaluationResults: [judgeVerdict(CASE, "faithfulness", false), judgeVerdict(CASE, "completeness", false)] },
      { caseResult: { ...buildCaseResult({ output: "another answer" }), case_result_id: IMPORTED, quality_status: "failed" as const, started_at: "2026-07-08T09:01:00.000Z" }, evaluationResults: [judgeVerdict(IMPORTED, "faithfulness", false), judgeVerdict(IMPORTED, "completeness", false)] },
    ]);
    assert.ok(written.ok);
    server = await startUiServer({ host: "127.0.0.1", port: 0, store, access: { tokens: new Map(Object.entries(TOKENS).map(([reviewer, token]) => [token, reviewer])) } });
  });
  after(() => server?.close());

  const review = (reviewer: keyof typeof TOKENS, verdicts: Record<string, string>) =>
    fetch(`${server.url}/review/${CASE}`, { method: "POST", headers: { authorization: `Bearer ${TOKENS[reviewer]}`, "content-type": "application/json" }, body: JSON.stringify({ verdicts, comment: "" }) });
  const humanVerdict = async (caseResultId = CASE) =>
    ((await (await fetch(`${server.url}/api/traces/${caseResultId}`, { headers: { authorization: `Bearer ${TOKENS.alice}` } })).json()) as { humanVerdict: { verdict: string | null; state: string; reviewers: string[] } | null }).humanVerdict;
  const passedIds = async () =>
    ((await (await fetch(`${server.url}/api/traces?verdict=passed`, { headers: { authorization: `Bearer ${TOKENS.alice}` } })).json()) as { traces: { caseResultId: string }[] }).traces.map((trace) => trace.caseResultId);

  test("one metric passed of two is refused, saying which metric is unlabelled; the case stays failed", async () => {
    const partial = await review("alice", { faithfulness: "pass" });
    assert.equal(partial.status, 400);
    assert.match(((await partial.json()) as { error: string }).error, /every metric labelled: completeness has no label of yours yet/);
    assert.equal(await humanVerdict(), null, "nothing was stored");
    assert.deepEqual(await passedIds(), []);
  });

  test("a fail may be given alone, and the rest labelled in a later save; a complete pass is taken", async () => {
    assert.equal((await review("alice", { faithfulness: "fail" })).status, 200);
    assert.deepEqual(await humanVerdict(), { verdict: null, state: "pending", reviewers: ["alice"] }, "one reviewer of two: pending");
    assert.equal((await review("alice", { completeness: "pass" })).status, 200, "alice's earlier fail makes her verdict");
    assert.equal((await review("bob", { faithfulness: "pass", completeness: "pass" })).status, 200);
    assert.deepEqual(await humanVerdict(), { verdict: null, state: "disagreed", reviewers: ["alice", "bob"] }, "the reviewers disagree: the automatic verdict stays");
    assert.deepEqual(await passedIds(), []);
  });

  const importLabels = (reviewer: keyof typeof TOKENS, labels: Record<string, string>[]) =>
    fetch(`${server.url}/api/labels.jsonl`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKENS[reviewer]}`, "content-type": "application/x-ndjson" },
      body: labels.map((label) => JSON.stringify({ case_result_id: IMPORTED, labeled_at: "2026-07-08T10:00:00.000Z", ...label })).join("\n"),
    });

  test("an imported file passing part of a case's metrics is refused whole, naming the case and what is unlabelled", async () => {
    const partial = await importLabels("alice", [{ metric: "faithfulness", verdict: "pass" }]);
    assert.equal(partial.status, 400);
    assert.match(((await partial.json()) as { error: string }).error, /would pass 1 case\(s\) on part of them: "cr_review_completeness_imported" \(alice\): only passes, and completeness has no label\. Nothing was imported/);
    assert.equal(await humanVerdict(IMPORTED), null, "nothing was stored");
    const mixed = await importLabels("alice", [{ metric: "faithfulness", verdict: "pass" }, { metric: "root_cause", verdict: "fail", note: "HALLUCINATION" }]);
    assert.equal(mixed.status, 400, "a root cause is not a verdict on a metric");
  });

  test("an imported fail is taken alone; an import completing a reviewer's stored passes is taken", async () => {
    assert.equal((await importLabels("alice", [{ metric: "completeness", verdict: "fail" }])).status, 200);
    assert.deepEqual(await humanVerdict(IMPORTED), { verdict: null, state: "pending", reviewers: ["alice"] });
    const bobFirst = await fetch(`${server.url}/review/${IMPORTED}`, { method: "POST", headers: { authorization: `Bearer ${TOKENS.bob}`, "content-type": "application/json" }, body: JSON.stringify({ verdicts: { faithfulness: "fail" }, comment: "" }) });
    assert.equal(bobFirst.status, 200);
    // Bob changes his mind in a file: faithfulness passes after all, and completeness too — his labels are complete.
    const later = new Date(Date.now() + 60_000).toISOString();
    assert.equal((await importLabels("bob", [{ metric: "faithfulness", verdict: "pass", labeled_at: later }])).status, 400, "his stored fail replaced by a pass leaves completeness unlabelled");
    assert.equal((await importLabels("bob", [{ metric: "faithfulness", verdict: "pass" }])).status, 200, "an older label than his stored fail does not replace it: his verdict stays failed");
    assert.equal((await importLabels("bob", [{ metric: "faithfulness", verdict: "pass", labeled_at: later }, { metric: "completeness", verdict: "pass", labeled_at: later }])).status, 200);
    assert.deepEqual(await humanVerdict(IMPORTED), { verdict: null, state: "disagreed", reviewers: ["alice", "bob"] });
  });
});
