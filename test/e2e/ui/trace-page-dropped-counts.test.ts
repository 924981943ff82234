/**
 * The trace page says when a span's SDK dropped attributes or events at its count limits (OTLP
 * `dropped_attributes_count` / `dropped_events_count`): on the span's line in "Raw spans", visible with the span
 * closed, e.g. "12 attributes dropped by the SDK". Before, the stored raw span did not carry the counts and the page
 * showed a span cut at its limit as a whole one. As a user meets it: `ragscope serve` (a subprocess, the embedded
 * store, the UI on a free port), traces sent as real OTLP/HTTP — one recorded by ragscope's SDK on the real OTel JS
 * SDK with a low attribute count limit, one raw OTLP span counting dropped events, one whole — and the page opened in
 * Debian's headless Chromium.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { chromium, type Browser } from "playwright-core";
import { traceRequest, traceRetrieve } from "../../../instrumentation/index.js";
import { listedOnceStored } from "../../support/listed-traces.js";
import { postTraces, startSpanRecorder, toOtlpProtobuf } from "../../support/recorded-spans.js";
import { startServeWithUi, type ServeWithUi } from "../../support/serve-with-ui.js";
import { syntheticRequestBody, syntheticSpan, text } from "../../support/synthetic-otlp-requests.js";

const chromiumPath = process.env.RAGSCOPE_CHROMIUM ?? "/usr/bin/chromium";
const CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const QUERIES = { cut: "Which refunds are allowed?", events: "query 7", whole: "What does shipping cost?" };
const EVENTS_DROPPED = 3;

let folder: string;
let serve: ServeWithUi | undefined;
let browser: Browser | undefined;
let attributesDropped = 0;
const caseResultOf = new Map<string, string>();

const chunks = ["refund-1", "refund-2", "refund-3", "refund-4", "refund-5"].map((chunkId, index) => ({ chunkId, documentId: "refund_policy", text: `Refund rule ${index + 1}.`, score: 0.9 - index / 10 }));

before(async () => {
  folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-dropped-counts-page-"));
  serve = await startServeWithUi(path.join(folder, "data"), { RAGSCOPE_QUIET_PERIOD_MS: "200", RAGSCOPE_UI_TOKENS: "", RAGSCOPE_UI_TENANT_TOKENS: "", RAGSCOPE_JUDGE_ENABLED: "false" });
  const receiver = serve.receiverUrl;

  // Low enough that a retrieval of five documents loses its last ones (each takes a handful of attributes).
  const cutRecorder = startSpanRecorder("support-bot", { attributeCountLimit: 20 });
  await traceRequest({ query: QUERIES.cut }, () => traceRetrieve({ query: QUERIES.cut }, () => chunks));
  const cutSpans = cutRecorder.spans();
  attributesDropped = cutSpans.find((span) => span.name === "rag.retrieve")!.droppedAttributesCount;
  assert.ok(attributesDropped > 0, "the SDK dropped attributes of the retrieval");
  assert.equal(await postTraces(receiver, toOtlpProtobuf(cutSpans)), 200);
  await cutRecorder.shutdown();

  const wholeRecorder = startSpanRecorder("support-bot");
  await traceRequest({ query: QUERIES.whole }, () => traceRetrieve({ query: QUERIES.whole }, () => chunks.slice(0, 2)));
  assert.equal(await postTraces(receiver, toOtlpProtobuf(wholeRecorder.spans())), 200);
  await wholeRecorder.shutdown();

  // Another instrumentation's span whose SDK dropped events (the counts as OTLP carries them).
  const withEvents = { ...syntheticSpan(7, 1, [text("openinference.span.kind", "RETRIEVER")]), name: "vector.search", droppedEventsCount: EVENTS_DROPPED };
  const answer = await fetch(`${receiver}/v1/traces`, { method: "POST", headers: { "content-type": "application/x-protobuf" }, body: syntheticRequestBody([syntheticSpan(7, 0, []), withEvents], "other-instrumentation") });
  await answer.arrayBuffer();
  assert.equal(answer.status, 200);

  const traces = await listedOnceStored(serve, (listed) => listed.length >= 3, { limit: 10 });
  for (const [name, query] of Object.entries(QUERIES)) {
    const trace = traces.find((item) => item.query === query);
    assert.ok(trace, `${name} stored: ${JSON.stringify(traces)}\n${serve.output()}`);
    caseResultOf.set(name, trace.caseResultId);
  }
  browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: CHROMIUM_FLAGS });
});

after(async () => {
  await browser?.close();
  await serve?.stop();
  await rm(folder, { recursive: true, force: true });
});

/** Each raw span's closed line as the browser shows it: its name and what it says was dropped (null when nothing). */
async function spanLines(name: string): Promise<{ span: string; drops: string | null; visible: boolean }[]> {
  const page = await (await browser!.newContext()).newPage();
  const response = await page.goto(`${serve!.uiUrl}/traces/${encodeURIComponent(caseResultOf.get(name)!)}`);
  assert.equal(response?.status(), 200);
  const lines = await page.locator("#raw-spans details.raw-span").evaluateAll((spans) =>
    spans.map((span) => {
      // The page's DOM types are not in this project's lib: the two properties read, as the browser has them.
      const drops = span.querySelector("summary .span-drops") as unknown as { innerText: string; offsetParent: unknown } | null;
      return { span: span.querySelector(".span-name")!.textContent!, drops: drops?.innerText ?? null, visible: drops !== null && drops.offsetParent !== null && !(span as unknown as { open: boolean }).open };
    }),
  );
  await page.close();
  return lines;
}

describe("the trace page shows what a span's SDK dropped", () => {
  test("a retrieval cut at its SDK's attribute limit says how many attributes were dropped, on its closed line", async () => {
    const lines = await spanLines("cut");
    assert.deepEqual(
      lines.map((line) => [line.span, line.drops, line.visible]),
      [
        ["rag.request", null, false],
        ["rag.retrieve", `${attributesDropped} attributes dropped by the SDK`, true],
      ],
    );
  });

  test("the retrieval's documents are not shown as the whole list: the note says the span lost them to its SDK's limit", async () => {
    const html = await (await fetch(`${serve!.uiUrl}/traces/${encodeURIComponent(caseResultOf.get("cut")!)}`)).text();
    assert.match(html, /<p class="muted" id="chunks-not-available">A retrieval was recorded, but its documents are not available \(see Attributes not taken as sent above: a list that could not be read whole is not shown, nor measured\)/);
    const notes = /<section id="malformed-attributes">([\s\S]*?)<\/section>/.exec(html)?.[1] ?? "";
    assert.match(notes, new RegExp(`The span lost ${attributesDropped} attributes to its SDK&#39;s limit OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT`));
  });

  test("a span whose SDK dropped events says how many", async () => {
    const lines = await spanLines("events");
    assert.deepEqual(
      lines.map((line) => [line.span, line.drops]),
      [
        ["rag.request", null],
        ["vector.search", `${EVENTS_DROPPED} events dropped by the SDK`],
      ],
    );
  });

  test("a whole trace says nothing was dropped", async () => {
    const lines = await spanLines("whole");
    assert.deepEqual(lines.map((line) => line.drops), [null, null]);
  });
});
