/**
 * The trace list's "next" cursor over HTTP, as a user pages it: `ragscope serve` as a child process on a data folder
 * written through the store's own sink, `/api/traces?limit=1` followed by its `next` (after=), and the `/traces`
 * page's "Older traces →" link followed to "End of the list".
 *
 * The rows (expected values written from them, not from the reader): a Case Result sent again in the same millisecond
 * from a renamed service, and a result rebuilt without a tenant from a partial trace of the second request (its trace,
 * start and service): three rows of one Case Result id and start, each a row of the list. Before, the cursor was the
 * last row's start and id: a page that ended on one of them went on after all three, and two were never listed. And a
 * request whose tenant and service are 128 non-ASCII letters each (the longest the collector keeps): its cursor is
 * longer than the 500 characters every other list parameter may be, and must still be taken back.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { startServeWithUi, type ServeWithUi } from "../../support/serve-with-ui.js";
import { uiPageText } from "../../support/ui-page-text.js";
import { plannedCaseResult, writeToFolder, type PlannedRequest } from "../../support/stored-requests.js";

const START_MS = Date.parse("2026-07-08T09:50:00.000Z");
const SENT_AGAIN = `cr_${"a".repeat(30)}02`;
const LONG_TENANT = "ü".repeat(128);
const LONG_SERVICE = "ß".repeat(128);
const trace = (last: string) => `${"c".repeat(30)}${last}`;

const REQUESTS: PlannedRequest[] = [
  { caseResultId: `cr_${"a".repeat(30)}01`, traceId: trace("01"), startedAtMs: START_MS + 60_000, service: "support-bot", tenant: "t1" },
  { caseResultId: SENT_AGAIN, traceId: trace("02"), startedAtMs: START_MS, service: "support-bot", tenant: "t1" },
  { caseResultId: SENT_AGAIN, traceId: trace("03"), startedAtMs: START_MS, service: "support-bot-v2", tenant: "t1" },
  { caseResultId: SENT_AGAIN, traceId: trace("03"), startedAtMs: START_MS, service: "support-bot-v2", tenant: null },
  { caseResultId: `cr_${"a".repeat(30)}03`, traceId: trace("04"), startedAtMs: START_MS - 60_000, service: LONG_SERVICE, tenant: LONG_TENANT },
  { caseResultId: `cr_${"a".repeat(30)}04`, traceId: trace("05"), startedAtMs: START_MS - 120_000, service: "support-bot", tenant: "t1" },
];

/** The list as written: newest first; at the same start the id, then the trace id, tenant and service, each descending. */
const EXPECTED = [0, 2, 3, 1, 4, 5].map((index) => {
  const request = REQUESTS[index]!;
  return [request.caseResultId, request.traceId, request.tenant ?? "", request.service!];
});

interface ListedRow {
  caseResultId: string;
  traceId: string;
  tenantId: string;
  serviceName: string;
}

describe("the trace list's next cursor over HTTP", () => {
  let folder: string;
  let serve: ServeWithUi | null = null;

  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-trace-cursor-"));
    await writeToFolder(
      path.join(folder, "chdb"),
      REQUESTS.map((request) => ({ caseResult: plannedCaseResult(request), evaluationResults: [] })),
    );
    serve = await startServeWithUi(path.join(folder, "chdb"), {});
  });

  after(async () => {
    await serve?.stop();
    await rm(folder, { recursive: true, force: true });
  });

  const get = (address: string) => uiPageText(serve!, address);

  test("/api/traces one row a page, following next: every row once, in the list's order", async () => {
    const pages: string[][][] = [];
    const cursors: string[] = [];
    let address: string | null = "/api/traces?limit=1";
    while (address !== null && pages.length < 20) {
      const page = JSON.parse(await get(address)) as { traces: ListedRow[]; next: string | null };
      pages.push(page.traces.map((row) => [row.caseResultId, row.traceId, row.tenantId, row.serviceName]));
      if (page.next !== null) cursors.push(page.next);
      address = page.next === null ? null : `/api/traces?limit=1&after=${encodeURIComponent(page.next)}`;
    }
    const sorted = (rows: string[][]) => rows.map((row) => JSON.stringify(row)).sort();
    assert.deepEqual(sorted(pages.flat()), sorted(EXPECTED), "the pages together hold every row, each once");
    assert.deepEqual(pages, EXPECTED.map((row) => [row]), "one row a page, in the list's order");
    assert.ok(cursors.some((cursor) => cursor.length > 500), "the long tenant's and service's cursor is longer than 500 characters, and was taken back");
  });

  test("the /traces page's Older traces link, followed to the end of the list, shows every row once", async () => {
    const rows: string[][] = [];
    let address: string | null = "/traces?limit=1";
    let pages = 0;
    while (address !== null && pages < 20) {
      const page = await get(address);
      pages += 1;
      // Each row: its id, then its start, trace link, service and tenant cells; an empty cell holds a muted "—".
      for (const [, caseResultId, traceId, service, tenant] of page.matchAll(/<tr data-case-result-id="([^"]+)">\s*<td>.*?<\/td>\s*<td><a href="[^"]+">([^<]+)<\/a><\/td>\s*<td>(.*?)<\/td><td>(.*?)<\/td>/g)) {
        rows.push([caseResultId!, traceId!, tenant!.replace(/<[^>]+>/g, ""), service!.replace(/<[^>]+>/g, "")]);
      }
      const older = /<a id="older" href="([^"]+)">/.exec(page)?.[1];
      address = older === undefined ? null : older.replaceAll("&amp;", "&");
      if (older === undefined) assert.match(page, /End of the list\./);
    }
    // A row without a tenant shows "—" in its cell.
    assert.deepEqual(
      rows,
      EXPECTED.map(([caseResultId, traceId, tenant, service]) => [caseResultId, traceId, tenant === "" ? "—" : tenant, service]),
    );
    assert.equal(pages, EXPECTED.length);
  });

  test("a next link given out before the cursor named the row's trace, tenant and service still pages: the rows older than its start and id", async () => {
    const bookmarked = Buffer.from(JSON.stringify([START_MS, SENT_AGAIN])).toString("base64url");
    const page = JSON.parse(await get(`/api/traces?limit=10&after=${bookmarked}`)) as { traces: ListedRow[]; next: string | null };
    assert.deepEqual(
      page.traces.map((row) => [row.caseResultId, row.traceId, row.tenantId, row.serviceName]),
      EXPECTED.slice(4),
    );
    assert.equal(page.next, null);
  });

  test("an after= that is no cursor is refused with the reason", async () => {
    for (const after of [Buffer.from(JSON.stringify([START_MS, SENT_AGAIN, trace("03")])).toString("base64url"), "x".repeat(5_000)]) {
      const answer = await fetch(`${serve!.uiUrl}/api/traces?after=${after}`);
      assert.equal(answer.status, 400);
      assert.match(((await answer.json()) as { error: string }).error, /after.*(not a cursor this server gave out|longer than)/);
    }
  });
});
