/**
 * A first `ragscope serve` judges nothing (RAGSCOPE_JUDGE_ENABLED is false by default), and its trace page's
 * "Judge verdicts" section read "Not judged." and no more: a new user could not tell a judge that is off from one
 * that failed, nor how to turn it on. As a user meets it: serve as a child process with its defaults (loopback, no
 * tokens, the judge off), one request sent to its OTLP receiver, its trace page opened in Chromium. Expected: the
 * section says no judge evaluated the request and names the setting that turns serve's judge on and its sample rate.
 * The same page's stage waterfall printed each duration as stored (99.439954, beside a summary latency of 99.4 ms):
 * it now rounds as the summary does, the exact value in the cell's title.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { chromium, type Browser } from "playwright-core";
import { listedOnceStored, listsTraces } from "../../support/listed-traces.js";
import { oneRequestOtlp } from "../../support/one-request-otlp.js";
import { startServeWithUi, type ServeWithUi } from "../../support/serve-with-ui.js";

const chromiumPath = process.env.RAGSCOPE_CHROMIUM ?? "/usr/bin/chromium";
const CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const TRACE_ID = "5c1e0d2f9a8b47c6b3d2e1f0a9b8c7d6";

describe("the trace page of a request no judge evaluated says why", () => {
  let folder: string;
  let serve: ServeWithUi | null = null;
  let browser: Browser | null = null;
  let caseResultId: string;

  before(async () => {
    assert.ok(existsSync(chromiumPath), `Chromium is needed at ${chromiumPath} (Debian package chromium)`);
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-not-judged-"));
    serve = await startServeWithUi(path.join(folder, "data"), { RAGSCOPE_QUIET_PERIOD_MS: "200", RAGSCOPE_UI_TOKENS: "", RAGSCOPE_UI_TENANT_TOKENS: "", RAGSCOPE_JUDGE_ENABLED: "false" });
    const body = oneRequestOtlp({
      traceId: TRACE_ID,
      serviceName: "support-bot",
      spans: [
        { name: "rag.request", attributes: { "openinference.span.kind": "CHAIN", "ragscope.stage": "request", "ragscope.query": "How fast is a refund?", "ragscope.answer": "Within 7 days." } },
        { name: "rag.generate", attributes: { "openinference.span.kind": "LLM", "ragscope.stage": "generate", "output.value": "Within 7 days." } },
      ],
    });
    // The generation ends 439954 ns after the request's end: it lasts 99.439954 ms (it starts 1 ms after the request).
    const request = JSON.parse(body) as { resourceSpans: { scopeSpans: { spans: { endTimeUnixNano: string }[] }[] }[] };
    const generation = request.resourceSpans[0]!.scopeSpans[0]!.spans[1]!;
    generation.endTimeUnixNano = String(BigInt(generation.endTimeUnixNano) + 439_954n);
    const answer = await fetch(`${serve.receiverUrl}/v1/traces`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(request) });
    assert.equal(answer.status, 200, await answer.text());
    const listed = await listedOnceStored(serve, listsTraces([TRACE_ID]));
    caseResultId = listed.find((trace) => trace.traceId === TRACE_ID)!.caseResultId;
    browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: CHROMIUM_FLAGS });
  });

  after(async () => {
    await browser?.close();
    await serve?.stop();
    await rm(folder, { recursive: true, force: true });
  });

  test("the stage waterfall gives durations in tenths of a millisecond, as the summary's latency, the exact value on hover", async () => {
    const page = await (await browser!.newContext()).newPage();
    await page.goto(`${serve!.uiUrl}/traces/${caseResultId}`);
    const generate = page.locator("#waterfall tr.stage", { hasText: "rag.generate" }).locator("td.duration");
    assert.equal(await generate.innerText(), "99.4", "it printed 99.439954");
    assert.equal(await generate.getAttribute("title"), "99.439954");
  });

  test("'Judge verdicts' says no judge evaluated it and how serve's judge is turned on", async () => {
    const page = await (await browser!.newContext()).newPage();
    const response = await page.goto(`${serve!.uiUrl}/traces/${caseResultId}`);
    assert.equal(response?.status(), 200, await page.content());
    const section = (await page.locator("section#judge").innerText()).replace(/\s+/g, " ");
    assert.match(section, /Not judged: no judge evaluated this request\./, section);
    assert.match(section, /ragscope serve .*RAGSCOPE_JUDGE_ENABLED=true \(RAGSCOPE_SAMPLE_RATE, default 0\.1\)/, section);
  });
});
