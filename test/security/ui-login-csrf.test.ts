/**
 * Login CSRF against `ragscope serve`'s web UI (bin/ragscope.js as a
 * subprocess, two reviewer tokens): a page on another site must not be able to
 * sign a reviewer's browser in with the attacker's token. Before the fix a GET
 * of `/?token=<token>` set the session cookie, so a link (or an <img>) on
 * evil.example carrying mallory's token silently made alice's browser
 * mallory's: alice's later reviews, labels and imports were saved as
 * mallory's, in mallory's tenant. Checked in Debian's Chromium (evil.example
 * resolved to 127.0.0.1 by the browser's own resolver, so it is another site)
 * and over raw HTTP; the documented flow — open the link, confirm — still
 * signs in (test/support/sign-in.ts).
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { chromium, type Browser, type Page } from "playwright-core";
import { recordAttack } from "../support/attack-report.js";
import { startServeWithUi, type ServeWithUi } from "../support/serve-with-ui.js";
import { signIn } from "../support/sign-in.js";

const chromiumPath = process.env.RAGSCOPE_CHROMIUM ?? "/usr/bin/chromium";
const ALICE = "alice-token-0123456789abcdef";
const MALLORY = "mallory-token-0123456789abcd";
const ATTACKER_SITE = "evil.example";

let folder: string;
let serve: ServeWithUi;
let attacker: http.Server;
let attackerUrl: string;
let browser: Browser;

/** The attacker's pages: a lure link and an <img> carrying mallory's token, and a form that posts it to /login by itself. */
function attackerPage(path: string): string {
  if (path === "/form") {
    return `<!doctype html><form method="post" action="${serve.uiUrl}/login"><input name="token" value="${MALLORY}"><input name="next" value="/review"></form><script>document.forms[0].submit()</script>`;
  }
  return `<!doctype html><img id="pixel" src="${serve.uiUrl}/?token=${MALLORY}"><a id="lure" href="${serve.uiUrl}/review?token=${MALLORY}">cute cats</a>`;
}

async function signedInReviewer(page: Page): Promise<string | null> {
  const answer = await page.goto(`${serve.uiUrl}/review`);
  return answer?.status() === 200 ? page.locator("#reviewer").textContent() : `HTTP ${answer?.status()}`;
}

before(async () => {
  assert.ok(existsSync(chromiumPath), `Chromium is needed at ${chromiumPath} (Debian package chromium)`);
  folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-login-csrf-"));
  serve = await startServeWithUi(path.join(folder, "chdb"), { RAGSCOPE_UI_TOKENS: `alice=${ALICE},mallory=${MALLORY}`, RAGSCOPE_UI_TENANT_TOKENS: "" });
  attacker = http.createServer((request, response) => {
    response.setHeader("content-type", "text/html; charset=utf-8");
    response.end(attackerPage(request.url ?? "/"));
  });
  await new Promise<void>((resolve) => attacker.listen(0, "127.0.0.1", resolve));
  attackerUrl = `http://${ATTACKER_SITE}:${(attacker.address() as AddressInfo).port}`;
  browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: ["--no-sandbox", "--disable-gpu", `--host-resolver-rules=MAP ${ATTACKER_SITE} 127.0.0.1`] });
});

after(async () => {
  await browser?.close();
  await new Promise((resolve) => attacker?.close(resolve));
  await serve?.stop();
  await rm(folder, { recursive: true, force: true });
});

describe("login CSRF: another site cannot choose the UI session", () => {
  test("the documented flow signs in: the link's page names the reviewer, one click confirms, the token leaves the address", async () => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${serve.uiUrl}/traces?run=r1&token=${ALICE}`);
    assert.equal(await page.locator("#offered-reviewer").textContent(), "alice");
    assert.doesNotMatch(page.url(), /token=/, "the sign-in page's script takes the token out of the address bar");
    assert.equal(await signedInReviewer(await (await browser.newContext()).newPage()), "HTTP 401", "a fresh browser is not signed in");
    const [reached] = await Promise.all([page.waitForNavigation(), page.click("#sign-in")]);
    assert.equal(reached?.status(), 200);
    assert.equal(new URL(page.url()).pathname + new URL(page.url()).search, "/traces?run=r1", "back to the page the link named, its filters kept");
    assert.equal(await page.locator("#reviewer").textContent(), "alice");
  });

  test("a link and an <img> on another site carrying mallory's token leave alice signed in as alice", async () => {
    const page = await (await browser.newContext()).newPage();
    await signIn(page, `${serve.uiUrl}/traces`, ALICE);
    assert.equal(await signedInReviewer(page), "alice");
    // The <img> is sent with the page (Chromium then blocks the HTML answer from the page: ERR_BLOCKED_BY_ORB); "load" waits for it.
    const pixel = page.waitForEvent("request", (request) => request.url().startsWith(`${serve.uiUrl}/?token=`));
    await page.goto(`${attackerUrl}/`, { waitUntil: "load" });
    await pixel;
    assert.equal(await signedInReviewer(page), "alice", "the <img> did not make the session mallory's");
    await page.goto(`${attackerUrl}/`);
    await Promise.all([page.waitForNavigation(), page.click("#lure")]);
    // The lure lands on the confirmation, which says whose session it would be and warns before anyone confirms
    // (the browser sends no SameSite=Strict cookie with another site's navigation, so the page cannot say alice's).
    assert.equal(await page.locator("#offered-reviewer").textContent(), "mallory");
    assert.match((await page.locator("#sign-in-caution").textContent()) ?? "", /A link from someone else signs you in as them/);
    assert.equal(await signedInReviewer(page), "alice", "following another site's link did not make the session mallory's");
    recordAttack({ attack: "UI: login CSRF (link and <img> to /?token=<attacker's token> from another site)", outcome: "sign-in page only; session unchanged" });
  });

  test("a form on another site posting mallory's token to /login is refused (403) and signs nobody in", async () => {
    const page = await (await browser.newContext()).newPage();
    await signIn(page, `${serve.uiUrl}/traces`, ALICE);
    const refused = page.waitForResponse((response) => response.url() === `${serve.uiUrl}/login`);
    await page.goto(`${attackerUrl}/form`);
    assert.equal((await refused).status(), 403);
    assert.equal(await signedInReviewer(page), "alice");
    const fresh = await (await browser.newContext()).newPage();
    await fresh.goto(`${attackerUrl}/form`);
    assert.equal(await signedInReviewer(fresh), "HTTP 401", "a browser without a session gets none");
    recordAttack({ attack: "UI: login CSRF (cross-site form post of the attacker's token to /login)", outcome: "403, no session" });
  });

  test("over HTTP: no GET sets a session; /login's post must come from this origin", async () => {
    const own = new URL(serve.uiUrl).origin;
    for (const headers of [{}, { "sec-fetch-site": "cross-site", "sec-fetch-mode": "navigate", "sec-fetch-dest": "document" }, { "sec-fetch-site": "cross-site", "sec-fetch-dest": "image" }] as Record<string, string>[]) {
      for (const address of [`/?token=${MALLORY}`, `/review?token=${MALLORY}`, `/login?token=${MALLORY}`]) {
        const answer = await fetch(`${serve.uiUrl}${address}`, { headers, redirect: "manual" });
        assert.equal(answer.headers.get("set-cookie"), null, `GET ${address} ${JSON.stringify(headers)} set a cookie`);
        assert.equal(answer.status, 200, address);
        assert.match(await answer.text(), /<strong id="offered-reviewer">mallory<\/strong>/, address);
      }
    }
    const api = await fetch(`${serve.uiUrl}/api/traces?token=${MALLORY}`, { redirect: "manual" });
    assert.equal(api.status, 400);
    assert.equal(api.headers.get("set-cookie"), null);
    assert.match(((await api.json()) as { error: string }).error, /send it as Authorization: Bearer <token>/);

    const post = (headers: Record<string, string>, token = MALLORY) =>
      fetch(`${serve.uiUrl}/login`, { method: "POST", redirect: "manual", headers: { "content-type": "application/x-www-form-urlencoded", ...headers }, body: new URLSearchParams({ token, next: "/review" }).toString() });
    for (const [what, headers] of [
      ["another site's Origin", { origin: attackerUrl }],
      ["Sec-Fetch-Site cross-site", { "sec-fetch-site": "cross-site" }],
      ["Sec-Fetch-Site same-site (another port of this host)", { "sec-fetch-site": "same-site", origin: "http://127.0.0.1:1" }],
      ["this origin, but Sec-Fetch-Site cross-site", { origin: own, "sec-fetch-site": "cross-site" }],
      ["neither Origin nor Sec-Fetch-Site", {}],
    ] as const) {
      const answer = await post(headers);
      assert.equal(answer.status, 403, what);
      assert.equal(answer.headers.get("set-cookie"), null, what);
      assert.match(await answer.text(), /sign-in refused/, what);
    }
    const wrong = await post({ origin: own, "sec-fetch-site": "same-origin" }, "not-a-token-of-anyone-0123");
    assert.equal(wrong.status, 401);
    assert.equal(wrong.headers.get("set-cookie"), null);
    const signedIn = await post({ origin: own, "sec-fetch-site": "same-origin" });
    assert.equal(signedIn.status, 303, await signedIn.text());
    assert.equal(signedIn.headers.get("location"), "/review");
    assert.match(signedIn.headers.get("set-cookie") ?? "", /^ragscope_token=mallory-token-0123456789abcd;.*HttpOnly.*SameSite=Strict/i);
  });
});
