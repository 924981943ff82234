/**
 * Signing in and out of `ragscope serve`'s web UI as a reviewer meets it
 * (bin/ragscope.js as a subprocess with reviewer tokens, Debian's Chromium,
 * raw HTTP for what a browser hides):
 *
 * - serve's start line says where a browser signs in;
 * - a browser without a session (or with one whose token is gone) that opens
 *   a page gets the sign-in page (401, the paste-a-token form, returning to
 *   the page asked for), whose
 *   header links to no page that would only refuse it; the API and clients
 *   that do not ask for HTML keep the short 401 with `WWW-Authenticate`;
 * - the header of a signed-in browser has "Sign out": it ends the session
 *   (the cookie is deleted, the sign-in page says so once), and only a post
 *   from this UI's origin signs out.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { chromium, type Browser } from "playwright-core";
import { startServeWithUi, type ServeWithUi } from "../../support/serve-with-ui.js";
import { signIn } from "../../support/sign-in.js";

const chromiumPath = process.env.RAGSCOPE_CHROMIUM ?? "/usr/bin/chromium";
const ALICE = "alice-token-0123456789abcdef";

let folder: string;
let serve: ServeWithUi;
let browser: Browser;

before(async () => {
  assert.ok(existsSync(chromiumPath), `Chromium is needed at ${chromiumPath} (Debian package chromium)`);
  folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-sign-in-out-"));
  serve = await startServeWithUi(path.join(folder, "chdb"), { RAGSCOPE_UI_TOKENS: `alice=${ALICE}`, RAGSCOPE_UI_TENANT_TOKENS: "" });
  browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: ["--no-sandbox", "--disable-gpu"] });
});

after(async () => {
  await browser?.close();
  await serve?.stop();
  await rm(folder, { recursive: true, force: true });
});

describe("signing in to and out of the web UI", () => {
  test("serve's start line says where a browser signs in", () => {
    const line = serve.output().split("\n").find((text) => text.includes("web UI and read API on")) ?? "";
    assert.ok(line.includes(`browsers sign in at ${serve.uiUrl}/login`), line);
  });

  test("a browser without a session opening a page gets the sign-in page, which leads back to that page", async () => {
    const page = await (await browser.newContext()).newPage();
    const answer = await page.goto(`${serve.uiUrl}/review?verdict=review_required`);
    assert.equal(answer?.status(), 401);
    assert.equal(answer?.headers()["www-authenticate"], 'Bearer realm="ragscope"');
    assert.equal(await page.locator("#token").count(), 1, await page.content());
    assert.equal(await page.locator('input[name="next"]').getAttribute("value"), "/review?verdict=review_required");
    // Before signing in every page answers with this one: the header links to none of them and names nobody.
    assert.equal(await page.locator("header a").count(), 0, await page.locator("header").innerHTML());
    assert.equal(await page.locator("#reviewer").count(), 0);
    assert.equal(await page.locator("#not-signed-in").textContent(), "not signed in");
    await page.fill("#token", ALICE);
    const [reached] = await Promise.all([page.waitForNavigation(), page.click("#sign-in")]);
    assert.equal(reached?.status(), 200);
    assert.equal(new URL(page.url()).pathname + new URL(page.url()).search, "/review?verdict=review_required");
    assert.equal(await page.locator("#reviewer").textContent(), "alice");
    assert.equal(await page.locator('header nav a[href="/traces"]').count(), 1, "signed in, the header links to the pages");
  });

  test("a session whose token the UI no longer has is asked to sign in again, saying why", async () => {
    const answer = await fetch(`${serve.uiUrl}/runs`, { headers: { accept: "text/html", cookie: "ragscope_token=a-token-since-removed-0123456" } });
    assert.equal(answer.status, 401);
    const body = await answer.text();
    assert.match(body, /id="sign-in-form"/);
    assert.match(body, /this browser&#39;s session is no longer valid|this browser's session is no longer valid/);
  });

  test("the API and clients that do not ask for HTML keep the short 401", async () => {
    const api = await fetch(`${serve.uiUrl}/api/traces`, { headers: { accept: "text/html,application/xhtml+xml,*/*;q=0.8" } });
    assert.equal(api.status, 401);
    assert.match(api.headers.get("content-type") ?? "", /^application\/json/);
    assert.equal(api.headers.get("www-authenticate"), 'Bearer realm="ragscope"');
    assert.match(((await api.json()) as { error: string }).error, /a reviewer token is required/);
    const script = await fetch(`${serve.uiUrl}/traces`, { headers: { accept: "*/*" } });
    assert.equal(script.status, 401);
    assert.match(script.headers.get("content-type") ?? "", /^text\/plain/);
    assert.equal(script.headers.get("www-authenticate"), 'Bearer realm="ragscope"');
  });

  test("Sign out in the header ends the session; the sign-in page says so once", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signIn(page, `${serve.uiUrl}/traces`, ALICE);
    assert.equal(await page.locator("#reviewer").textContent(), "alice");
    const [signedOut] = await Promise.all([page.waitForNavigation(), page.click("#sign-out")]);
    assert.equal(signedOut?.status(), 200);
    assert.equal(new URL(page.url()).pathname, "/login");
    assert.equal(await page.locator("#message").textContent(), "You are signed out.");
    assert.equal((await context.cookies()).filter((cookie) => cookie.name === "ragscope_token").length, 0, "the session cookie is gone");
    assert.equal((await page.goto(`${serve.uiUrl}/traces`))?.status(), 401, "the next page asks to sign in again");
    assert.equal(await page.locator("#token").count(), 1);
    await page.goto(`${serve.uiUrl}/login`);
    assert.equal(await page.locator("#message").count(), 0, "the notice is said once");
  });

  test("only a post from this UI signs out; a client with Authorization is offered no sign-out", async () => {
    const own = new URL(serve.uiUrl).origin;
    const cookie = `ragscope_token=${ALICE}`;
    for (const [what, headers] of [
      ["another site's Origin", { origin: "http://evil.example" }],
      ["Sec-Fetch-Site cross-site", { "sec-fetch-site": "cross-site" }],
      ["neither Origin nor Sec-Fetch-Site", {}],
    ] as const) {
      // Urlencoded, as another site's form would post it (and this UI's own).
      const answer = await fetch(`${serve.uiUrl}/logout`, { method: "POST", redirect: "manual", headers: { cookie, "content-type": "application/x-www-form-urlencoded", ...headers } });
      assert.equal(answer.status, 403, what);
      assert.equal(answer.headers.get("set-cookie"), null, what);
      assert.match(await answer.text(), /sign-out refused/, what);
    }
    const ownPost = await fetch(`${serve.uiUrl}/logout`, { method: "POST", redirect: "manual", headers: { cookie, "content-type": "application/x-www-form-urlencoded", origin: own, "sec-fetch-site": "same-origin" } });
    assert.equal(ownPost.status, 303);
    assert.equal(ownPost.headers.get("location"), "/login");
    assert.match(ownPost.headers.getSetCookie().find((value) => value.startsWith("ragscope_token=")) ?? "", /^ragscope_token=;.*Max-Age=0/i);

    // Signing out is a form's post: its address opened in the address bar is 405 naming POST, said as a page for nobody.
    const opened = await fetch(`${serve.uiUrl}/logout`, { headers: { accept: "text/html" } });
    assert.equal(opened.status, 405);
    assert.equal(opened.headers.get("allow"), "POST");
    assert.match(await opened.text(), /\/logout does not take GET: use POST/);

    const bearer = await fetch(`${serve.uiUrl}/traces`, { headers: { authorization: `Bearer ${ALICE}` } });
    assert.equal(bearer.status, 200);
    const body = await bearer.text();
    assert.match(body, /<span id="reviewer">alice<\/span>/);
    assert.doesNotMatch(body, /id="sign-out"/, "nothing to sign out of: the client stops by not sending the header");
    const session = await fetch(`${serve.uiUrl}/traces`, { headers: { cookie } });
    assert.match(await session.text(), /id="sign-out"/);
  });
});
