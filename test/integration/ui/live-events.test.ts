/**
 * The live list's server-sent events, on the UI server (in-process, over
 * HTTP on 127.0.0.1) with the in-memory store:
 * - a stream says "ready", then "traces" when a trace is stored;
 * - streams are bounded: one past the bound is refused with 503, and closing
 *   one frees its place;
 * - the server closes with streams open;
 * - in Chromium, a list whose stream is refused falls back to polling and
 *   still shows new traces; with a stream, new traces come by events.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { chromium, type Browser } from "playwright-core";
import { createDefaultRegistry } from "../../../evaluators/default-registry.js";
import { evaluateCaseResult } from "../../../evaluators/evaluate-case-result.js";
import { createMemoryStore } from "../../../store/memory/memory-store.js";
import { startUiServer, type UiServer } from "../../../ui/ui-server.js";
import { buildCaseResult } from "../../support/case-results.js";

const chromiumPath = process.env.RAGSCOPE_CHROMIUM ?? "/usr/bin/chromium";
const CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const registry = createDefaultRegistry();

async function storeTrace(store: ReturnType<typeof createMemoryStore>, index: number): Promise<void> {
  const evaluated = evaluateCaseResult(registry, { ...buildCaseResult({ output: `Answer ${index}.` }), case_id: "" }, null, "2026-07-08T09:00:00.000Z");
  const started = new Date(Date.parse("2026-07-08T09:00:00.000Z") + index * 1000).toISOString();
  const id = `cr_live_${index}`;
  const written = await store.results.write([
    {
      caseResult: { ...evaluated.caseResult, case_result_id: id, trace_id: `trace_${index}`, started_at: started, completed_at: started, rag_observation: { ...evaluated.caseResult.rag_observation, query: `question ${index}` } },
      evaluationResults: evaluated.evaluationResults.map((result) => ({ ...result, evaluation_result_id: `${result.evaluation_result_id}_${index}`, case_result_id: id })),
    },
  ]);
  assert.ok(written.ok);
}

/** Reads server-sent events from a fetch body, event by event. */
function eventReader(body: ReadableStream<Uint8Array>) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  return {
    async next(): Promise<{ event: string; data: string }> {
      for (;;) {
        const end = buffered.indexOf("\n\n");
        if (end !== -1) {
          const block = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          const lines = block.split("\n");
          const event = lines.find((line) => line.startsWith("event: "))?.slice(7);
          if (event === undefined) continue;
          return { event, data: lines.find((line) => line.startsWith("data: "))?.slice(6) ?? "" };
        }
        const { value, done } = await reader.read();
        if (done) throw new Error("the stream ended");
        buffered += decoder.decode(value, { stream: true });
      }
    },
    cancel: () => reader.cancel(),
  };
}

describe("live traces by server-sent events", () => {
  let store: ReturnType<typeof createMemoryStore>;
  let server: UiServer;
  let browser: Browser;

  before(async () => {
    store = createMemoryStore();
    server = await startUiServer({ host: "127.0.0.1", port: 0, store, access: { tokens: new Map() }, traceEvents: { pollMilliseconds: 50, maxStreams: 2 } });
  });
  let closed = false;
  after(async () => {
    await browser?.close();
    if (!closed) await server?.close();
  });

  test("a stream says ready, then traces when a trace is stored; a third stream is refused until one closes", async () => {
    const first = await fetch(`${server.url}/api/traces/stream`);
    assert.equal(first.status, 200);
    assert.match(first.headers.get("content-type") ?? "", /^text\/event-stream/);
    const events = eventReader(first.body!);
    assert.equal((await events.next()).event, "ready");
    // An empty store: the first look finds no trace.
    assert.deepEqual(await events.next(), { event: "traces", data: "null" });
    const second = await fetch(`${server.url}/api/traces/stream`);
    assert.equal(second.status, 200);
    const refused = await fetch(`${server.url}/api/traces/stream`);
    assert.equal(refused.status, 503);
    assert.equal(refused.headers.get("retry-after"), "10");
    assert.match(await refused.text(), /too many live lists/);

    await storeTrace(store, 1);
    const announced = await events.next();
    assert.equal(announced.event, "traces");
    assert.equal((JSON.parse(announced.data) as { caseResultId: string }).caseResultId, "cr_live_1");

    await second.body!.cancel();
    // The server sees the closed connection in its own time: ask until the place is free.
    let again = await fetch(`${server.url}/api/traces/stream`);
    while (again.status === 503) {
      await again.text();
      again = await fetch(`${server.url}/api/traces/stream`);
    }
    assert.equal(again.status, 200);
    await again.body!.cancel();
    await events.cancel();
  });

  test("in Chromium: new traces come by events; a refused stream falls back to polling", async () => {
    assert.ok(existsSync(chromiumPath), `Chromium is needed at ${chromiumPath}`);
    browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: CHROMIUM_FLAGS });
    // A server of its own: every place free.
    await server.close();
    server = await startUiServer({ host: "127.0.0.1", port: 0, store, access: { tokens: new Map() }, traceEvents: { pollMilliseconds: 50, maxStreams: 2 } });
    const page = await browser.newPage();
    await page.goto(`${server.url}/traces`);
    await page.waitForSelector('#live-status[data-mode="events"]');
    await storeTrace(store, 2);
    await page.waitForSelector('#trace-rows tr[data-case-result-id="cr_live_2"]');
    assert.equal(await page.locator("#live-status").getAttribute("data-mode"), "events");

    // Fill the one other place, so the next list is refused its stream.
    const holder = await fetch(`${server.url}/api/traces/stream`);
    assert.equal(holder.status, 200);
    const refusedPage = await browser.newPage();
    await refusedPage.goto(`${server.url}/traces`);
    await refusedPage.waitForSelector('#live-status[data-mode="polling"]');
    await storeTrace(store, 3);
    await refusedPage.waitForSelector('#trace-rows tr[data-case-result-id="cr_live_3"]');
    await holder.body!.cancel();
  });

  test("the server closes with event streams open", async () => {
    await browser.close();
    const open = await fetch(`${server.url}/api/traces/stream`);
    assert.equal(open.status, 200);
    const events = eventReader(open.body!);
    assert.equal((await events.next()).event, "ready");
    await server.close();
    closed = true;
    // Events sent before the close may still be read; then the stream ends.
    await assert.rejects(async () => {
      for (;;) await events.next();
    }, /the stream ended|terminated/);
  });
});

describe("one reviewer holds at most their share of the live streams", () => {
  const TOKENS = { alice: "alice-token-0123456789abcdef", bob: "bob-token-0123456789abcdef00" };
  let server: UiServer;
  before(async () => {
    server = await startUiServer({ host: "127.0.0.1", port: 0, store: createMemoryStore(), access: { tokens: new Map(Object.entries(TOKENS).map(([reviewer, token]) => [token, reviewer])) }, traceEvents: { pollMilliseconds: 50, maxStreams: 4 } });
  });
  after(() => server?.close());
  const open = (reviewer: keyof typeof TOKENS) => fetch(`${server.url}/api/traces/stream`, { headers: { authorization: `Bearer ${TOKENS[reviewer]}` } });

  test("with four places, alice's second stream is refused saying why; bob still gets one; alice's closed stream frees hers", async () => {
    const alices = await open("alice");
    assert.equal(alices.status, 200);
    const refused = await open("alice");
    assert.equal(refused.status, 503);
    assert.equal(refused.headers.get("retry-after"), "10");
    assert.match(((await refused.json()) as { error: string }).error, /you have 1 live lists open, as many as one reviewer may; this one polls instead/);
    const bobs = await open("bob");
    assert.equal(bobs.status, 200, "the server's places are not all taken by alice");
    await alices.body!.cancel();
    // The server sees the closed connection in its own time: ask until her place is free.
    let again = await open("alice");
    for (let tries = 0; again.status === 503 && tries < 1000; tries += 1) {
      await again.text();
      again = await open("alice");
    }
    assert.equal(again.status, 200);
    await again.body!.cancel();
    await bobs.body!.cancel();
  });
});
