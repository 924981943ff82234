/**
 * A page or API answer of a running `serve`'s web UI that has no UI tokens (loopback), as text; anything but 200
 * fails the test with the address and what the UI answered.
 */
import assert from "node:assert/strict";
import type { ServeWithUi } from "./serve-with-ui.js";

export async function uiPageText(serve: ServeWithUi, address: string): Promise<string> {
  const answer = await fetch(`${serve.uiUrl}${address}`);
  const body = await answer.text();
  assert.equal(answer.status, 200, `${address}: ${body}`);
  return body;
}
