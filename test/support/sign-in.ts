/**
 * Signing a browser in to `ragscope serve`'s web UI the documented way
 * (ui/README.md "Access"): open the page with `?token=<token>` — the link an
 * operator hands a reviewer — and confirm on the sign-in page it shows. The
 * GET alone signs nobody in (login CSRF), so the click is part of the flow.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";

/** Opens `address` (a full URL of a UI page) with the token, confirms, and waits for that page. */
export async function signIn(page: Page, address: string, token: string): Promise<void> {
  const url = new URL(address);
  url.searchParams.set("token", token);
  await page.goto(url.href);
  assert.equal(await page.locator("#sign-in").count(), 1, `the sign-in page for ${address}: ${await page.content()}`);
  // waitForNavigation, not waitForURL: the sign-in page's script already shows the page's address without the token.
  const [reached] = await Promise.all([page.waitForNavigation(), page.click("#sign-in")]);
  assert.equal(reached?.status(), 200, `after signing in, ${page.url()}: ${await page.content()}`);
  assert.equal(new URL(page.url()).pathname, url.pathname);
}
