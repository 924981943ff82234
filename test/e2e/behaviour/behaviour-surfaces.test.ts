/**
 * The user-behaviour metrics are one definition on every surface. A small
 * online stream with hand-worked sessions is traced with the SDK two days in
 * the past (the request spans moved back in time as a clock would have put
 * them; the user events carry their own occurredAt), sent over OTLP/HTTP to
 * the embedded collector, and stored. Then, as users meet them:
 * - `ragscope report` (a subprocess) writes the static HTML report;
 * - `ragscope serve` (a subprocess) serves the Quality page, read in
 *   Debian's Chromium, and its JSON read API /api/quality.
 * Every behaviour metric has the same value on all three, and the
 * session-window rates equal the values worked out by hand below; the seed's
 * caution on citation clicks is shown on the page and in the report.
 *
 * The stream (B = two days ago, to the minute):
 *   session s1, user u1: r1 "How do I reset my password" at B;
 *                        r2 "how do I reset my password?" at B+3 min, resolved at B+4 min
 *   session s2, user u2: r3 "What is the refund policy" at B+10 min, nothing more
 *   session s3, user u3: r4 "When are you open" at B+20 min, resolved at B+21 min
 *   session s4, user u4: r5 "How much is shipping" at B+30 min;
 *                        r6 "Can I pay by invoice" at B+45 min, handoff at B+46 min
 * Worked by hand with the default windows (follow-up 10 min, repeat 30 min at
 * Jaccard ≥ 0.8, abandonment 30 min):
 *   follow_up_rate 1/6 (r1, followed by r2 3 min later; r5→r6 is 15 min);
 *   repeated_question_rate 1/6 (r2 repeats r1: the same tokens);
 *   session_resolution_rate 2/4 (s1, s3); first_contact_resolution 1/4 (s3:
 *   one request, resolved); abandonment_rate 1/4 (s2: no event, window long
 *   passed; s1 and s3 resolved, s4 handed off).
 */
import assert from "node:assert/strict";
import { spawnSync, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { trace, type HrTime } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { chromium, type Browser } from "playwright-core";
import { loadSettings } from "../../../collector/wiring/config/load-settings.js";
import { startEmbeddedCollector } from "../../../collector/wiring/run/embedded-collector.js";
import { recordUserEvent, traceGenerate, traceRequest } from "../../../instrumentation/index.js";
import { postTraces, startSpanRecorder, toOtlpProtobuf } from "../../support/recorded-spans.js";
import { startServeWithUi, type ServeWithUi } from "../../support/serve-with-ui.js";
import { signIn } from "../../support/sign-in.js";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const ragscope = path.join(projectRoot, "bin/ragscope.js");
const chromiumPath = process.env.RAGSCOPE_CHROMIUM ?? "/usr/bin/chromium";
const CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const TOKEN = "behaviour-token-0123456789abcdef";
const MINUTE = 60_000;
const BASE = Math.floor((Date.now() - 2 * 86_400_000) / MINUTE) * MINUTE;
const FROM = new Date(BASE - 60 * MINUTE).toISOString();
const TO = new Date(BASE + 120 * MINUTE).toISOString();

interface PlannedRequest {
  session: string;
  user: string;
  query: string;
  atMinute: number;
  event?: { kind: "resolved" | "handoff"; atMinute: number };
}

const PLAN: PlannedRequest[] = [
  { session: "s1", user: "u1", query: "How do I reset my password", atMinute: 0 },
  { session: "s1", user: "u1", query: "how do I reset my password?", atMinute: 3, event: { kind: "resolved", atMinute: 4 } },
  { session: "s2", user: "u2", query: "What is the refund policy", atMinute: 10 },
  { session: "s3", user: "u3", query: "When are you open", atMinute: 20, event: { kind: "resolved", atMinute: 21 } },
  { session: "s4", user: "u4", query: "How much is shipping", atMinute: 30 },
  { session: "s4", user: "u4", query: "Can I pay by invoice", atMinute: 45, event: { kind: "handoff", atMinute: 46 } },
];

const HAND_WORKED: Record<string, number> = {
  follow_up_rate: 1 / 6,
  repeated_question_rate: 1 / 6,
  session_resolution_rate: 2 / 4,
  first_contact_resolution: 1 / 4,
  abandonment_rate: 1 / 4,
};

const shifted = (time: HrTime, seconds: number): HrTime => [time[0] + seconds, time[1]];

/** The span as the SDK would have ended it `seconds` later (or earlier): same prototype, every own field kept, times moved. */
function moved(span: ReadableSpan, seconds: number): ReadableSpan {
  const copy = Object.assign(Object.create(Object.getPrototypeOf(span) as object) as ReadableSpan, span);
  return Object.assign(copy, { startTime: shifted(span.startTime, seconds), endTime: shifted(span.endTime, seconds), events: span.events.map((event) => ({ ...event, time: shifted(event.time, seconds) })) });
}

let folder: string;
let dataDir: string;
let child: ChildProcess;
let serve: ServeWithUi;
let exited: Promise<number | null>;
let uiUrl: string;
let browser: Browser;
let reportHtml: string;

/** data-behaviour="metric" … data-value="v" pairs of a page or report. */
function valuesIn(markup: string): Map<string, string> {
  const values = new Map<string, string>();
  for (const match of markup.matchAll(/<tr data-behaviour="([a-z_]+)"[\s\S]*?data-value="([^"]*)"/g)) values.set(match[1]!, match[2]!);
  return values;
}

before(async () => {
  assert.ok(existsSync(chromiumPath), `Chromium is needed at ${chromiumPath} (Debian package chromium)`);
  folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-behaviour-surfaces-"));
  dataDir = path.join(folder, "chdb");
  const recorder = startSpanRecorder();
  const shiftOfTrace = new Map<string, number>();
  const late: { traceId: string; session: string; kind: "resolved" | "handoff"; at: Date }[] = [];
  for (const [index, planned] of PLAN.entries()) {
    const startedAt = Date.now();
    await traceRequest({ query: planned.query, sessionId: planned.session, userId: planned.user }, async () => {
      const answer = await traceGenerate({ model: "model-a" }, () => ({ text: `answer ${index}` }));
      const traceId = trace.getActiveSpan()!.spanContext().traceId;
      // Whole seconds, so the nanoseconds of the SDK's times need no carry.
      shiftOfTrace.set(traceId, Math.round((BASE + planned.atMinute * MINUTE - startedAt) / 1000));
      if (planned.event) late.push({ traceId, session: planned.session, kind: planned.event.kind, at: new Date(BASE + planned.event.atMinute * MINUTE) });
      return answer.text;
    });
  }
  const requestSpans = recorder.spans().map((span) => moved(span, shiftOfTrace.get(span.spanContext().traceId)!));
  recorder.reset();
  for (const event of late) assert.ok(recordUserEvent({ kind: event.kind, traceId: event.traceId, sessionId: event.session, occurredAt: event.at }).ok);
  const eventSpans = recorder.spans();
  await recorder.shutdown();

  const settings = loadSettings({ environment: {}, fixed: { "receiver.port": 0, "assembler.quietPeriodMs": 100, "clickhouse.dataPath": dataDir } });
  assert.ok(settings.ok, settings.ok ? "" : settings.error.join("\n"));
  const collector = await startEmbeddedCollector(settings.value);
  try {
    assert.equal(await postTraces(collector.receiverUrl, toOtlpProtobuf(requestSpans)), 200);
    assert.ok(await collector.waitUntilIdle(60_000));
    assert.equal(await postTraces(collector.receiverUrl, toOtlpProtobuf(eventSpans)), 200);
    await collector.flush();
    assert.ok(await collector.waitUntilIdle(60_000));
  } finally {
    await collector.close();
  }

  const reportFile = path.join(folder, "report.html");
  const report = spawnSync(process.execPath, [ragscope, "report", "--data-dir", dataDir, "--from", FROM, "--to", TO, "--out", reportFile], { cwd: projectRoot, encoding: "utf8", env: { ...process.env, RAGSCOPE_CONFIG: "", RAGSCOPE_CLICKHOUSE_URL: "" } });
  assert.equal(report.status, 0, report.stderr);
  reportHtml = await readFile(reportFile, "utf8");

  serve = await startServeWithUi(dataDir, { RAGSCOPE_UI_TOKENS: `olga=${TOKEN}`, RAGSCOPE_UI_TENANT_TOKENS: "" });
  ({ child, exited, uiUrl } = serve);
  browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: CHROMIUM_FLAGS });
});

after(async () => {
  await browser?.close();
  if (child?.exitCode === null) child.kill("SIGKILL");
  await rm(folder, { recursive: true, force: true });
});

describe("behaviour metrics: the Quality page, /api/quality and ragscope report agree", () => {
  test("the same value of every behaviour metric on the three surfaces, and the hand-worked session-window rates", async () => {
    const page = await (await browser.newContext({ viewport: { width: 1400, height: 1000 } })).newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await signIn(page, `${uiUrl}/quality`, TOKEN);
    await page.goto(`${uiUrl}/quality?from=${encodeURIComponent(FROM)}&to=${encodeURIComponent(TO)}`);
    const onPage = new Map<string, string>();
    for (const row of await page.locator("#behaviour tr[data-behaviour]").all()) onPage.set((await row.getAttribute("data-behaviour"))!, (await row.locator("td.value").getAttribute("data-value"))!);
    const response = await fetch(`${uiUrl}/api/quality?from=${encodeURIComponent(FROM)}&to=${encodeURIComponent(TO)}`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    assert.equal(response.status, 200);
    const api = (await response.json()) as { behaviour: { requests: number; truncated: boolean; rows: { metric: string; value: number | null }[] } };
    assert.equal(api.behaviour.requests, PLAN.length);
    assert.equal(api.behaviour.truncated, false);
    const fromApi = new Map(api.behaviour.rows.map((row) => [row.metric, row.value === null ? "" : String(row.value)]));
    const inReport = valuesIn(reportHtml);
    assert.ok(fromApi.size >= 11, "every behaviour metric of the catalog");
    assert.deepEqual(onPage, fromApi, "Quality page = /api/quality");
    assert.deepEqual(inReport, fromApi, "ragscope report = /api/quality");
    for (const [metric, expected] of Object.entries(HAND_WORKED)) {
      const shown = Number(fromApi.get(metric));
      assert.ok(Math.abs(shown - expected) < 1e-12, `${metric}: ${shown}, worked by hand ${expected}`);
      assert.equal(await page.locator(`#behaviour tr[data-behaviour="${metric}"]`).getAttribute("data-session-window"), "yes");
    }
    assert.deepEqual(errors, []);
  });

  test("the seed's caution: a high citation-click rate may mean distrust, on the page and in the report", async () => {
    const page = await (await browser.newContext()).newPage();
    await signIn(page, `${uiUrl}/quality`, TOKEN);
    await page.goto(`${uiUrl}/quality?from=${encodeURIComponent(FROM)}&to=${encodeURIComponent(TO)}`);
    assert.match((await page.locator('#behaviour tr[data-behaviour="citation_click_rate"] .caution').textContent()) ?? "", /may mean users do not trust the answer/);
    assert.match(reportHtml, /data-behaviour="citation_click_rate"[\s\S]*?may mean users do not trust the answer/);
  });

  test("serve stops cleanly", async () => {
    child.kill("SIGTERM");
    assert.equal(await exited, 0, serve.output());
  });
});
