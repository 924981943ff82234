/**
 * Open redirect through the sign-in page of `ragscope serve`'s web UI
 * (bin/ragscope.js as a subprocess, a reviewer token, raw HTTP). The page to
 * return to after signing in comes from the address (`/login?next=…`), which
 * anyone can put in a link, and is posted back in the form's `next` field.
 * Leading slashes were collapsed before the path was resolved, but dot
 * segments resolve afterwards: `/.//evil.example/x` became the path
 * `//evil.example/x`, a protocol-relative address of another site, and the
 * reviewer who signed in from such a link was sent there (a look-alike
 * "session expired, sign in again" page asking for the token). Whatever the
 * address says, the sign-in form's `next` and the redirect after signing in
 * stay on this UI's origin.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { recordAttack } from "../support/attack-report.js";
import { startServeWithUi, type ServeWithUi } from "../support/serve-with-ui.js";

const ALICE = "alice-token-0123456789abcdef";
/** Paths whose dot segments resolve to `//evil.example/x` once parsed: each a way back to another site. */
const HOSTILE_NEXT = ["/.//evil.example/x", "/..//evil.example/x", "/a/..//evil.example/x", "/%2e//evil.example/x", "/./\\evil.example/x", "./\\/evil.example/x"];

let folder: string;
let serve: ServeWithUi;

before(async () => {
  folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-sign-in-redirect-"));
  serve = await startServeWithUi(path.join(folder, "chdb"), { RAGSCOPE_UI_TOKENS: `alice=${ALICE}`, RAGSCOPE_UI_TENANT_TOKENS: "" });
});

after(async () => {
  await serve?.stop();
  await rm(folder, { recursive: true, force: true });
});

/** The origin a browser would go to for `location`, read as browsers read a Location header (relative to the UI). */
const destination = (location: string) => new URL(location, serve.uiUrl).origin;

describe("signing in never sends the browser to another site", () => {
  test("the sign-in page's form returns to a path of this UI, whatever next= says", async () => {
    const own = new URL(serve.uiUrl).origin;
    for (const next of HOSTILE_NEXT) {
      const answer = await fetch(`${serve.uiUrl}/login?${new URLSearchParams({ next })}`, { headers: { accept: "text/html" }, redirect: "manual" });
      assert.equal(answer.status, 200, next);
      const field = /<input type="hidden" name="next" value="([^"]*)">/.exec(await answer.text())?.[1];
      assert.ok(field !== undefined, `the sign-in form of next=${next} has a next field`);
      const shown = field.replaceAll("&amp;", "&").replaceAll("&#39;", "'").replaceAll("&quot;", '"');
      assert.equal(destination(shown), own, `next=${JSON.stringify(next)} became the form's next ${JSON.stringify(shown)}`);
    }
  });

  test("the redirect after a same-origin sign-in stays on this UI, whatever the form's next says", async () => {
    const own = new URL(serve.uiUrl).origin;
    for (const next of HOSTILE_NEXT) {
      const answer = await fetch(`${serve.uiUrl}/login`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded", origin: own, "sec-fetch-site": "same-origin" },
        body: new URLSearchParams({ token: ALICE, next }).toString(),
      });
      assert.equal(answer.status, 303, `${next}: ${await answer.text()}`);
      const location = answer.headers.get("location") ?? "";
      assert.equal(destination(location), own, `next=${JSON.stringify(next)} redirected to ${JSON.stringify(location)}`);
      assert.match(location, /^\/(?![/\\])/, `a path of this server: ${JSON.stringify(location)}`);
    }
    recordAttack({ attack: "UI: open redirect after sign-in (next=/.//evil.example and other dot-segment paths)", outcome: "stays on the UI's origin" });
  });
});
