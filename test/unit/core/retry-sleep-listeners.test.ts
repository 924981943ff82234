/**
 * The retry helper's wait leaves nothing on the signal it was given once it
 * ends: the evaluation worker passes its one stop signal to every retry of a
 * store outage, and each wait used to leave its abort listener behind (node
 * warned of a possible EventTarget leak after ten retries).
 */
import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { test } from "node:test";
import { defaultSleep } from "../../../core/retry.js";

test("waits that end on their own leave no abort listener on the signal; an abort still ends a wait", async () => {
  const stop = new AbortController();
  for (let wait = 0; wait < 20; wait += 1) await defaultSleep(0, stop.signal);
  assert.equal(getEventListeners(stop.signal, "abort").length, 0);
  const pending = defaultSleep(3_600_000, stop.signal);
  assert.equal(getEventListeners(stop.signal, "abort").length, 1);
  stop.abort();
  await pending;
});
