/**
 * A review's comment at the form's limit (4,000 characters, counted as a
 * browser's maxlength counts them: UTF-16 code units) on the ClickHouse store
 * (embedded chDB), posted over HTTP to the UI server in-process as a browser
 * posts the form:
 * - a comment whose 4,000th unit is the first half of an emoji was cut inside
 *   it; the lone half made ClickHouse refuse the insert ("missing second part
 *   of surrogate pair"): 500, nothing saved. Now it is cut before the emoji
 *   and saved;
 * - a comment cut on a whole character lost its end silently ("Saved."): the
 *   notice now says it was cut, and the form's textarea carries maxlength so a
 *   browser stops there;
 * - a JSON review whose comment holds a lone half is saved with U+FFFD;
 * - a JSONL import whose note holds a lone half (JSON may escape one) answered
 *   500 the same way: now 400 naming the line and the field, nothing stored.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { EvaluationResult } from "../../../contracts/evaluation-result.js";
import { startUiServer, type UiServer } from "../../../ui/ui-server.js";
import { buildCaseResult } from "../../support/case-results.js";
import { temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";

const ALICE = "alice-token-0123456789abcdef";
const CASE = "cr_comment_cut";
const STARTED_AT = "2026-07-08T09:00:00.000Z";
const ROCKET = "\u{1F680}";

const coverage: EvaluationResult = {
  evaluation_result_id: "er_coverage",
  case_result_id: CASE,
  evaluator_id: "retrieval.coverage",
  evaluator_version: "1",
  metric_values: {},
  outcome: "failed",
  reason: "failed, written by the test",
  evidence_refs: [],
  confidence: { value: 1, semantics: "deterministic_rule" },
  review_required: false,
  error_type: "none",
  evaluated_at: STARTED_AT,
};

describe("a review comment at the 4,000-character limit", () => {
  let temporary: TemporaryStore;
  let server: UiServer;
  let clock = Date.parse("2026-07-09T12:00:00.000Z");

  before(async () => {
    temporary = await temporaryStore();
    const written = await temporary.store.results.write([{ caseResult: { ...buildCaseResult({ output: "an answer" }), case_result_id: CASE, quality_status: "review_required" as const, started_at: STARTED_AT }, evaluationResults: [coverage] }]);
    assert.ok(written.ok);
    // Each save a second later than the one before: the later label wins.
    server = await startUiServer({ host: "127.0.0.1", port: 0, store: temporary.store, access: { tokens: new Map([[ALICE, "alice"]]) }, now: () => (clock += 1000) });
  });
  after(async () => {
    await server?.close();
    await temporary?.cleanup();
  });

  const headers = { authorization: `Bearer ${ALICE}` };
  const storedNote = async () => {
    const lines = (await (await fetch(`${server.url}/api/labels.jsonl`, { headers })).text()).split("\n").filter((line) => line !== "");
    return lines.map((line) => JSON.parse(line) as { metric: string; note: string }).find((label) => label.metric === "retrieval.coverage")?.note ?? null;
  };
  /** Posts the form as a browser does, then follows the redirect with the notice's cookie: the page's notice line. */
  const saveForm = async (comment: string) => {
    const posted = await fetch(`${server.url}/review/${CASE}`, { method: "POST", redirect: "manual", headers: { ...headers, "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ "metric:retrieval.coverage": "fail", comment }).toString() });
    assert.equal(posted.status, 303, await posted.text());
    const cookie = posted.headers.getSetCookie().map((line) => line.split(";")[0]).join("; ");
    const page = await (await fetch(`${server.url}${posted.headers.get("location")}`, { headers: { ...headers, cookie } })).text();
    return /<p class="notice" id="message" role="status">([^<]*)<\/p>/.exec(page)?.[1] ?? null;
  };

  test("an emoji across the limit: saved, cut before it, and the notice says the comment was cut", async () => {
    const notice = await saveForm(`${"L".repeat(3999)}${ROCKET}END`);
    assert.equal(await storedNote(), "L".repeat(3999));
    assert.match(notice ?? "", /^Saved\. Your comment was longer than 4,000 characters, the most a review keeps: it was cut there/);
  });

  test("an emoji that ends at the limit: kept whole, and the end cut after it is said", async () => {
    const notice = await saveForm(`${"L".repeat(3998)}${ROCKET}END`);
    assert.equal(await storedNote(), `${"L".repeat(3998)}${ROCKET}`);
    assert.match(notice ?? "", /cut there/);
  });

  test("a comment within the limit: saved whole, the notice only 'Saved.'; the textarea stops a browser at 4,000", async () => {
    const comment = `${"L".repeat(3998)}${ROCKET}`;
    assert.equal(await saveForm(comment), "Saved.");
    assert.equal(await storedNote(), comment);
    const page = await (await fetch(`${server.url}/review/${CASE}`, { headers })).text();
    assert.match(page, /<textarea name="comment" rows="3" cols="80" maxlength="4000">/);
  });

  test("line breaks a browser sends as CRLF count as the one character its maxlength counted: 4,000 typed are not cut", async () => {
    const typed = Array.from({ length: 10 }, () => "L".repeat(399)).join("\n") + "L";
    assert.equal(typed.length, 4000);
    assert.equal(await saveForm(typed.replaceAll("\n", "\r\n")), "Saved.");
    assert.equal(await storedNote(), typed);
  });

  test("a JSON review whose comment holds half of an emoji: saved with U+FFFD in its place", async () => {
    const answer = await fetch(`${server.url}/review/${CASE}`, { method: "POST", headers: { ...headers, "content-type": "application/json", accept: "application/json" }, body: String.raw`{"verdicts": {"retrieval.coverage": "fail"}, "comment": "half \ud83d of it"}` });
    assert.equal(answer.status, 200, await answer.text());
    assert.equal(await storedNote(), "half \uFFFD of it");
  });

  test("a JSONL line whose note holds half of an emoji: 400 naming the line and the field, nothing imported", async () => {
    const before = await storedNote();
    const lines = [JSON.stringify({ case_result_id: CASE, metric: "retrieval.coverage", verdict: "fail", note: "whole" }), String.raw`{"case_result_id": "${CASE}", "metric": "retrieval.coverage", "verdict": "fail", "note": "half \ud83d"}`];
    const answer = await fetch(`${server.url}/api/labels.jsonl`, { method: "POST", headers: { ...headers, "content-type": "application/x-ndjson" }, body: `${lines.join("\n")}\n` });
    assert.equal(answer.status, 400);
    assert.match(((await answer.json()) as { error: string }).error, /^line 2: note holds half of a character \(a lone UTF-16 surrogate/);
    assert.equal(await storedNote(), before);
  });
});
