/**
 * A form posted after its session ended, as reviewers meet it: `ragscope eval`
 * (a subprocess) stores test/e2e/ui/data/two-reviewers.yaml's cases, then
 * `ragscope serve` (a subprocess) with a reviewer token serves the UI to
 * Debian's Chromium and to raw HTTP.
 *
 * Before, a review submitted after signing out in another tab got a plain-text
 * 401 and was lost. Now a browser's form post without a session gets the
 * sign-in page (401, `WWW-Authenticate: Bearer`) saying it was not saved;
 * signing in returns to the page the form was on (the Referer's path on this
 * origin, else the form's page — never another site), where a review posted
 * from this UI is filled in again from a signed, bounded cookie kept in the
 * browser, to check and save. A form from another site keeps nothing; API
 * clients (JSON, a bearer token) keep the short 401.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { deflateRawSync } from "node:zlib";
import { after, before, describe, test } from "node:test";
import { chromium, type Browser } from "playwright-core";
import { startServeWithUi, type ServeWithUi } from "../../support/serve-with-ui.js";
import { projectRoot, runRagscope } from "../experiments/support/run-ragscope.js";
import { signIn } from "../../support/sign-in.js";

const chromiumPath = process.env.RAGSCOPE_CHROMIUM ?? "/usr/bin/chromium";
const ALICE = "alice-token-0123456789abcdef";
const DATASET = path.join(projectRoot, "test/e2e/ui/data/two-reviewers.yaml");
const TASK = path.join(projectRoot, "test/e2e/ui/tasks/listed-chunks-task.ts");
const ENVIRONMENT = { RAGSCOPE_CLICKHOUSE_URL: "" };
const RESTORED = "Your review was not saved when your session ended: it is filled in again below. Check it and press Save labels.";
const DRAFT_COOKIE = "ragscope_review_draft";

let folder: string;
let serve: ServeWithUi;
let browser: Browser;
/** Two stored cases a reviewer may label (the case ids of two-reviewers.yaml), and the metrics each review form offers. */
let failedCase = "";
let passedCase = "";
let failedMetrics: string[] = [];

async function offeredMetrics(caseResultId: string): Promise<string[]> {
  const page = await (await fetch(`${serve.uiUrl}/review/${caseResultId}`, { headers: { authorization: `Bearer ${ALICE}` } })).text();
  return [...new Set([...page.matchAll(/name="metric:([^"]+)"/g)].map((match) => match[1]!))].sort();
}

/** A review form posted as Chromium posts it from the UI's own page (urlencoded, Origin, Sec-Fetch-Site, Referer), with no session unless `headers` adds one. */
function postReview(caseResultId: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
  const own = new URL(serve.uiUrl).origin;
  return fetch(`${serve.uiUrl}/review/${caseResultId}`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html,application/xhtml+xml", origin: own, "sec-fetch-site": "same-origin", referer: `${serve.uiUrl}/review/${caseResultId}`, ...headers },
    body: new URLSearchParams(fields).toString(),
  });
}

/** The draft cookie an answer sets, as `name=value` to send back; null when it sets none. */
function draftCookieOf(answer: Response): string | null {
  const set = answer.headers.getSetCookie().find((value) => value.startsWith(`${DRAFT_COOKIE}=`));
  return set === undefined ? null : set.split(";")[0]!;
}

/** The sign-in form's `next` field of a page. */
function nextOf(body: string): string | null {
  return /<input type="hidden" name="next" value="([^"]*)">/.exec(body)?.[1]?.replaceAll("&amp;", "&") ?? null;
}

/** The review page as alice's client reads it with `cookie` (a draft, say). */
function reviewPage(caseResultId: string, cookie: string): Promise<Response> {
  return fetch(`${serve.uiUrl}/review/${caseResultId}`, { headers: { authorization: `Bearer ${ALICE}`, cookie } });
}

before(async () => {
  assert.ok(existsSync(chromiumPath), `Chromium is needed at ${chromiumPath} (Debian package chromium)`);
  folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-form-after-session-"));
  const dataDir = path.join(folder, "chdb");
  const evaluated = await runRagscope(["eval", "--dataset", DATASET, "--task", TASK, "--run-id", "session-ended-run", "--data-dir", dataDir, "--output", path.join(folder, "results.json")], ENVIRONMENT);
  assert.equal(evaluated.status, 2, evaluated.stdout + evaluated.stderr);
  const output = JSON.parse(await readFile(path.join(folder, "results.json"), "utf8")) as { case_results: { case_result_id: string; case_id: string }[] };
  failedCase = output.case_results.find((item) => item.case_id === "warranty_missed")!.case_result_id;
  passedCase = output.case_results.find((item) => item.case_id === "shipping_found")!.case_result_id;
  serve = await startServeWithUi(dataDir, { ...ENVIRONMENT, RAGSCOPE_UI_TOKENS: `alice=${ALICE}`, RAGSCOPE_UI_TENANT_TOKENS: "" });
  failedMetrics = await offeredMetrics(failedCase);
  assert.ok(failedMetrics.length > 0, "the failed case's review form offers metrics");
  browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: ["--no-sandbox", "--disable-gpu"] });
});

after(async () => {
  await browser?.close();
  await serve?.stop();
  await rm(folder, { recursive: true, force: true });
});

describe("a form posted after the session ended", () => {
  test("in Chromium: a review submitted after signing out in another tab is not lost — sign in, and it is filled in again to save", async () => {
    const context = await browser.newContext();
    const reviewing = await context.newPage();
    await signIn(reviewing, `${serve.uiUrl}/review/${failedCase}`, ALICE);
    const other = await context.newPage();
    await other.goto(`${serve.uiUrl}/traces`);
    await Promise.all([other.waitForNavigation(), other.click("#sign-out")]);

    const metric = failedMetrics[0]!;
    const comment = "the warranty chunk was never retrieved — « garantie », 保修";
    await reviewing.getByRole("radio", { name: `${metric}: fail` }).check();
    await reviewing.selectOption("select[name=root_cause]", "CHUNK_BAD");
    await reviewing.fill("textarea[name=comment]", comment);
    const [posted] = await Promise.all([reviewing.waitForNavigation(), reviewing.click("#save-labels")]);
    assert.equal(posted?.status(), 401);
    assert.equal(posted?.headers()["www-authenticate"], 'Bearer realm="ragscope"');
    assert.match((await reviewing.locator("#unsaved-form").textContent()) ?? "", /^Not saved: your session had ended when the review was sent\. Sign in to go back to it: your verdicts, root cause and comment are filled in again there/);
    assert.equal(await reviewing.locator('input[name="next"]').getAttribute("value"), `/review/${failedCase}`);
    const unsaved = (await (await fetch(`${serve.uiUrl}/api/traces/${failedCase}`, { headers: { authorization: `Bearer ${ALICE}` } })).json()) as { humanLabels: unknown[] };
    assert.deepEqual(unsaved.humanLabels, [], "nothing was saved");

    await reviewing.fill("#token", ALICE);
    const [back] = await Promise.all([reviewing.waitForNavigation(), reviewing.click("#sign-in")]);
    assert.equal(back?.status(), 200);
    assert.equal(new URL(reviewing.url()).pathname, `/review/${failedCase}`, "back on the page the form was on");
    assert.equal(await reviewing.locator("#message").textContent(), RESTORED);
    assert.equal(await reviewing.getByRole("radio", { name: `${metric}: fail` }).isChecked(), true);
    assert.equal(await reviewing.locator("select[name=root_cause]").inputValue(), "CHUNK_BAD");
    assert.equal(await reviewing.locator("textarea[name=comment]").inputValue(), comment);

    await Promise.all([reviewing.waitForNavigation(), reviewing.click("#save-labels")]);
    assert.equal(await reviewing.locator("#message").textContent(), "Saved.");
    const saved = (await (await fetch(`${serve.uiUrl}/api/traces/${failedCase}`, { headers: { authorization: `Bearer ${ALICE}` } })).json()) as { humanLabels: { metric: string; verdict: string; note: string; labeler_id: string }[] };
    assert.deepEqual(
      saved.humanLabels.map((label) => [label.labeler_id, label.metric, label.verdict, label.note]).sort(),
      [
        ["alice", metric, "fail", comment],
        ["alice", "root_cause", "fail", "CHUNK_BAD"],
      ].sort(),
    );
    await reviewing.reload();
    assert.equal(await reviewing.locator("#message").count(), 0, "the kept review is filled in once");
    assert.equal((await context.cookies()).filter((cookie) => cookie.name === DRAFT_COOKIE).length, 0, "and is gone from the browser");
    await context.close();
  });

  test("over HTTP: a review from this UI without a session is 401 with the sign-in page, kept in a signed cookie, returning to the Referer's page; API clients keep the short 401", async () => {
    const metric = failedMetrics[0]!;
    const answer = await postReview(failedCase, { [`metric:${metric}`]: "fail", root_cause: "RETRIEVAL_MISS", comment: "kept across the sign-in" }, { referer: `${serve.uiUrl}/review/${failedCase}?from=queue` });
    assert.equal(answer.status, 401);
    assert.match(answer.headers.get("content-type") ?? "", /^text\/html/);
    assert.equal(answer.headers.get("www-authenticate"), 'Bearer realm="ragscope"');
    const body = await answer.text();
    assert.match(body, /id="sign-in-form"/);
    assert.match(body, /id="unsaved-form"/);
    assert.doesNotMatch(body, /id="error"/, "no token was given, so none is said to be wrong");
    assert.equal(nextOf(body), `/review/${failedCase}?from=queue`);
    const set = answer.headers.getSetCookie().find((value) => value.startsWith(`${DRAFT_COOKIE}=`)) ?? "";
    assert.match(set, /; Max-Age=1800; Path=\/review; HttpOnly; SameSite=Strict$/);
    assert.ok(set.split(";")[0]!.length <= 4096, "a browser keeps it");
    assert.doesNotMatch(set, new RegExp(ALICE), "no token");

    const restored = await reviewPage(failedCase, draftCookieOf(answer)!);
    assert.equal(restored.status, 200);
    const page = await restored.text();
    assert.ok(page.includes(RESTORED), page);
    assert.ok(page.includes(`name="metric:${metric}" value="fail" aria-label="${metric}: fail" checked`), "the verdict is filled in");
    assert.match(page, /<option value="RETRIEVAL_MISS" selected>/);
    assert.match(page, /<textarea name="comment" rows="3" cols="80" maxlength="4000">kept across the sign-in<\/textarea>/);
    assert.match(restored.headers.getSetCookie().find((value) => value.startsWith(`${DRAFT_COOKIE}=`)) ?? "", /^ragscope_review_draft=; Max-Age=0; Path=\/review/, "read once, then deleted");
    // Another case's page leaves it for its own.
    const elsewhere = await reviewPage(passedCase, draftCookieOf(answer)!);
    assert.ok(!(await elsewhere.text()).includes(RESTORED), "another case's review page fills in nothing");
    assert.equal(elsewhere.headers.getSetCookie().filter((value) => value.startsWith(`${DRAFT_COOKIE}=`)).length, 0);

    // API clients (JSON, /api/, a bearer token) keep the short 401: they would do nothing with a sign-in page.
    const json = await fetch(`${serve.uiUrl}/review/${failedCase}`, { method: "POST", headers: { "content-type": "application/json", accept: "text/html" }, body: JSON.stringify({ verdicts: { [failedMetrics[0]!]: "fail" } }) });
    assert.equal(json.status, 401);
    assert.match(json.headers.get("content-type") ?? "", /^application\/json/);
    assert.match(((await json.json()) as { error: string }).error, /a reviewer token is required/);
    const api = await fetch(`${serve.uiUrl}/api/labels.jsonl`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html" }, body: "x=1" });
    assert.equal(api.status, 401);
    assert.match(api.headers.get("content-type") ?? "", /^application\/json/);
    const bearer = await fetch(`${serve.uiUrl}/review/${failedCase}`, { method: "POST", headers: { authorization: "Bearer not-a-token-of-anyone-0123", "content-type": "application/x-www-form-urlencoded", accept: "text/html" }, body: "comment=x" });
    assert.equal(bearer.status, 401);
    assert.match(bearer.headers.get("content-type") ?? "", /^text\/plain/);
    assert.equal(bearer.headers.get("www-authenticate"), 'Bearer realm="ragscope"');
    assert.equal(draftCookieOf(bearer), null);
  });

  test("over HTTP: signing in returns to a page of this UI only, whatever the Referer says", async () => {
    const own = new URL(serve.uiUrl).origin;
    for (const [referer, expected] of [
      ["https://evil.example/review/x", `/review/${failedCase}`],
      [`${own}//evil.example/x`, "/evil.example/x"],
      [`${own}/\\evil.example/x`, "/evil.example/x"],
      [`${own}/traces?run=r1&token=${ALICE}`, "/traces?run=r1"],
      [`${own}/login?next=/runs`, `/review/${failedCase}`],
      ["not an address", `/review/${failedCase}`],
      [null, `/review/${failedCase}`],
    ] as const) {
      const headers: Record<string, string> = referer === null ? {} : { referer };
      const answer = referer === null ? await postReviewWithoutReferer(failedCase) : await postReview(failedCase, { comment: "x" }, headers);
      assert.equal(answer.status, 401, String(referer));
      assert.equal(nextOf(await answer.text()), expected, String(referer));
    }
    // The form of one request of a case sent again posts to its address with `?trace=`: without a Referer, that request's page.
    const ofRequest = await postReviewWithoutReferer(failedCase, "?trace=0af7651916cd43dd8448eb211c80319c");
    assert.equal(ofRequest.status, 401);
    assert.equal(nextOf(await ofRequest.text()), `/review/${failedCase}?trace=0af7651916cd43dd8448eb211c80319c`);
    const imported = await fetch(`${serve.uiUrl}/review/import`, { method: "POST", redirect: "manual", headers: { origin: own, "sec-fetch-site": "same-origin", accept: "text/html" }, body: multipartFile("labels.jsonl", '{"case_result_id":"x"}\n') });
    assert.equal(imported.status, 401);
    const importPage = await imported.text();
    assert.equal(nextOf(importPage), "/review", "the import form's page is the queue");
    assert.match(importPage, /nothing was imported\. A file cannot be kept until you sign in/);
    assert.equal(draftCookieOf(imported), null);
  });

  test("over HTTP: a form from anywhere but this UI keeps nothing and echoes nothing; a signed-in cross-site post stays 403", async () => {
    const own = new URL(serve.uiUrl).origin;
    for (const [what, headers] of [
      ["another site's Origin", { origin: "http://evil.example", "sec-fetch-site": "cross-site", referer: "http://evil.example/" }],
      ["Sec-Fetch-Site cross-site", { origin: own, "sec-fetch-site": "cross-site" }],
      ["neither Origin nor Sec-Fetch-Site", { origin: "", "sec-fetch-site": "" }],
    ] as const) {
      const cleared = Object.fromEntries(Object.entries(headers).filter(([, value]) => value !== ""));
      const answer = await fetch(`${serve.uiUrl}/review/${failedCase}`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html", ...cleared },
        body: new URLSearchParams({ [`metric:${failedMetrics[0]!}`]: "pass", comment: "Your token expired: paste it at evil.example" }).toString(),
      });
      assert.equal(answer.status, 401, what);
      assert.equal(draftCookieOf(answer), null, what);
      const body = await answer.text();
      assert.match(body, /not from this UI&#39;s own page|not from this UI's own page/, what);
      assert.doesNotMatch(body, /paste it at evil/, what);
      assert.equal(nextOf(body), `/review/${failedCase}`, what);
    }
    // A forged draft (a cookie another server on this host could set) fills nothing in and is deleted.
    const forged = deflateRawSync(Buffer.from(JSON.stringify({ caseResultId: failedCase, verdicts: {}, rootCause: null, comment: "forged words" }))).toString("base64url");
    const forgedPage = await reviewPage(failedCase, `${DRAFT_COOKIE}=${forged}.${encodeURIComponent(`${"A".repeat(43)}=`)}`);
    const forgedBody = await forgedPage.text();
    // (A message on every assert.ok: without one, Node 20 reads the source to write one, which hangs under tsx.)
    assert.ok(!forgedBody.includes("forged words") && !forgedBody.includes(RESTORED), "a draft that does not verify fills nothing in");
    assert.match(forgedPage.headers.getSetCookie().find((value) => value.startsWith(`${DRAFT_COOKIE}=`)) ?? "", /Max-Age=0/);
    // With a session, another site's post is refused as before (the CSRF rule of state-changing requests).
    const crossSite = await fetch(`${serve.uiUrl}/review/${failedCase}`, { method: "POST", redirect: "manual", headers: { "content-type": "application/x-www-form-urlencoded", cookie: `ragscope_token=${ALICE}`, origin: "http://evil.example" }, body: "comment=x" });
    assert.equal(crossSite.status, 403);
  });

  test("over HTTP: what cannot be kept is said, and the comment shown to copy; a stale session is said too", async () => {
    // Random text does not compress: 4000 characters of it do not fit in a cookie, so the verdicts are kept without it.
    const comment = randomBytes(3000).toString("base64");
    const metric = failedMetrics[0]!;
    const long = await postReview(failedCase, { [`metric:${metric}`]: "fail", comment });
    assert.equal(long.status, 401);
    const longPage = await long.text();
    assert.match(longPage, /your comment is too long to keep until then — copy it from below before signing in/);
    assert.ok(longPage.includes(`<textarea id="unsaved-comment" rows="6" cols="80" readonly>${comment}</textarea>`), "the comment is there to copy");
    const restored = await (await reviewPage(failedCase, draftCookieOf(long)!)).text();
    assert.ok(restored.includes(`aria-label="${metric}: fail" checked`), "the verdict is kept");
    assert.match(restored, /<textarea name="comment" rows="3" cols="80" maxlength="4000"><\/textarea>/);

    const large = await postReview(failedCase, { comment: "x".repeat(70 * 1024) });
    assert.equal(large.status, 401);
    assert.match(await large.text(), /a review larger than 64 KiB is not kept until you sign in/);
    assert.equal(draftCookieOf(large), null);

    const stale = await postReview(failedCase, { comment: "after the token was removed" }, { cookie: "ragscope_token=a-token-since-removed-0123456" });
    assert.equal(stale.status, 401);
    const stalePage = await stale.text();
    assert.match(stalePage, /session is no longer valid/);
    assert.match(stalePage, /id="unsaved-form"/);
    assert.notEqual(draftCookieOf(stale), null);
  });

});

function postReviewWithoutReferer(caseResultId: string, search = ""): Promise<Response> {
  const own = new URL(serve.uiUrl).origin;
  return fetch(`${serve.uiUrl}/review/${caseResultId}${search}`, { method: "POST", redirect: "manual", headers: { "content-type": "application/x-www-form-urlencoded", origin: own, "sec-fetch-site": "same-origin" }, body: "comment=x" });
}

/** A multipart body with one file part, as the import form sends it. */
function multipartFile(name: string, text: string): FormData {
  const form = new FormData();
  form.append("file", new Blob([text], { type: "application/octet-stream" }), name);
  return form;
}
