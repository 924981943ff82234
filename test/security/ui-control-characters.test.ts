/**
 * Control and bidirectional formatting characters a sender puts in span text, on the web UI's pages.
 *
 * As an attacker meets it: `ragscope serve` as a child process; one request sent to its OTLP receiver whose query,
 * answer, retrieved chunk and a plain attribute carry a right-to-left override (U+202E, which reverses what the
 * reviewer reads after it), an isolate (U+2066…U+2069), an ESC sequence, NUL, DEL and a C1 control (U+0085), beside
 * markup; the reviewer opens the trace page, the trace list and the review page. Found: every one of them was
 * written into the HTML as it was sent. Expected (ui/pages/markup.ts, core/control-characters.ts): each is shown by
 * its code, `\u202E`, marked, where text is read, and bare in a tooltip; markup stays escaped; tab and newline stay
 * as they are. (Identifiers — service, tenant, route, run — cannot carry them: they are refused at ingestion,
 * test/security/identifiers.test.ts.)
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { listedOnceStored, listsTraces } from "../support/listed-traces.js";
import { oneRequestOtlp } from "../support/one-request-otlp.js";
import { startServeWithUi, type ServeWithUi } from "../support/serve-with-ui.js";
import { uiPageText } from "../support/ui-page-text.js";

const TRACE_ID = "c0a7e1000000000000000000000000c1";
/** Reads "pay cod.exe" to a reviewer when the override is applied; the file the text names is "exe.doc". */
const DISGUISED = "pay \u202Ecod.exe\u202C <b>now</b>\tthen\nreally \u2066isolated\u2069 \u001b[2J\u001b]0;title\u0007 nul\u0000 del\u007f next\u0085line";
/** What must not reach a page as it was sent: every Cc character but tab, newline and carriage return, and every Bidi_Control one. */
const APPLIED = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;
const MARKED_OVERRIDE = /<span class=control-character>\\u202E<\/span>/;

function assertShownByCode(page: string, where: string): void {
  const applied = APPLIED.exec(page);
  assert.equal(applied, null, `${where}: U+${applied?.[0].codePointAt(0)?.toString(16).toUpperCase().padStart(4, "0")} reaches the page as sent, near ${JSON.stringify(applied === null ? "" : page.slice(Math.max(0, applied.index - 40), applied.index + 40))}`);
  assert.match(page, MARKED_OVERRIDE, `${where}: the override is not shown by its code`);
  assert.ok(!page.includes("<b>now</b>"), `${where}: markup from a span reaches the page unescaped`);
}

describe("control characters in span text on the web UI", () => {
  let folder: string;
  let serve: ServeWithUi | null = null;
  let caseResultId: string;

  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-control-characters-"));
    serve = await startServeWithUi(path.join(folder, "data"), { RAGSCOPE_QUIET_PERIOD_MS: "200", RAGSCOPE_UI_TOKENS: "", RAGSCOPE_UI_TENANT_TOKENS: "" });
    const body = oneRequestOtlp({
      traceId: TRACE_ID,
      serviceName: "support-bot",
      spans: [
        { name: "rag.request", attributes: { "ragscope.stage": "request", "ragscope.query": DISGUISED, "ragscope.answer": DISGUISED, "app.note": DISGUISED } },
        { name: "rag.retrieve", attributes: { "ragscope.stage": "retrieve", "retrieval.documents.0.document.id": "chunk-1", "retrieval.documents.0.document.content": DISGUISED } },
      ],
    });
    const sent = await fetch(`${serve.receiverUrl}/v1/traces`, { method: "POST", headers: { "content-type": "application/json" }, body });
    assert.equal(sent.status, 200, await sent.text());
    caseResultId = (await listedOnceStored(serve, listsTraces([TRACE_ID]))).find((trace) => trace.traceId === TRACE_ID)!.caseResultId;
  });

  after(async () => {
    await serve?.stop();
    await rm(folder, { recursive: true, force: true });
  });

  const pageAt = (address: string) => uiPageText(serve!, address);

  test("the trace page shows each by its code in the query, answer, chunk text and raw attributes; tab and newline stay", async () => {
    const page = await pageAt(`/traces/${caseResultId}?trace=${TRACE_ID}`);
    assertShownByCode(page, "trace page");
    const query = /<pre id="query">([^]*?)<\/pre>/.exec(page)?.[1] ?? "";
    assert.ok(query.startsWith("pay <span class=control-character>"), query);
    assert.ok(query.includes("&lt;b&gt;now&lt;/b&gt;\tthen\nreally "), `tab and newline are kept as sent: ${query}`);
    for (const code of ["\\u202C", "\\u2066", "\\u2069", "\\u001B", "\\u0007", "\\u0000", "\\u007F", "\\u0085"]) assert.ok(query.includes(`>${code}</span>`), `${code} is not shown: ${query}`);
    const chunkText = /<tr class="chunk"[^]*?<td class="text" title="([^"]*)">([^]*?)<\/td><\/tr>/.exec(page);
    assert.ok(chunkText !== null, "the retrieved chunk's row");
    // A tooltip holds no markup: the bare code.
    assert.ok(chunkText[1]!.startsWith("pay \\u202Ecod.exe\\u202C &lt;b&gt;"), chunkText[1]);
    assert.match(chunkText[2]!, MARKED_OVERRIDE);
    const note = /<tr class="attribute" data-key="app.note">[^]*?<\/tr>/.exec(page)?.[0] ?? "";
    assert.match(note, MARKED_OVERRIDE, "a raw span attribute");
  });

  test("the trace list and the review page show them by their code too", async () => {
    const list = await pageAt("/traces");
    assertShownByCode(list, "trace list");
    assert.ok(list.includes('title="pay \\u202Ecod.exe'), "the query's tooltip on the trace list");
    assertShownByCode(await pageAt(`/review/${caseResultId}?trace=${TRACE_ID}`), "review page");
  });

  test("a filter given with them keeps them in its box, so it matches, and shows them by their code beside it", async () => {
    // A link can carry the override into a filter box, where the browser applies it: the box reads "pay cod.exe".
    const list = await pageAt(`/traces?q=${encodeURIComponent("pay \u202Ecod.exe")}`);
    const box = /<label>text in query or answer, or a trace id<input name="q" value="([^"]*)"[^>]*>([^]*?)<\/label>/.exec(list);
    assert.ok(box !== null, "the text filter's box");
    assert.equal(box[1], "pay \u202Ecod.exe", "the box holds the filter as given, so the next Filter matches the same traces");
    assert.match(box[2]!, /<span class="muted filter-as-sent" data-filter="q">holds: pay <span class=control-character>\\u202E<\/span>cod\.exe<\/span>/);
    assert.ok(list.includes(TRACE_ID), "the filter still matches the trace that holds the text");
    const plain = await pageAt("/traces?q=pay");
    assert.ok(!plain.includes("filter-as-sent"), "a filter without such characters is not repeated");
    // An identifier filter cannot hold them: the collector never stores such a run id, so the filter is refused
    // (400) with the rule, rather than read as a run that measured nothing; the board's refused query shows its form
    // with the values as given, the same way.
    const answer = await fetch(`${serve!.uiUrl}/failures?run=${encodeURIComponent("run\u202E1")}`);
    const refused = await answer.text();
    assert.equal(answer.status, 400, refused);
    assert.match(refused, /<p class="error" id="error">run= holds characters outside letters, digits and _ - \. : \/ @ \+: the collector stores no such run/);
    assert.match(refused, /<input name="run" value="run\u202E1"/);
    assert.match(refused, /data-filter="run">holds: run<span class=control-character>\\u202E<\/span>1<\/span>/);
    const listAnswer = await fetch(`${serve!.uiUrl}/api/traces?service=${encodeURIComponent("support\u202Ebot")}`);
    assert.equal(listAnswer.status, 400);
    assert.match(await listAnswer.text(), /service= holds characters outside letters/);
  });
});
