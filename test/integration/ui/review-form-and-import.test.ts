/**
 * What a reviewer meets on the review form and the label import:
 * - the form offers every metric the automatic evaluation could not decide —
 *   an evaluation that errored, one flagged for review — beside the decided
 *   ones and the heuristic judge's, which is what sent the case to review; an
 *   evaluation that errored was left out, so the reviewer could not label it;
 * - a pass of part of the metrics, posted as a browser posts the form, comes
 *   back as the form with the reviewer's choices and the reason (it was an
 *   error page with no way back, the choices lost);
 * - a JSONL line may leave labeled_at out: it is the import's time (it was
 *   refused with "labeled_at: Invalid input: expected string, received
 *   undefined"); a line's error says what a line holds; the import form's
 *   refusal links back to the queue;
 * - a line labelled later than the server's clock (more than 5 minutes) refuses
 *   the file: taken, it outlasted every later save of the form (the later
 *   labeled_at wins), so the reviewer's new verdict was "Saved." but never read.
 * The UI server in-process on 127.0.0.1 with a reviewer token and an injected
 * clock, the in-memory store, read and posted over HTTP.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { EvaluationResult } from "../../../contracts/evaluation-result.js";
import { createMemoryStore } from "../../../store/memory/memory-store.js";
import { startUiServer, type UiServer } from "../../../ui/ui-server.js";
import { buildCaseResult, judgeVerdict } from "../../support/case-results.js";

const ALICE = "alice-token-0123456789abcdef";
const CASE = "cr_review_form";
const NOW = "2026-07-09T12:34:56.789Z";
const EVALUATED_AT = "2026-07-08T09:00:00.000Z";

function evaluation(evaluatorId: string, outcome: EvaluationResult["outcome"], reviewRequired: boolean, semantics: EvaluationResult["confidence"]["semantics"] = "deterministic_rule"): EvaluationResult {
  return {
    evaluation_result_id: `er_${evaluatorId}`,
    case_result_id: CASE,
    evaluator_id: evaluatorId,
    evaluator_version: "1",
    metric_values: {},
    outcome,
    reason: `${outcome}, written by the test`,
    evidence_refs: [],
    confidence: { value: 1, semantics },
    review_required: reviewRequired,
    error_type: outcome === "error" ? "invalid_evidence" : "none",
    evaluated_at: EVALUATED_AT,
  };
}

describe("the review form and the label import", () => {
  let server: UiServer;
  before(async () => {
    const store = createMemoryStore();
    const written = await store.results.write([
      {
        caseResult: { ...buildCaseResult({ output: "an answer" }), case_result_id: CASE, quality_status: "review_required" as const, started_at: EVALUATED_AT },
        evaluationResults: [
          // Offered: an errored evaluation, a measurement flagged for review, a decided one, the heuristic judge's.
          evaluation("retrieval.ranking", "error", true),
          evaluation("online.groundedness", "measured", true, "heuristic"),
          judgeVerdict(CASE, "completeness", true),
          evaluation("judge.faithfulness", "measured", false, "heuristic"),
          // Not offered: a measurement nobody flagged, a metric that does not apply, the root cause.
          evaluation("retrieval.coverage", "measured", false),
          evaluation("context.coverage", "not_applicable", false),
          evaluation("root_cause", "failed", false),
        ],
      },
    ]);
    assert.ok(written.ok);
    server = await startUiServer({ host: "127.0.0.1", port: 0, store, access: { tokens: new Map([[ALICE, "alice"]]) }, now: () => Date.parse(NOW) });
  });
  after(() => server?.close());

  const get = async (path: string) => (await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${ALICE}` } })).text();
  const storedLabels = async () => (await get("/api/labels.jsonl")).trim().split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as { metric: string; verdict: string; labeled_at: string });

  test("the form offers the metrics the evaluation could not decide, with the decided ones and the heuristic judge's", async () => {
    const page = await get(`/review/${CASE}`);
    const offered = [...new Set([...page.matchAll(/name="metric:([^"]+)"/g)].map((match) => match[1]!))].sort();
    assert.deepEqual(offered, ["completeness", "faithfulness", "online.groundedness", "retrieval.ranking"]);
  });

  test("a partial pass posted as a form: 400 with the form again, the reviewer's choices kept and the reason; nothing stored", async () => {
    const answer = await fetch(`${server.url}/review/${CASE}`, {
      method: "POST",
      headers: { authorization: `Bearer ${ALICE}`, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ "metric:retrieval.ranking": "pass", root_cause: "CHUNK_BAD", comment: "the duplicate is the retriever's" }).toString(),
    });
    assert.equal(answer.status, 400);
    const page = await answer.text();
    const reason = /<p class="error" id="error" role="alert">Not saved: a case passes review only with every metric labelled: ([\w., ]+) have no label of yours yet/.exec(page);
    assert.ok(reason, page);
    assert.deepEqual(reason[1]!.split(", ").sort(), ["completeness", "faithfulness", "online.groundedness"]);
    // The form posts for the request it shows (its trace id), as the review page's own address names it.
    assert.ok(page.includes(`<form method="post" action="/review/cr_review_form?trace=${buildCaseResult().trace_id}" id="review-form">`), "the form's address");
    assert.match(page, /name="metric:retrieval\.ranking" value="pass" aria-label="retrieval\.ranking: pass" checked>/);
    assert.doesNotMatch(page, /name="metric:completeness" value="(pass|fail)" aria-label="[^"]+" checked>/, "nothing chosen that she did not choose");
    assert.match(page, /<option value="CHUNK_BAD" selected>/);
    assert.match(page, /<textarea name="comment" rows="3" cols="80" maxlength="4000">the duplicate is the retriever&#39;s<\/textarea>/);
    assert.deepEqual(await storedLabels(), []);
  });

  test("a JSONL line without labeled_at is labelled at the import's time", async () => {
    const imported = await fetch(`${server.url}/api/labels.jsonl`, { method: "POST", headers: { authorization: `Bearer ${ALICE}`, "content-type": "application/x-ndjson" }, body: `${JSON.stringify({ case_result_id: CASE, metric: "retrieval.ranking", verdict: "fail" })}\n` });
    assert.equal(imported.status, 200, await imported.text());
    assert.deepEqual(
      (await storedLabels()).map((label) => [label.metric, label.verdict, label.labeled_at]),
      [["retrieval.ranking", "fail", NOW]],
    );
  });

  test("a line's error says what a line holds; the import form's refusal links back to the queue", async () => {
    const line = `${JSON.stringify({ case_result_id: CASE, metric: "retrieval.ranking", verdict: "maybe" })}\n`;
    const refused = await fetch(`${server.url}/api/labels.jsonl`, { method: "POST", headers: { authorization: `Bearer ${ALICE}`, "content-type": "application/x-ndjson" }, body: line });
    assert.equal(refused.status, 400);
    assert.match(((await refused.json()) as { error: string }).error, /^line 1: verdict: .* — a line is one JSON object with case_result_id, metric and verdict \("pass" or "fail"\); trace_id \(the request reviewed, default: the newest started by labeled_at\), labeler_id, note, value \(0\.\.1\) and labeled_at \(ISO-8601, default: the import's time\) may be left out$/);
    const form = new FormData();
    form.append("file", new File([line], "labels.jsonl", { type: "application/x-ndjson" }));
    const page = await fetch(`${server.url}/review/import`, { method: "POST", headers: { authorization: `Bearer ${ALICE}` }, body: form });
    assert.equal(page.status, 400);
    const html = await page.text();
    assert.match(html, /<p class="error" id="error">line 1: verdict: /);
    assert.match(html, /<a href="\/review" id="back">Back to the review queue<\/a>/);
  });

  test("a line labelled after the server's clock, past the 5 minutes allowed: 400 naming the line and field, nothing of the file stored", async () => {
    const before = await storedLabels();
    const line = (metric: string, labeledAt: string) => JSON.stringify({ case_result_id: CASE, metric, verdict: "fail", labeled_at: labeledAt });
    const importLines = (lines: string[]) => fetch(`${server.url}/api/labels.jsonl`, { method: "POST", headers: { authorization: `Bearer ${ALICE}`, "content-type": "application/x-ndjson" }, body: `${lines.join("\n")}\n` });
    const refused = await importLines([line("completeness", NOW), line("faithfulness", "2030-01-01T00:00:00Z")]);
    assert.equal(refused.status, 400);
    assert.equal(
      ((await refused.json()) as { error: string }).error,
      `line 2: labeled_at 2030-01-01T00:00:00.000Z is later than this server's clock (${NOW}) by more than 5 minutes: a label from the future would outlast every later save of the form — correct the time, or leave labeled_at out to label at the import's time`,
    );
    assert.deepEqual(await storedLabels(), before, "nothing of the file");
    const justPast = new Date(Date.parse(NOW) + 5 * 60_000 + 1).toISOString();
    assert.equal((await importLines([line("faithfulness", justPast)])).status, 400);
    // A clock up to 5 minutes ahead of the server's is taken.
    const withinSkew = new Date(Date.parse(NOW) + 5 * 60_000).toISOString();
    const taken = await importLines([line("faithfulness", withinSkew)]);
    assert.equal(taken.status, 200, await taken.text());
    assert.ok((await storedLabels()).some((label) => label.metric === "faithfulness" && label.labeled_at === withinSkew));
  });
});
