/**
 * A user with a trace id from their application's log opens its trace in the browser. Before, the trace page was
 * keyed by case result id only: `/traces/<trace id>` said "no trace with case result id … is stored", and the
 * traces list's search box looked for the id in the questions and answers, listing nothing.
 *
 * As a user meets it: `ragscope serve` runs as a child process (no tokens: loopback), the application sends two
 * requests to its OTLP receiver, and Chromium opens `/traces/<trace id>` with the id in capitals (as some APMs show
 * it), then types the other trace id into the traces list's search box. Expected, from what was sent: the first
 * lands on that request's trace page (its address the case result id and the trace id, its answer shown); the
 * search lists exactly the other request, whose answer does not hold the id.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { chromium, type Browser, type Page } from "playwright-core";
import { listedOnceStored, listsTraces } from "../../support/listed-traces.js";
import { oneRequestOtlp } from "../../support/one-request-otlp.js";
import { startServeWithUi, type ServeWithUi } from "../../support/serve-with-ui.js";

const chromiumPath = process.env.RAGSCOPE_CHROMIUM ?? "/usr/bin/chromium";
const CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

const SENT = [
  { traceId: "4bf92f3577b34da6a3ce929d0e0e4736", answer: "Refunds take 14 days." },
  { traceId: "00f067aa0ba902b7a3ce929d0e0e4736", answer: "Shipping takes 3 days." },
] as const;

function otlp(traceId: string, answer: string): string {
  return oneRequestOtlp({
    traceId,
    serviceName: "support-bot",
    spans: [{ name: "rag.request", attributes: { "openinference.span.kind": "CHAIN", "ragscope.stage": "request", "ragscope.query": "how long does it take?", "ragscope.answer": answer } }],
  });
}

describe("a trace id opens its trace in the browser", () => {
  let folder: string;
  let serve: ServeWithUi | null = null;
  let browser: Browser | null = null;
  let page: Page;
  /** Each sent trace id's case result id, as the list gives it. */
  const caseResultOf = new Map<string, string>();

  before(async () => {
    assert.ok(existsSync(chromiumPath), `Chromium is needed at ${chromiumPath} (Debian package chromium)`);
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-trace-id-address-"));
    serve = await startServeWithUi(path.join(folder, "data"), { RAGSCOPE_QUIET_PERIOD_MS: "200", RAGSCOPE_UI_TOKENS: "", RAGSCOPE_UI_TENANT_TOKENS: "" });
    for (const sent of SENT) {
      const answer = await fetch(`${serve.receiverUrl}/v1/traces`, { method: "POST", headers: { "content-type": "application/json" }, body: otlp(sent.traceId, sent.answer) });
      assert.equal(answer.status, 200, await answer.text());
    }
    // Polled (bounded) until both requests are stored.
    for (const trace of await listedOnceStored(serve, listsTraces(SENT.map((sent) => sent.traceId)))) caseResultOf.set(trace.traceId, trace.caseResultId);
    browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: CHROMIUM_FLAGS });
    page = await (await browser.newContext()).newPage();
  });

  after(async () => {
    await browser?.close();
    await serve?.stop();
    await rm(folder, { recursive: true, force: true });
  });

  test("the address /traces/<trace id>, in capitals, lands on that request's trace page", async () => {
    const [first] = SENT;
    const response = await page.goto(`${serve!.uiUrl}/traces/${first.traceId.toUpperCase()}`);
    assert.equal(response?.status(), 200, await page.content());
    const reached = new URL(page.url());
    assert.equal(`${reached.pathname}${reached.search}`, `/traces/${caseResultOf.get(first.traceId)}?trace=${first.traceId}`);
    const shown = await page.content();
    assert.ok(shown.includes(first.answer), "the request's answer is shown");
    assert.ok(!shown.includes(SENT[1].answer), "not the other request's");
  });

  test("a trace page's ?trace= in capitals opens that request's trace, as /traces/<trace id> does", async () => {
    const [first] = SENT;
    for (const pages of ["/traces", "/review"]) {
      const response = await page.goto(`${serve!.uiUrl}${pages}/${caseResultOf.get(first.traceId)}?trace=${first.traceId.toUpperCase()}`);
      assert.equal(response?.status(), 200, `${pages}: ${await page.content()}`);
      assert.ok((await page.content()).includes(first.answer), pages);
    }
  });

  test("a trace id typed into the traces list's search box lists that request alone", async () => {
    const [, second] = SENT;
    await page.goto(`${serve!.uiUrl}/traces`);
    assert.equal(await page.locator("#trace-rows tr[data-case-result-id]").count(), 2, "both requests are listed unfiltered");
    await page.fill('input[name="q"]', second.traceId);
    await Promise.all([page.waitForNavigation(), page.click('form.filters button[type="submit"]')]);
    const rows = page.locator("#trace-rows tr[data-case-result-id]");
    assert.deepEqual(await rows.evaluateAll((found) => found.map((row) => row.getAttribute("data-case-result-id"))), [caseResultOf.get(second.traceId)]);
    assert.ok((await rows.first().textContent())?.includes(second.answer));
  });
});
