/**
 * Requests the web UI and its read API (ui/ui-app.ts) do not take, over HTTP
 * to the UI server as `ragscope serve` starts it (ui/ui-server.ts, in-process
 * on 127.0.0.1 with the in-memory store, no tokens):
 *
 * - A path the UI has, asked with a method it does not take there, is 405 with
 *   `Allow` naming the ones it does (HEAD wherever GET is); a path it does not
 *   have is 404. Both were "nothing at DELETE /traces", 404.
 * - A write endpoint given a body under a Content-Type it does not read is 415
 *   naming the types it takes, and stores nothing: a lineage sent as
 *   text/plain was stored, a review sent as application/xml was refused as an
 *   empty form ("Not saved: nothing to save"). Signing in and out, whose
 *   posts read any body (a text/plain "token=…" was read as no token), take
 *   the urlencoded body their forms send, as the other write endpoints do.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ROOT_CAUSE_LABEL_NAMES } from "../../evaluators/root-cause/root-cause-labels.js";
import { createMemoryStore } from "../../store/memory/memory-store.js";
import { startUiServer, type UiServer } from "../../ui/ui-server.js";
import { recordAttack } from "../support/attack-report.js";
import { buildCaseResult } from "../support/case-results.js";

const CASE_RESULT_ID = "cr_ui_methods_1";
const ROOT_CAUSE = ROOT_CAUSE_LABEL_NAMES[0]!;
const LINEAGE = { run_id: "r1", started_at: "2026-01-02T03:04:05.000Z" };

describe("methods and media types the web UI does not take", () => {
  let ui: UiServer;

  before(async () => {
    const store = createMemoryStore();
    const written = await store.results.write([{ caseResult: { ...buildCaseResult({ output: "an answer" }), case_result_id: CASE_RESULT_ID, quality_status: "review_required" as const }, evaluationResults: [] }]);
    assert.ok(written.ok);
    ui = await startUiServer({ host: "127.0.0.1", port: 0, store, access: { tokens: new Map() } });
  });
  after(async () => {
    await ui?.close();
  });

  const send = (method: string, path: string, headers: Record<string, string> = {}, body?: string) => fetch(`${ui.url}${path}`, { method, headers, body, redirect: "manual" });
  const labelsOfCase = async () => (await (await send("GET", "/api/labels.jsonl")).text()).split("\n").filter((line) => line.includes(CASE_RESULT_ID));

  test("a known path asked with another method is 405 naming the methods it takes; an unknown path is 404", async () => {
    const known: [string, string, string][] = [
      ["DELETE", "/traces", "GET, HEAD"],
      ["POST", `/traces/${CASE_RESULT_ID}`, "GET, HEAD"],
      ["PUT", "/api/traces", "GET, HEAD"],
      ["PATCH", "/api/traces", "GET, HEAD"],
      ["OPTIONS", "/api/traces", "GET, HEAD"],
      ["PUT", "/api/labels.jsonl", "GET, HEAD, POST"],
      ["DELETE", "/api/labels.jsonl", "GET, HEAD, POST"],
      ["PUT", "/static/live.js", "GET, HEAD"],
      ["PATCH", "/static/live.js", "GET, HEAD"],
      ["POST", "/api/runs/x/lineage", "GET, HEAD, PUT"],
      ["PATCH", "/api/runs/x/lineage", "GET, HEAD, PUT"],
      ["OPTIONS", "/api/runs/x/lineage", "GET, HEAD, PUT"],
      ["DELETE", `/review/${CASE_RESULT_ID}`, "GET, HEAD, POST"],
    ];
    for (const [method, path, allow] of known) {
      const answer = await send(method, path);
      const text = await answer.text();
      assert.equal(answer.status, 405, `${method} ${path}: ${text}`);
      assert.equal(answer.headers.get("allow"), allow, `${method} ${path}: Allow`);
      assert.doesNotMatch(text, /nothing at/, `${method} ${path}`);
    }
    const api = await send("PUT", "/api/traces");
    assert.match(((await api.json()) as { error: string }).error, /\/api\/traces does not take PUT: use GET, HEAD/, "the API says it in JSON, as its other errors");

    for (const [method, path] of [["GET", "/nope"], ["DELETE", "/nope"], ["PUT", "/api/no-such-route"], ["GET", "/traces/x/y"]] as const) {
      const answer = await send(method, path);
      assert.equal(answer.status, 404, `${method} ${path}: ${await answer.text()}`);
      assert.equal(answer.headers.get("allow"), null, `${method} ${path}: no Allow on a path that does not exist`);
    }
    // The routes themselves still answer.
    for (const [method, path] of [["GET", "/api/traces"], ["HEAD", "/api/traces"], ["GET", "/static/live.js"], ["GET", "/api/runs/x/lineage"]] as const) assert.equal((await send(method, path)).status, 200, `${method} ${path}`);
    recordAttack({ attack: "UI: DELETE/PUT/PATCH/OPTIONS on pages, API routes and assets", outcome: "405 with Allow; unknown paths 404" });
  });

  test("a write endpoint given a body under a media type it does not read is 415 naming the ones it takes, and stores nothing", async () => {
    const lineage = await send("PUT", "/api/runs/r1/lineage", { "content-type": "text/plain" }, JSON.stringify(LINEAGE));
    assert.equal(lineage.status, 415, await lineage.clone().text());
    assert.match(((await lineage.json()) as { error: string }).error, /PUT \/api\/runs\/r1\/lineage takes application\/json, not a body sent with Content-Type text\/plain/);
    assert.equal(((await (await send("GET", "/api/runs/r1/lineage")).json()) as { lineage: unknown }).lineage, null, "the lineage sent as text/plain is not stored");
    const untyped = await fetch(`${ui.url}/api/runs/r1/lineage`, { method: "PUT", body: new Blob([JSON.stringify(LINEAGE)]) });
    assert.equal(untyped.status, 415, "a body with no Content-Type is not taken for JSON either");

    const compare = await send("POST", "/api/cases/compare", { "content-type": "application/x-www-form-urlencoded" }, JSON.stringify({ cases: [] }));
    assert.equal(compare.status, 415);
    assert.match(((await compare.json()) as { error: string }).error, /takes application\/json/);

    const labelLine = JSON.stringify({ case_result_id: CASE_RESULT_ID, metric: "faithfulness", verdict: "fail" });
    for (const type of ["text/plain", "application/x-www-form-urlencoded"]) {
      const imported = await send("POST", "/api/labels.jsonl", { "content-type": type }, `${labelLine}\n`);
      assert.equal(imported.status, 415, type);
      assert.match(((await imported.json()) as { error: string }).error, /takes application\/x-ndjson or application\/jsonl/, type);
    }
    const importForm = await send("POST", "/review/import", { "content-type": "application/x-www-form-urlencoded" }, "file=x");
    assert.equal(importForm.status, 415);
    assert.match(await importForm.text(), /takes multipart\/form-data/);

    const review = await send("POST", `/review/${CASE_RESULT_ID}`, { "content-type": "application/xml" }, `<review><root_cause>${ROOT_CAUSE}</root_cause></review>`);
    const reviewText = await review.text();
    assert.equal(review.status, 415, reviewText);
    assert.match(reviewText, /takes application\/x-www-form-urlencoded, multipart\/form-data or application\/json/);
    assert.doesNotMatch(reviewText, /nothing to save/);
    assert.deepEqual(await labelsOfCase(), [], "nothing was stored by the refused requests");

    // What each endpoint does take is still taken: the browser's review form, a JSON lineage, a JSON Lines import.
    const form = await send("POST", `/review/${CASE_RESULT_ID}`, { "content-type": "application/x-www-form-urlencoded" }, new URLSearchParams({ root_cause: ROOT_CAUSE, comment: "from the form" }).toString());
    assert.equal(form.status, 303, await form.text());
    assert.equal((await send("PUT", "/api/runs/r1/lineage", { "content-type": "application/json; charset=utf-8" }, JSON.stringify(LINEAGE))).status, 200);
    assert.equal((await send("POST", "/api/labels.jsonl", { "content-type": "application/x-ndjson" }, `${JSON.stringify({ case_result_id: CASE_RESULT_ID, metric: "root_cause", verdict: "fail", note: ROOT_CAUSE })}\n`)).status, 200);
    assert.ok((await labelsOfCase()).length > 0);
    recordAttack({ attack: "UI: JSON lineage as text/plain, review as application/xml, labels as text/plain", outcome: "415 naming the types taken, nothing stored" });
  });
});

describe("signing in and out take the forms' urlencoded body only", () => {
  const ALICE = "alice-token-0123456789abcdef";
  let ui: UiServer;
  let own: string;

  before(async () => {
    ui = await startUiServer({ host: "127.0.0.1", port: 0, store: createMemoryStore(), access: { tokens: new Map([[ALICE, "alice"]]) } });
    own = new URL(ui.url).origin;
  });
  after(async () => {
    await ui?.close();
  });

  /** A post from this UI's own pages (Origin and Sec-Fetch-Site as a browser sends them), with the given Content-Type. */
  const post = (path: string, contentType: string | null, body: string | undefined, cookie?: string) =>
    fetch(`${ui.url}${path}`, { method: "POST", redirect: "manual", body, headers: { origin: own, "sec-fetch-site": "same-origin", ...(contentType === null ? {} : { "content-type": contentType }), ...(cookie === undefined ? {} : { cookie }) } });
  const sessionCookie = (answer: Response) => answer.headers.getSetCookie().find((value) => value.startsWith("ragscope_token="));

  test("POST /login under another media type is 415 naming application/x-www-form-urlencoded, and signs nobody in", async () => {
    const refused: [type: string | null, body: string][] = [
      ["text/plain", `token=${ALICE}&next=/review`],
      ["application/json", JSON.stringify({ token: ALICE, next: "/review" })],
      [null, `token=${ALICE}`],
    ];
    for (const [type, body] of refused) {
      const answer = await post("/login", type, body);
      const text = await answer.text();
      assert.equal(answer.status, 415, `${type}: ${text}`);
      assert.match(text, /POST \/login takes application\/x-www-form-urlencoded, not a body sent with /, `${type}`);
      assert.equal(sessionCookie(answer), undefined, `${type}: no session`);
    }
    const multipart = new FormData();
    multipart.set("token", ALICE);
    const asMultipart = await fetch(`${ui.url}/login`, { method: "POST", redirect: "manual", body: multipart, headers: { origin: own, "sec-fetch-site": "same-origin" } });
    assert.equal(asMultipart.status, 415, await asMultipart.text());
    // The sign-in page's form, urlencoded, signs in.
    const form = await post("/login", "application/x-www-form-urlencoded", new URLSearchParams({ token: ALICE, next: "/review" }).toString());
    assert.equal(form.status, 303, await form.text());
    assert.equal(form.headers.get("location"), "/review");
    assert.match(sessionCookie(form) ?? "", new RegExp(`^ragscope_token=${ALICE};`));
    recordAttack({ attack: "UI: POST /login as text/plain, JSON or multipart", outcome: "415 naming the form's type, no session" });
  });

  test("POST /logout under another media type is 415 and keeps the session; the header's empty urlencoded form signs out", async () => {
    const cookie = `ragscope_token=${ALICE}`;
    for (const type of ["text/plain", "application/json", null]) {
      const answer = await post("/logout", type, type === null ? undefined : "", cookie);
      const text = await answer.text();
      assert.equal(answer.status, 415, `${type}: ${text}`);
      assert.match(text, /POST \/logout takes application\/x-www-form-urlencoded/, `${type}`);
      assert.equal(sessionCookie(answer), undefined, `${type}: the session cookie is left as it was`);
    }
    const form = await post("/logout", "application/x-www-form-urlencoded", "", cookie);
    assert.equal(form.status, 303, await form.text());
    assert.equal(form.headers.get("location"), "/login");
    assert.match(sessionCookie(form) ?? "", /^ragscope_token=;.*Max-Age=0/i);
    recordAttack({ attack: "UI: POST /logout as text/plain, JSON or without a Content-Type", outcome: "415, the session kept" });
  });
});
