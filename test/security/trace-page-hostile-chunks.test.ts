/**
 * A trace page over chunk lists an application filled with hostile values.
 * The spans are the sending tenant's to write, and the page renders in serve's
 * one thread, which its OTLP receiver shares: a page must stay in proportion
 * to the trace, whatever the lists repeat.
 *
 * As an attacker meets it: `ragscope serve` as a child process with tenant
 * tokens; tenant acme sends one request whose retrieve span lists one chunk id
 * 2,000 times and whose rerank span returns that id 2,000 times, with markup
 * in chunk ids, query and answer, and NaN, ±Infinity and -1e308 scores; acme's
 * reviewer opens the trace page. Found: the "Before and after the rerank"
 * table showed each of the 2,000 rows with all 2,000 of the rerank's places —
 * a 97 MB page that held serve (receiver included) for 20 s and took 500 MB;
 * 5,000 of each would be 25 million places. Expected (ui/pages/rerank-comparison.ts
 * MAXIMUM_RANKS_SHOWN): each row shows its first places and counts the rest,
 * so the page is a few MB; every value is escaped; a score that is no finite
 * number is shown as not recorded.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { tokenDigestHex } from "../../collector/01-receive/bearer-authorization.js";
import { MAXIMUM_RANKS_SHOWN } from "../../ui/pages/rerank-comparison.js";
import { recordAttack } from "../support/attack-report.js";
import { startServeWithUi, type ServeWithUi } from "../support/serve-with-ui.js";

const INGEST_ACME = "ingest-token-of-acme-hostile-chunks-6a1f";
const ALICE = "ui-token-of-alice-at-acme-hostile-chunks-0d93";
const TRACE_ID = "e1000000000000000000000000000001";
const LISTED = 2_000;
const MARKUP = '"><script>alert(1)</script>';
const MEBIBYTE = 1024 * 1024;

/** acme's request: a retrieve span and a rerank span that each list the chunk "repeated" LISTED times (every seventh retrieve id is MARKUP). */
function hostileRequest(): string {
  const text = (value: string) => ({ stringValue: value });
  const scores = [{ doubleValue: "NaN" }, { doubleValue: "Infinity" }, { doubleValue: "-Infinity" }, { doubleValue: -1e308 }, { doubleValue: 0.5 }];
  const start = BigInt(Date.now() - 60_000) * 1_000_000n;
  const span = (spanId: string, name: string, attributes: unknown[], parentSpanId?: string) => ({ traceId: TRACE_ID, spanId, parentSpanId, name, kind: 1, startTimeUnixNano: String(start), endTimeUnixNano: String(start + 100_000_000n), attributes });
  const retrieve: unknown[] = [{ key: "ragscope.stage", value: text("retrieve") }];
  const rerank: unknown[] = [{ key: "ragscope.stage", value: text("rerank") }];
  for (let index = 0; index < LISTED; index += 1) {
    retrieve.push({ key: `retrieval.documents.${index}.document.id`, value: text(index % 7 === 0 ? MARKUP : "repeated") }, { key: `retrieval.documents.${index}.document.score`, value: scores[index % 5] });
    rerank.push({ key: `reranker.output_documents.${index}.document.id`, value: text("repeated") }, { key: `reranker.output_documents.${index}.document.score`, value: scores[(index + 1) % 5] });
  }
  const root = span("a000000000000001", "rag.request", [
    { key: "ragscope.stage", value: text("request") },
    { key: "ragscope.query", value: text(MARKUP) },
    { key: "ragscope.answer", value: text("<img src=x onerror=alert(2)>") },
  ]);
  const spans = [root, span("a000000000000002", "rag.retrieve", retrieve, "a000000000000001"), span("a000000000000003", "rag.rerank", rerank, "a000000000000001")];
  return JSON.stringify({ resourceSpans: [{ resource: { attributes: [{ key: "service.name", value: text("acme-bot") }] }, scopeSpans: [{ spans }] }] });
}

describe("a trace page over hostile chunk lists", () => {
  let folder: string;
  let serve: ServeWithUi | null = null;
  const read = (address: string) => fetch(`${serve!.uiUrl}${address}`, { headers: { authorization: `Bearer ${ALICE}` } });

  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-hostile-chunks-"));
    serve = await startServeWithUi(path.join(folder, "data"), {
      RAGSCOPE_QUIET_PERIOD_MS: "200",
      RAGSCOPE_TENANT_TOKENS: `acme=${tokenDigestHex(INGEST_ACME)}`,
      RAGSCOPE_UI_TOKENS: "",
      RAGSCOPE_UI_TENANT_TOKENS: `alice:acme=${tokenDigestHex(ALICE)}`,
    });
  });

  after(async () => {
    if (serve !== null && serve.child.exitCode === null) {
      serve.child.kill("SIGTERM");
      await serve.exited;
    }
    await rm(folder, { recursive: true, force: true });
  });

  test("each row shows its first places and counts the rest; every value is escaped; the page stays a few MB", async () => {
    const receiver = /OTLP\/HTTP on (http:\/\/[\d.:]+)\/v1\/traces/.exec(serve!.output())?.[1];
    assert.ok(receiver !== undefined, serve!.output());
    const sent = await fetch(`${receiver}/v1/traces`, { method: "POST", headers: { authorization: `Bearer ${INGEST_ACME}`, "content-type": "application/json" }, body: hostileRequest() });
    assert.equal(sent.status, 200, await sent.text());
    let caseResultId: string | undefined;
    for (let attempt = 0; caseResultId === undefined; attempt += 1) {
      if (attempt >= 600) assert.fail(`the trace was not stored within 60 s\n${serve!.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
      caseResultId = ((await (await read("/api/traces")).json()) as { traces: { caseResultId: string; traceId: string }[] }).traces.find((trace) => trace.traceId === TRACE_ID)?.caseResultId;
    }

    const answer = await read(`/traces/${caseResultId}`);
    assert.equal(answer.status, 200);
    const page = await answer.text();
    // Without the bound: 97 MB (2,000 rows × 2,000 places and scores).
    assert.ok(Buffer.byteLength(page) < 16 * MEBIBYTE, `the page is ${Math.round(Buffer.byteLength(page) / MEBIBYTE)} MiB`);
    const rows = page.match(/<tr class="rerank-chunk"[^]*?<\/tr>/g) ?? [];
    assert.equal(rows.length, LISTED, "one row per entry of the retriever's list");
    const repeated = rows.find((row) => row.includes('data-chunk-id="repeated"'))!;
    const places = /<td class="rerank-rank">([^<]*)/.exec(repeated)![1]!;
    assert.equal(places, `${Array.from({ length: MAXIMUM_RANKS_SHOWN }, (_, index) => index + 1).join(", ")} `);
    assert.match(repeated, new RegExp(`<span class="muted more-ranks">and ${LISTED - MAXIMUM_RANKS_SHOWN} more</span>`));

    assert.ok(!page.includes("<script>alert(1)"), "markup from a span reaches the page unescaped");
    assert.ok(!page.includes("<img src=x"), "markup from a span reaches the page unescaped");
    assert.ok(page.includes("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert.doesNotMatch(page, /NaN|Infinity/, "a score that is no finite number is shown as a number");
    recordAttack({ attack: `UI trace page: retriever and rerank each list one chunk id ${LISTED} times, markup in ids, NaN/±Infinity scores`, outcome: `${Math.round(Buffer.byteLength(page) / MEBIBYTE)} MiB page (was 97 MB, 20 s), all escaped` });
  });
});
