/**
 * "Not judged" beside task success counts requests, not results rebuilt from
 * late user events alone: SDK spans → OTLP/HTTP → the embedded collector →
 * chDB in a data folder, then `ragscope report` (bin/ragscope.js as a
 * subprocess, the RAG quality board's SQL on the engine) and its HTML page
 * read back in Debian's Chromium.
 *
 * The store of a walkthrough: one request traced by the SDK (an answer,
 * nothing able to judge it: no judge, no Eval Case), and a thumbs-down an
 * application sent later for a request the store never saw (its trace id
 * only). The collector keeps that event — accepted data is never dropped —
 * as a partial Case Result of its own (store/late-feedback/: no complete
 * result of its trace to merge into). It is no request: nobody asked
 * anything, nothing could have been judged.
 * Worked by hand: task success is over the requests with a verdict, none
 * here, so it is no data; the requests left out are the one traced request,
 * so "0 judged; 1 not judged" — not 2. The layers' means count the same
 * requests: Complete requests 1. The dislike and handoff rates are over the
 * traced request, which carries no user event: no data (1 request; 0 with a
 * thumbs), not 0.0 % — the thumbs-down is of no request.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium, type Browser } from "playwright-core";
import { loadSettings } from "../../collector/wiring/config/load-settings.js";
import { startEmbeddedCollector } from "../../collector/wiring/run/embedded-collector.js";
import { recordUserEvent, traceGenerate, traceRequest } from "../../instrumentation/index.js";
import { postTraces, startSpanRecorder, toOtlpProtobuf, type SpanRecorder } from "../support/recorded-spans.js";
import { queryRows } from "../support/temporary-store.js";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const ragscope = path.join(projectRoot, "bin/ragscope.js");
const chromiumPath = process.env.RAGSCOPE_CHROMIUM ?? "/usr/bin/chromium";
const CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const BUSINESS = "Business: rates over the range";
const UNKNOWN_TRACE = "0af7651916cd43dd8448eb211c80319c";

let folder: string;
let browser: Browser;
let recorder: SpanRecorder;

before(async () => {
  assert.ok(existsSync(chromiumPath), `Chromium is needed at ${chromiumPath} (Debian package chromium)`);
  folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-late-events-not-judged-"));
  browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: CHROMIUM_FLAGS });
  recorder = startSpanRecorder();
});

after(async () => {
  await recorder?.shutdown();
  await browser?.close();
  await rm(folder, { recursive: true, force: true });
});

function printed(stdout: string, title: string): string {
  const line = stdout.split("\n").find((text) => text.startsWith(`  ${title}: `));
  assert.ok(line, `no line "${title}" in:\n${stdout}`);
  return line.slice(`  ${title}: `.length);
}

describe("a result rebuilt from late user events alone is not a request left unjudged", () => {
  test("one traced request and a later thumbs-down for an unknown request: 0 judged; 1 not judged", async () => {
    await traceRequest({ query: "how do refunds work?" }, async () => {
      const answer = await traceGenerate({ model: "m" }, () => ({ text: "Refunds go back to the card within 5 days." }));
      return answer.text;
    });
    assert.ok(recordUserEvent({ kind: "thumbs_down", traceId: UNKNOWN_TRACE }).ok);
    const spans = recorder.spans();

    const dataDir = path.join(folder, "store");
    const settings = loadSettings({ environment: {}, fixed: { "receiver.port": 0, "assembler.quietPeriodMs": 100, "clickhouse.dataPath": dataDir } });
    assert.ok(settings.ok, settings.ok ? "" : settings.error.join("\n"));
    const collector = await startEmbeddedCollector(settings.value);
    try {
      assert.equal(await postTraces(collector.receiverUrl, toOtlpProtobuf(spans)), 200);
      // The event's trace has no root: the assembler would hold it until its deadline; `flush` releases it now.
      await collector.flush();
      assert.ok(await collector.waitUntilIdle(10_000), "collector did not become idle");
      // What the store holds: the request, complete and judged by nothing, and the event's partial result.
      const rows = await queryRows<{ trace_id: string; partial_trace: number; quality_status: string }>(
        collector.store.connection,
        "SELECT trace_id, partial_trace, quality_status FROM {{database}}.case_results FINAL ORDER BY partial_trace",
      );
      assert.equal(rows.length, 2, JSON.stringify(rows));
      assert.equal(rows[0]!.partial_trace, 0);
      assert.ok(["unjudged", "not_evaluated"].includes(rows[0]!.quality_status), JSON.stringify(rows));
      assert.deepEqual([rows[1]!.trace_id, rows[1]!.partial_trace], [UNKNOWN_TRACE, 1]);
    } finally {
      await collector.close();
    }

    const out = path.join(folder, "report.html");
    const child = spawnSync(process.execPath, [ragscope, "report", "--data-dir", dataDir, "--out", out], { cwd: projectRoot, encoding: "utf8", env: { ...process.env, RAGSCOPE_CONFIG: "", RAGSCOPE_CLICKHOUSE_URL: "" } });
    assert.equal(child.status, 0, child.stdout + child.stderr);
    assert.match(printed(child.stdout, BUSINESS), /^Task success no data \(0 judged; 1 not judged\) · /);
    // The thumbs-down is of no request: no request of the range carries a user event, so the dislike and handoff
    // rates are no data (not 0.0 % of 1 request), over the one request, in the singular.
    assert.match(printed(child.stdout, BUSINESS), / · Dislike rate no data \(1 request; 0 with a thumbs\) · Handoff rate no data · /);
    assert.match(printed(child.stdout, "Generation: means over the range"), /· Complete requests 1$/);

    const page = await browser.newPage();
    await page.goto(pathToFileURL(out).href, { waitUntil: "load" });
    const tilesOf = async (title: string): Promise<string[]> => {
      const figure = page.locator("figure.panel", { has: page.locator(`figcaption:text-is("${title}")`) });
      return (await figure.locator("div.stat").allInnerTexts()).map((text) => text.replace(/\s+/g, " ").trim());
    };
    const business = await tilesOf(BUSINESS);
    // No judge: the answer's correctness has no value, and the mean says so beside the request it lacks.
    const generation = await tilesOf("Generation: means over the range");
    await page.close();
    assert.equal(business[0], "no data Task success 0 judged; 1 not judged");
    assert.ok(business.includes("no data Dislike rate 1 request; 0 with a thumbs"), JSON.stringify(business));
    assert.equal(generation[0], "no data Correctness 0 values");
    assert.equal(generation.at(-1), "1 Complete requests");
  });
});
