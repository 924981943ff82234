import assert from "node:assert/strict";
import { test } from "node:test";
import { utcTime } from "../../../ui/pages/utc-time.js";

test("a stored UTC time reads as date and time, the ISO text kept as the element's datetime; other text as it is, escaped", async () => {
  assert.equal(String(await utcTime("2026-07-08T09:00:00.000Z")), '<time datetime="2026-07-08T09:00:00.000Z">2026-07-08 09:00:00.000</time>');
  assert.equal(String(await utcTime("2026-07-08T09:00:00Z")), '<time datetime="2026-07-08T09:00:00Z">2026-07-08 09:00:00</time>');
  assert.equal(String(await utcTime("2026-07-08T09:00:00+02:00")), "2026-07-08T09:00:00+02:00", "not UTC: shown as stored");
  assert.equal(String(await utcTime("<b>x</b>")), "&lt;b&gt;x&lt;/b&gt;");
});
