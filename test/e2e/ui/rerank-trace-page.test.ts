/**
 * The trace page shows the retriever's own list before the rerank beside the
 * rerank's, chunk by chunk, so an engineer sees what the reranker did — and,
 * when a customer's retrieval returned a staff-only chunk the rerank then
 * dropped (retrieval.permission's leak "retrieved by the first stage, dropped
 * by the rerank"), that chunk and the stage. As a user meets it:
 * `ragscope dataset push` (a subprocess) stores the Eval Case the first trace
 * runs, `ragscope serve` (a subprocess, the embedded store, the UI on a free
 * port), traces sent as real OTLP/HTTP — two recorded from the SDK's stage
 * wrappers, one raw OTLP from another instrumentation — and pages fetched over
 * HTTP; one check in Debian's headless Chromium, with JavaScript off.
 *
 * The reranked trace, worked by hand (the case's principal groups: customer):
 *
 *   retriever (rag.retrieve)               rerank (rag.rerank output)
 *   1 refund-policy      0.82  customer    1 refund-window  0.97
 *   2 staff-notes        0.8   staff       2 refund-policy  0.64
 *   3 refund-window      0.55  customer    3 faq-7          0.5   (not in the retriever's list)
 *   4 refund-exceptions  0.4   customer
 *
 * so refund-policy went 1 → 2, refund-window 3 → 1, staff-notes and
 * refund-exceptions were dropped, faq-7 only the rerank returned. staff-notes'
 * ACL (staff) names none of the principal's groups: not readable. The Eval
 * Case's gold evidence is chunks refund-window and refund-exceptions: both
 * hold it within the retriever's list; within the rerank's, only refund-window
 * (refund-exceptions is gone). The context packs refund-window and
 * refund-policy (refund-policy cut mid-text: truncated), the answer cites
 * refund-window.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { chromium, type Browser } from "playwright-core";
import { traceCite, traceContext, traceGenerate, traceRequest, traceRerank, traceRetrieve } from "../../../instrumentation/index.js";
import { postTraces, startSpanRecorder, toOtlpProtobuf, type SpanRecorder } from "../../support/recorded-spans.js";
import { startServeWithUi, type ServeWithUi } from "../../support/serve-with-ui.js";
import { syntheticRequestBody, syntheticSpan, text } from "../../support/synthetic-otlp-requests.js";
import { projectRoot, runRagscope } from "../experiments/support/run-ragscope.js";

const outputFolder = path.join(projectRoot, "test-output");
const chromiumPath = process.env.RAGSCOPE_CHROMIUM ?? "/usr/bin/chromium";
const CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
/** A bound on waiting for serve to store the traces; generous for a shared machine, not an assertion on speed. */
const WAIT_MS = 60_000;
/** Markup in a span value: the page must show it as text, never run it. */
const HOSTILE_TEXT = `Staff only: override <img src=x onerror=globalThis.injected=1> & <b>refund</b> limits "now".`;

const DATASET = `dataset_id: rerank_page
dataset_version: "1"
cases:
  - case_id: refund_rerank
    case_version: v1
    input: How long do I have to ask for a refund?
    risk_level: P1
    gold_evidence:
      - { document_id: refund_policy, chunk_id: refund-window }
      - { document_id: refund_policy, chunk_id: refund-exceptions }
`;

const QUERIES = { reranked: "How long do I have to ask for a refund?", plain: "What does shipping cost?", outputOnly: "query 3", withoutIds: "query 4", outputLost: "query 5" };

let folder: string;
let serve: ServeWithUi | undefined;
let recorder: SpanRecorder;
let browser: Browser | undefined;
const pageOf = new Map<string, { caseResultId: string; html: string }>();

const chunk = (chunkId: string, score: number, acl: string[], chunkText: string) => ({ chunkId, documentId: "refund_policy", documentVersion: "v2", text: chunkText, score, acl });

async function sendReranked(receiver: string): Promise<void> {
  recorder.reset();
  const policy = chunk("refund-policy", 0.82, ["customer"], "Refunds go back to the original payment method.");
  const staff = chunk("staff-notes", 0.8, ["staff"], HOSTILE_TEXT);
  const window = chunk("refund-window", 0.55, ["customer"], "You may ask for a refund within 30 days of delivery.");
  const exceptions = chunk("refund-exceptions", 0.4, ["customer"], "Sale items are refunded within 14 days.");
  const faq = chunk("faq-7", 0.5, ["customer"], "Refund questions are answered in the help centre.");
  await traceRequest({ query: QUERIES.reranked, runId: "rerank-run", caseId: "refund_rerank", caseVersion: "v1", datasetId: "rerank_page", datasetVersion: "1", principalGroups: ["customer"] }, async () => {
    const retrieved = await traceRetrieve({ query: QUERIES.reranked, topK: 4 }, () => [policy, staff, window, exceptions]);
    // A hybrid pipeline: faq-7 came from a second source merged in before the rerank, not from the retriever.
    await traceRerank({ query: QUERIES.reranked, input: [...retrieved, faq], model: "cross-encoder", topK: 3 }, () => [
      { ...window, score: 0.97 },
      { ...policy, score: 0.64 },
      { ...faq, score: 0.5 },
    ]);
    await traceContext({}, () => ({ text: `${window.text}\n${policy.text.slice(0, 20)}`, chunkIds: ["refund-window", "refund-policy"], truncatedChunkIds: ["refund-policy"] }));
    const answer = await traceGenerate({ model: "m" }, () => ({ text: "Within 30 days of delivery." }));
    await traceCite(() => ["refund-window"]);
    return answer;
  });
  assert.equal(await postTraces(receiver, toOtlpProtobuf(recorder.spans())), 200);
}

async function sendPlain(receiver: string): Promise<void> {
  recorder.reset();
  await traceRequest({ query: QUERIES.plain }, async () => {
    await traceRetrieve({ query: QUERIES.plain }, () => [
      { chunkId: "shipping-1", documentId: "shipping_policy", text: "Standard shipping costs five dollars.", score: 0.9 },
      { chunkId: "shipping-2", documentId: "shipping_policy", text: "Express shipping costs twelve dollars.", score: 0.7 },
    ]);
    return traceGenerate({ model: "m" }, () => ({ text: "Five dollars." }));
  });
  assert.equal(await postTraces(receiver, toOtlpProtobuf(recorder.spans())), 200);
}

/** Another instrumentation's trace (OpenInference): a RERANKER span with its output only, no retriever span. */
async function sendRerankOutputOnly(receiver: string): Promise<void> {
  const rerank = {
    ...syntheticSpan(3, 1, [
      text("openinference.span.kind", "RERANKER"),
      text("reranker.query", QUERIES.outputOnly),
      text("reranker.output_documents.0.document.id", "c-1"),
      text("reranker.output_documents.0.document.content", "First kept."),
      { key: "reranker.output_documents.0.document.score", value: { doubleValue: 0.9 } },
    ]),
    name: "rerank",
  };
  const body = syntheticRequestBody([syntheticSpan(3, 0, []), rerank], "other-instrumentation");
  const answer = await fetch(`${receiver}/v1/traces`, { method: "POST", headers: { "content-type": "application/x-protobuf" }, body });
  await answer.arrayBuffer();
  assert.equal(answer.status, 200);
}

/**
 * OpenInference documents without ids: one with text (the same chunk at both stages by its text), one with only a
 * score at each stage (nothing tells whether they are the same chunk).
 */
async function sendWithoutIds(receiver: string): Promise<void> {
  const score = (key: string, value: number) => ({ key, value: { doubleValue: value } });
  const retrieve = syntheticSpan(4, 1, [
    text("openinference.span.kind", "RETRIEVER"),
    text("retrieval.documents.0.document.content", "Alpha text."),
    score("retrieval.documents.0.document.score", 0.9),
    score("retrieval.documents.1.document.score", 0.8),
  ]);
  const rerank = {
    ...syntheticSpan(4, 2, [
      text("openinference.span.kind", "RERANKER"),
      text("reranker.output_documents.0.document.content", "Alpha text."),
      score("reranker.output_documents.0.document.score", 0.7),
      score("reranker.output_documents.1.document.score", 0.6),
    ]),
    name: "rerank",
  };
  const answer = await fetch(`${receiver}/v1/traces`, { method: "POST", headers: { "content-type": "application/x-protobuf" }, body: syntheticRequestBody([syntheticSpan(4, 0, []), retrieve, rerank], "other-instrumentation") });
  await answer.arrayBuffer();
  assert.equal(answer.status, 200);
}

/**
 * LlamaIndex's LLMRerank under OpenInference (a CHAIN `LLMRerank._postprocess_nodes`, no RERANKER span) whose SDK
 * dropped its output at the attribute count limit: the span carries its kind and name only, and says it lost 3.
 */
async function sendRerankOutputLost(receiver: string): Promise<void> {
  const retrieve = syntheticSpan(5, 1, [
    text("openinference.span.kind", "RETRIEVER"),
    text("retrieval.documents.0.document.id", "c-1"),
    text("retrieval.documents.0.document.content", "First retrieved."),
    text("retrieval.documents.1.document.id", "c-2"),
    text("retrieval.documents.1.document.content", "Second retrieved."),
  ]);
  const rerank = { ...syntheticSpan(5, 2, [text("openinference.span.kind", "CHAIN")]), name: "LLMRerank._postprocess_nodes", droppedAttributesCount: 3 };
  const answer = await fetch(`${receiver}/v1/traces`, { method: "POST", headers: { "content-type": "application/x-protobuf" }, body: syntheticRequestBody([syntheticSpan(5, 0, []), retrieve, rerank], "other-instrumentation") });
  await answer.arrayBuffer();
  assert.equal(answer.status, 200);
}

async function storedTraces(count: number): Promise<{ caseResultId: string; query: string }[]> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const listed = (await (await fetch(`${serve!.uiUrl}/api/traces?limit=10`)).json()) as { traces: { caseResultId: string; query: string }[] };
    if (listed.traces.length >= count || Date.now() > deadline) return listed.traces;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const entities: Record<string, string> = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#39;": "'" };
const cellText = (markup: string) => markup.replace(/<[^>]*>/g, "").replace(/&(amp|lt|gt|quot|#39);/g, (entity) => entities[entity]!).trim();

/** The cells of each row of one class in one section of the page, as text. */
function rowsOf(html: string, sectionId: string, rowClass: string): string[][] {
  const section = new RegExp(`<section id="${sectionId}">([\\s\\S]*?)</section>`).exec(html)?.[1] ?? "";
  return [...section.matchAll(new RegExp(`<tr class="${rowClass}"[^>]*>([\\s\\S]*?)</tr>`, "g"))].map((row) => [...row[1]!.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((cell) => cellText(cell[1]!)));
}

const HEADER = ["retriever rank", "retriever score", "rank after rerank", "rerank score", "stage", "chunk", "document", "ACL", "readable?", "gold?", "packed?", "cited?", "text"];
const asRecord = (cells: string[]) => Object.fromEntries(HEADER.map((name, index) => [name, cells[index]]));

before(async () => {
  folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-rerank-page-"));
  const dataDir = path.join(folder, "data");
  await writeFile(path.join(folder, "rerank-page.yaml"), DATASET);
  const pushed = await runRagscope(["dataset", "push", path.join(folder, "rerank-page.yaml"), "--data-dir", dataDir], { RAGSCOPE_CLICKHOUSE_URL: "" });
  assert.equal(pushed.status, 0, pushed.stdout + pushed.stderr);
  serve = await startServeWithUi(dataDir, { RAGSCOPE_QUIET_PERIOD_MS: "200" });
  const receiver = /OTLP\/HTTP on (http:\/\/[^/\s]+)\/v1\/traces/.exec(serve.output())?.[1];
  assert.ok(receiver, serve.output());
  recorder = startSpanRecorder("support-bot");
  await sendReranked(receiver);
  await sendPlain(receiver);
  await recorder.shutdown();
  await sendRerankOutputOnly(receiver);
  await sendWithoutIds(receiver);
  await sendRerankOutputLost(receiver);
  const traces = await storedTraces(5);
  for (const [name, query] of Object.entries(QUERIES)) {
    const trace = traces.find((item) => item.query === query);
    assert.ok(trace, `${name} stored: ${JSON.stringify(traces)}\n${serve.output()}`);
    const answer = await fetch(`${serve.uiUrl}/traces/${encodeURIComponent(trace.caseResultId)}`);
    assert.equal(answer.status, 200);
    pageOf.set(name, { caseResultId: trace.caseResultId, html: await answer.text() });
  }
});

after(async () => {
  await browser?.close();
  if (serve !== undefined && serve.child.exitCode === null) {
    serve.child.kill("SIGTERM");
    await serve.exited;
  }
  await rm(folder, { recursive: true, force: true });
});

describe("the trace page shows the retriever's list before the rerank", () => {
  test("each chunk with its retriever rank, its rank after the rerank or dropped, both stages' scores and its flags", () => {
    const rows = rowsOf(pageOf.get("reranked")!.html, "rerank", "rerank-chunk").map(asRecord);
    // The table worked by hand in the header comment: the retriever's order, then what only the rerank returned.
    assert.deepEqual(
      rows.map((row) => [row["chunk"], row["retriever rank"], row["retriever score"], row["rank after rerank"], row["rerank score"]]),
      [
        ["refund-policy", "1", "0.82", "2", "0.64"],
        ["staff-notes", "2", "0.8", "dropped", "—"],
        ["refund-window", "3", "0.55", "1", "0.97"],
        ["refund-exceptions", "4", "0.4", "dropped", "—"],
        ["faq-7", "not in the retriever's list", "—", "3", "0.5"],
      ],
    );
    assert.deepEqual(
      rows.map((row) => row["stage"]),
      [
        "retrieved by the first stage and kept by the rerank",
        "retrieved by the first stage, dropped by the rerank",
        "retrieved by the first stage and kept by the rerank",
        "retrieved by the first stage, dropped by the rerank",
        "returned by the rerank",
      ],
    );
    assert.deepEqual(
      rows.map((row) => [row["ACL"], row["readable?"], row["gold?"], row["packed?"], row["cited?"]]),
      [
        ["customer", "yes", "no", "yes, truncated", "no"],
        ["staff", "no (ACL; principal groups customer)", "no", "no", "no"],
        ["customer", "yes", "yes", "yes", "yes"],
        ["customer", "yes", "yes", "no", "no"],
        ["customer", "yes", "no", "no", "no"],
      ],
    );
    // The span's text as text: escaped in the page, read back whole.
    assert.equal(rows[1]!["text"], HOSTILE_TEXT);
    assert.match(pageOf.get("reranked")!.html, /<p class="muted" id="rerank-summary">The retriever returned 4 chunks, the rerank 3; 2 of the retriever's chunks dropped by the rerank\./);
  });

  test("the list the metrics read is the rerank's, with the same flags; the permission leak names the dropped chunk and its stage", async () => {
    const page = pageOf.get("reranked")!;
    const finalRows = rowsOf(page.html, "chunks", "chunk");
    // rank, score, chunk, …, gold? (6), packed? (7), cited? (8), readable? (9)
    assert.deepEqual(
      finalRows.map((cells) => [cells[0], cells[1], cells[2], cells[6], cells[7], cells[8], cells[9]]),
      [
        ["1", "0.97", "refund-window", "yes", "yes", "yes", "yes"],
        ["2", "0.64", "refund-policy", "no", "yes, truncated", "no", "yes"],
        ["3", "0.5", "faq-7", "no", "no", "no", "yes"],
      ],
    );
    const detail = (await (await fetch(`${serve!.uiUrl}/api/traces/${encodeURIComponent(page.caseResultId)}`)).json()) as { evaluationResults: { evaluator_id: string; reason: string }[] };
    const permission = detail.evaluationResults.find((item) => item.evaluator_id === "retrieval.permission");
    assert.match(permission?.reason ?? "", /staff-notes \(acl staff; retrieved by the first stage, dropped by the rerank\)/);
  });

  test("every span value is escaped: the markup in a chunk's text is never markup in the page", () => {
    const html = pageOf.get("reranked")!.html;
    assert.doesNotMatch(html, /<img src=x/);
    assert.doesNotMatch(html, /<b>refund<\/b>/);
    const rerankSection = /<section id="rerank">([\s\S]*?)<\/section>/.exec(html)?.[1] ?? "";
    assert.match(rerankSection, /Staff only: override &lt;img src=x onerror=globalThis\.injected=1&gt; &amp; &lt;b&gt;refund&lt;\/b&gt; limits &quot;now&quot;\./);
  });

  test("a trace without a rerank says the rerank is not recorded and invents no rank", () => {
    const html = pageOf.get("plain")!.html;
    assert.match(html, /<p id="rerank-not-recorded" class="muted">Rerank: not recorded\. No chunk has a rank before or after a rerank; the list above is the trace's only ranking\.<\/p>/);
    assert.deepEqual(rowsOf(html, "rerank", "rerank-chunk"), []);
    assert.deepEqual(rowsOf(html, "chunks", "chunk").map((cells) => [cells[0], cells[2]]), [["1", "shipping-1"], ["2", "shipping-2"]]);
  });

  test("a rerank recorded without the retriever's list says the ranks before it are not recorded", () => {
    const html = pageOf.get("outputOnly")!.html;
    assert.match(html, /<p id="rerank-not-recorded" class="muted">The trace records a rerank but not both of its lists/);
    assert.deepEqual(rowsOf(html, "rerank", "rerank-chunk"), []);
    assert.deepEqual(rowsOf(html, "chunks", "chunk").map((cells) => [cells[0], cells[1], cells[2]]), [["1", "0.9", "c-1"]]);
  });

  test("a chunk without id is matched across the lists by its text; one with neither id nor text is never given a rank it may not have", () => {
    const html = pageOf.get("withoutIds")!.html;
    const unknown = "not known (no chunk id or text to match it by)";
    assert.deepEqual(rowsOf(html, "rerank", "rerank-chunk").map((cells) => cells.slice(0, 6)), [
      ["1", "0.9", "1", "0.7", "retrieved by the first stage and kept by the rerank", "rank 1 (no id)"],
      ["2", "0.8", unknown, "—", "retrieved by the first stage; whether the rerank kept it is not known", "rank 2 (no id)"],
      [unknown, "—", "2", "0.6", "returned by the rerank; whether the retriever listed it is not known", "rank 2 (no id)"],
    ]);
    assert.match(html, /The retriever returned 2 chunks, the rerank 2; 0 of the retriever's chunks dropped by the rerank; 2 listed without a chunk id or text, so not matched across the two lists\./);
  });

  test("a rerank whose SDK dropped its output: no final ranking, and no chunk of the retriever's shown as dropped or kept", () => {
    const html = pageOf.get("outputLost")!.html;
    assert.match(html, /<p class="muted" id="chunks-not-available">A rerank was recorded, but its output, the final ranking, is not available/);
    assert.deepEqual(rowsOf(html, "chunks", "chunk"), [], "the retriever's list is not shown as the final ranking");
    const notKnown = "not known (the rerank's output is not available)";
    const stage = "retrieved by the first stage; the rerank's output is not available, so whether it kept it is not known";
    assert.deepEqual(rowsOf(html, "rerank", "rerank-chunk").map((cells) => cells.slice(0, 6)), [
      ["1", "—", notKnown, "—", stage, "c-1"],
      ["2", "—", notKnown, "—", stage, "c-2"],
    ]);
    assert.match(html, /<p class="muted" id="rerank-summary">The retriever returned 2 chunks; the rerank's output is not available \(see Attributes not taken as sent above\), so where the rerank put each of them, and which it dropped, is not known\./);
    assert.doesNotMatch(html, /class="dropped"/);
  });

  test("in headless Chromium with JavaScript off, the dropped staff-only chunk and its stage are on the page; with it on, its text runs nothing", async () => {
    assert.ok(existsSync(chromiumPath), `Chromium is needed at ${chromiumPath} (Debian package chromium)`);
    browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: CHROMIUM_FLAGS });
    const address = `${serve!.uiUrl}/traces/${encodeURIComponent(pageOf.get("reranked")!.caseResultId)}`;
    const withoutScripts = await (await browser.newContext({ javaScriptEnabled: false })).newPage();
    await withoutScripts.goto(address);
    const dropped = withoutScripts.locator('#rerank tr.rerank-chunk[data-chunk-id="staff-notes"]');
    assert.ok(await dropped.isVisible());
    assert.equal(await dropped.locator("td.rerank-rank").textContent(), "dropped");
    assert.equal(await dropped.locator("td.stage").textContent(), "retrieved by the first stage, dropped by the rerank");
    assert.equal(await dropped.locator("td.readable").textContent(), "no (ACL; principal groups customer)");
    assert.equal(await dropped.locator("td.text").textContent(), HOSTILE_TEXT);
    await mkdir(outputFolder, { recursive: true });
    await withoutScripts.locator("#rerank").screenshot({ path: path.join(outputFolder, "ui-rerank.png") });

    const withScripts = await (await browser.newContext()).newPage();
    const errors: string[] = [];
    withScripts.on("pageerror", (error) => errors.push(error.message));
    await withScripts.goto(address);
    assert.equal(await withScripts.locator("#rerank img").count(), 0);
    assert.equal(await withScripts.evaluate(() => (globalThis as { injected?: unknown }).injected), undefined);
    assert.deepEqual(errors, []);
  });
});
