/**
 * A run that recorded no lineage is on the runs list. An application tagged
 * with a run id through the SDK (spans with `ragscope.run_id`), like a remote
 * `ragscope eval --endpoint` whose token reads only some tenants, leaves Case Results with that run id and no row
 * of lineage; /runs and /api/runs listed only runs with lineage, so a user
 * looking for such a run did not find it, though /runs/compare and
 * /api/runs/:id/summary answered for it.
 *
 * Outside in, as a deployment runs: the embedded collector (chDB) takes the
 * tagged spans over OTLP from two tenants, evaluates and stores them; the UI
 * server on 127.0.0.1 over that store is read over HTTP. The runs appear
 * once the collector's rollup refresh has run (clickhouse.rollupRefreshMs,
 * 200 ms here): the test waits for that as a user would, without calling
 * into the store.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { tokenDigestHex } from "../../../collector/01-receive/bearer-authorization.js";
import { loadSettings } from "../../../collector/wiring/config/load-settings.js";
import { startEmbeddedCollector, type EmbeddedCollector } from "../../../collector/wiring/run/embedded-collector.js";
import { parseUiTenantTokens } from "../../../ui/access/ui-access.js";
import { startUiServer, type UiServer } from "../../../ui/ui-server.js";

const INGEST_ACME = "ingest-token-of-acme-runs-3f1a";
const INGEST_GLOBEX = "ingest-token-of-globex-runs-77b2";
const OPERATOR = "ui-token-of-the-operator-runs-1c9d";
const ALICE = "ui-token-of-alice-at-acme-runs-5e08";

interface Sent {
  trace: string;
  run: string;
  /** The request span's start, seconds since the epoch. */
  startSeconds: number;
}

// 2023-11-14T22:13:20Z and after. sdk-run starts with its earliest request, sent last.
const SENT_BY_ACME: Sent[] = [
  { trace: "a1000000000000000000000000000001", run: "sdk-run", startSeconds: 1_700_000_100 },
  { trace: "a1000000000000000000000000000002", run: "sdk-run", startSeconds: 1_700_000_010 },
];
const SENT_BY_GLOBEX: Sent[] = [
  { trace: "b1000000000000000000000000000001", run: "sdk-run", startSeconds: 1_700_000_200 },
  { trace: "b1000000000000000000000000000002", run: "globex-sdk-run", startSeconds: 1_700_000_300 },
];

function otlp(sent: Sent): string {
  const text = (value: string) => ({ stringValue: value });
  const attributes = [
    { key: "openinference.span.kind", value: text("CHAIN") },
    { key: "ragscope.stage", value: text("request") },
    { key: "ragscope.run_id", value: text(sent.run) },
    { key: "ragscope.query", value: text("what is the refund window?") },
    { key: "ragscope.answer", value: text("Refunds within 14 days.") },
  ];
  const start = BigInt(sent.startSeconds) * 1_000_000_000n;
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [{ key: "service.name", value: text("shop-bot") }] },
        scopeSpans: [{ spans: [{ traceId: sent.trace, spanId: `${sent.trace.slice(0, 15)}1`, name: "rag.request", kind: 1, startTimeUnixNano: String(start), endTimeUnixNano: String(start + 100_000_000n), attributes }] }],
      },
    ],
  });
}

interface ListedRun {
  runId: string;
  startedAt: string;
  cases: number;
  lineage: { run_id: string; dataset_id: string | null; prompt_version: string | null } | null;
}

describe("a run without recorded lineage is listed on /runs and /api/runs", () => {
  let folder: string;
  let collector: EmbeddedCollector | null = null;
  let ui: UiServer | null = null;

  const get = (token: string, address: string) => fetch(`${ui!.url}${address}`, { headers: { authorization: `Bearer ${token}` } });
  const listed = async (token: string) => {
    const answer = await get(token, "/api/runs");
    assert.equal(answer.status, 200);
    return ((await answer.json()) as { runs: ListedRun[] }).runs;
  };

  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-runs-without-lineage-"));
    const settings = loadSettings({
      environment: { RAGSCOPE_TENANT_TOKENS: `acme=${tokenDigestHex(INGEST_ACME)},globex=${tokenDigestHex(INGEST_GLOBEX)}` },
      fixed: { "receiver.port": 0, "assembler.quietPeriodMs": 100, "clickhouse.dataPath": path.join(folder, "data"), "clickhouse.rollupRefreshMs": 200 },
    });
    assert.ok(settings.ok, settings.ok ? "" : settings.error.join("\n"));
    collector = await startEmbeddedCollector(settings.value);
    for (const [token, traces] of [[INGEST_ACME, SENT_BY_ACME], [INGEST_GLOBEX, SENT_BY_GLOBEX]] as const) {
      for (const sent of traces) {
        const answer = await fetch(`${collector.receiverUrl}/v1/traces`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${token}` }, body: otlp(sent) });
        assert.equal(answer.status, 200, await answer.text());
      }
    }
    // A run `ragscope eval` recorded, older than the tagged ones, with no case stored (yet).
    await collector.store.runs.record({ run_id: "eval-run", started_at: "2023-11-14T22:00:00.000Z", dataset_id: "refunds", prompt_version: "prompt-7" });
    assert.ok(await collector.waitUntilIdle(30_000));
    const tenantTokens = parseUiTenantTokens(`alice:acme=${tokenDigestHex(ALICE)}`);
    assert.ok(tenantTokens.ok);
    ui = await startUiServer({ host: "127.0.0.1", port: 0, store: collector.store, access: { tokens: new Map([[OPERATOR, "operator"]]), tenantTokens: tenantTokens.value } });
    // The stored requests are listed once the collector's rollup refresh has counted them (within 200 ms of the writes).
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline && (await listed(OPERATOR)).length < 3) await new Promise((resolve) => setTimeout(resolve, 100));
  });

  after(async () => {
    await ui?.close();
    await collector?.close();
    await rm(folder, { recursive: true, force: true });
  });

  test("/api/runs lists the tagged runs with their start and cases and no lineage, with the recorded run", async () => {
    assert.deepEqual(await listed(OPERATOR), [
      { runId: "globex-sdk-run", startedAt: "2023-11-14T22:18:20.000Z", cases: 1, lineage: null },
      { runId: "sdk-run", startedAt: "2023-11-14T22:13:30.000Z", cases: 3, lineage: null },
      {
        runId: "eval-run",
        startedAt: "2023-11-14T22:00:00.000Z",
        cases: 0,
        lineage: {
          run_id: "eval-run",
          dataset_id: "refunds",
          dataset_version: null,
          corpus_version: null,
          index_version: null,
          embedding_model: null,
          retriever_version: null,
          reranker_version: null,
          prompt_version: "prompt-7",
          generator_model: null,
          application_version: null,
          started_at: "2023-11-14T22:00:00.000Z",
          notes: null,
          completion: null,
        },
      },
    ] as unknown as ListedRun[]);
    // What the list offers answers: the run's summary counts the same cases.
    assert.equal(((await (await get(OPERATOR, "/api/runs/sdk-run/summary")).json()) as { cases: number }).cases, 3);
  });

  test("/runs shows the run, its start and cases, and — for every lineage field; the comparison offers it", async () => {
    const answer = await get(OPERATOR, "/runs");
    assert.equal(answer.status, 200);
    const page = await answer.text();
    const row = /<tr data-run-id="sdk-run" data-lineage="none">([\s\S]*?)<\/tr>/.exec(page)?.[1];
    assert.ok(row !== undefined, "sdk-run has a row");
    const cells = [...row.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((match) => match[1]!);
    assert.match(cells[0]!, /<a href="\/traces\?run=sdk-run">sdk-run<\/a>/);
    assert.deepEqual(cells.slice(1, 3), ['<time datetime="2023-11-14T22:13:30.000Z">2023-11-14 22:13:30.000</time>', "3"]);
    assert.ok(cells.length > 3);
    for (const cell of cells.slice(3)) assert.equal(cell, '<span class="muted">—</span>', "a lineage field the run did not record");
    assert.match(page, /<tr data-run-id="eval-run" data-lineage="recorded">[\s\S]*?<td>refunds<\/td>/);
    assert.match(page, /<select name="candidate"><option>globex-sdk-run<\/option><option>sdk-run<\/option><option>eval-run<\/option><\/select>/);
  });

  test("comparing with a run that stored no result names that run alone, not the run that has results", async () => {
    for (const [address, json] of [
      ["/api/runs/compare?candidate=sdk-run&baseline=eval-run", true],
      ["/runs/compare?candidate=eval-run&baseline=sdk-run", false],
    ] as const) {
      const answer = await get(OPERATOR, address);
      assert.equal(answer.status, 404, address);
      const error = json ? ((await answer.json()) as { error: string }).error : await answer.text();
      assert.match(error, /no stored results for run (&quot;|")eval-run(&quot;|"): /, address);
      assert.doesNotMatch(error, /run (&quot;|")sdk-run/, address);
    }
    const neither = ((await (await get(OPERATOR, "/api/runs/compare?candidate=no-such-run&baseline=eval-run")).json()) as { error: string }).error;
    assert.match(neither, /^no stored results for run "no-such-run" nor for run "eval-run": /);
  });

  test("a board's range with seconds is read as whole minutes, rounded outward: the form sends back the range the page shows", async () => {
    const board = async (from: string, to: string) => {
      const answer = await get(OPERATOR, `/quality?from=${from}&to=${to}`);
      assert.equal(answer.status, 200, `${from} – ${to}`);
      const page = await answer.text();
      const input = (name: string) => new RegExp(`<input name="${name}" value="([^"]*)">`).exec(page)?.[1];
      return { from: input("from")!, to: input("to")!, caption: /<p class="muted" id="bucket">([^<]*)<\/p>/.exec(page)?.[1], data: await (await get(OPERATOR, `/api/quality?from=${from}&to=${to}`)).json() };
    };
    const withSeconds = await board("2023-11-14T22:13:25Z", "2023-11-14T22:18:25Z");
    assert.deepEqual([withSeconds.from, withSeconds.to], ["2023-11-14T22:13", "2023-11-14T22:19"]);
    assert.equal(withSeconds.caption, "2023-11-14T22:13 – 2023-11-14T22:19 UTC, one point per minute.");
    const resubmitted = await board(withSeconds.from, withSeconds.to);
    assert.deepEqual(resubmitted, withSeconds, "pressing Show gives the same page and the same numbers");
    // Within one minute: before, the page showed 22:13 – 22:13 and its form's range was refused as empty.
    const short = await board("2023-11-14T22:13:25Z", "2023-11-14T22:13:40Z");
    assert.deepEqual([short.from, short.to], ["2023-11-14T22:13", "2023-11-14T22:14"]);
    assert.equal((await get(OPERATOR, `/quality?from=${short.from}&to=${short.to}`)).status, 200);
  });

  test("a board's refused query is shown above its form, holding the values as given", async () => {
    for (const board of ["/quality", "/failures"]) {
      const answer = await get(OPERATOR, `${board}?from=2023-11-14T22:13&to=yesterday-ish&service=shop-bot`);
      assert.equal(answer.status, 400, board);
      const page = await answer.text();
      assert.match(page, /<p class="error" id="error">[^<]*to[^<]*<\/p>/, board);
      assert.match(page, new RegExp(`<form class="filters" method="get" action="${board}">`), board);
      assert.match(page, /<input name="to" value="yesterday-ish">/, `${board}: the value to correct is in the form`);
      assert.match(page, /<input name="service" value="shop-bot">/, board);
    }
  });

  test("the traces list refuses an inverted range as the boards do, and says no \"End of the list.\" under the error", async () => {
    const listed = await get(OPERATOR, "/traces?from=2030-01-01&to=2020-01-01");
    assert.equal(listed.status, 400);
    const page = await listed.text();
    assert.match(page, /<p class="error" id="error">the time range is empty: from must be before to<\/p>/);
    assert.doesNotMatch(page, /End of the list\./);
    assert.equal((await get(OPERATOR, "/api/traces?from=2030-01-01&to=2020-01-01")).status, 400);
  });

  test("a reader of one tenant sees its tagged runs only, counted over its own cases", async () => {
    assert.deepEqual(
      (await listed(ALICE)).map((run) => [run.runId, run.startedAt, run.cases, run.lineage]),
      [["sdk-run", "2023-11-14T22:13:30.000Z", 2, null]],
    );
    assert.doesNotMatch(await (await get(ALICE, "/runs")).text(), /globex-sdk-run/);
  });
});
