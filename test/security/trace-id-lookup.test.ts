/**
 * Users come to ragscope with an OpenTelemetry trace id from their application's logs or APM. Before, the trace
 * page and its API were keyed by Case Result id only: `/traces/<trace id>` answered "no trace with case result id
 * … is stored", and the list's free-text filter `q=` searched the answers for the id (finding nothing).
 *
 * As a user meets it: `ragscope serve` runs as a child process with an ingest and a UI token per tenant and an
 * operator token of every tenant (test/support/two-tenant-requests.ts). acme sends one request, globex another, and
 * both send a request under the same trace id (each tenant's request is its own Case Result: contracts/ids.ts).
 *
 * Expected, from what was sent: acme's reader opening `/traces/<acme's trace id>` (in capitals, as some APMs show
 * it) is sent (303) to that request's page, `/traces/<its case result id>?trace=<trace id>`; `/api/traces/<trace
 * id>` answers the request's detail, its canonical address in Content-Location; `/api/traces?q=<trace id>` lists
 * that request alone, and `q=<case result id>` too. globex's trace id is 404 to acme's reader on every one of these
 * (the same answer as a trace id nobody sent), and lists nothing; the shared trace id opens acme's own request. The
 * operator opens globex's request by its trace id, and the shared one lists both requests (page: to the list; API:
 * 300 naming each). Each check could fail: the operator's answers hold what acme's reader must not see.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { recordAttack } from "../support/attack-report.js";
import { oneRequestOtlp } from "../support/one-request-otlp.js";
import { startTwoTenantRequests, type TwoTenantRequests } from "../support/two-tenant-requests.js";

const INGEST_ACME = "ingest-token-of-acme-trace-id-6a1f";
const INGEST_GLOBEX = "ingest-token-of-globex-trace-id-0c9d";
const ALICE = "ui-token-of-alice-at-acme-trace-id-3e58";
const BOB = "ui-token-of-bob-at-globex-trace-id-94b2";
const OPERATOR = "ui-token-of-the-operator-trace-id-d7c0";

const ACME_TRACE = "ace0000000000000000000000000abcd";
const GLOBEX_TRACE = "9e0b000000000000000000000000beef";
/** Sent by both tenants. */
const SHARED_TRACE = "5a4ed00000000000000000000000f00d";
/** Sent by nobody. */
const UNKNOWN_TRACE = "0123456789abcdef0123456789abcdef";
const GLOBEX_SECRET = "GLOBEX-SECRET-ANSWER";

interface Listed {
  caseResultId: string;
  traceId: string;
  tenantId: string;
  output: string | null;
}

function otlp(traceId: string, service: string, answer: string): string {
  return oneRequestOtlp({
    traceId,
    serviceName: service,
    spans: [{ name: "rag.request", attributes: { "openinference.span.kind": "CHAIN", "ragscope.stage": "request", "ragscope.query": "what is the refund window?", "ragscope.answer": answer } }],
  });
}

describe("a trace id opens its stored request, under the reader's tenants", () => {
  let started: TwoTenantRequests | null = null;

  const read = (token: string, address: string) => started!.read(token, address);
  const listed = async (token: string, query: string) => {
    const answer = await read(token, `/api/traces?${query}`);
    assert.equal(answer.status, 200, query);
    return ((await answer.json()) as { traces: Listed[] }).traces;
  };
  const requestOf = (tenant: string, traceId: string) => started!.requestOf(tenant, traceId);

  before(async () => {
    started = await startTwoTenantRequests("trace-id-lookup", { ingestAcme: INGEST_ACME, ingestGlobex: INGEST_GLOBEX, alice: ALICE, bob: BOB, operator: OPERATOR }, [
      { ingestToken: INGEST_ACME, body: otlp(ACME_TRACE, "acme-bot", "Acme: refunds within 14 days.") },
      { ingestToken: INGEST_ACME, body: otlp(SHARED_TRACE, "acme-bot", "Acme: the shared trace's answer.") },
      { ingestToken: INGEST_GLOBEX, body: otlp(GLOBEX_TRACE, "globex-bot", `${GLOBEX_SECRET} one`) },
      { ingestToken: INGEST_GLOBEX, body: otlp(SHARED_TRACE, "globex-bot", `${GLOBEX_SECRET} two`) },
    ]);
  });

  after(async () => {
    await started?.stop();
  });

  test("the tenant's own trace id opens its request: the page by a redirect, the API with the detail, the list's q= by the id", async () => {
    const acme = requestOf("acme", ACME_TRACE);
    const canonical = `/traces/${acme.caseResultId}?trace=${ACME_TRACE}`;
    for (const id of [ACME_TRACE, ACME_TRACE.toUpperCase()]) {
      const page = await read(ALICE, `/traces/${id}`);
      assert.equal(page.status, 303, id);
      assert.equal(page.headers.get("location"), canonical, id);
      const api = await read(ALICE, `/api/traces/${id}`);
      assert.equal(api.status, 200, id);
      assert.equal(api.headers.get("content-location"), `/api${canonical}`);
      const detail = (await api.json()) as { caseResult: { case_result_id: string; trace_id: string; output: string } };
      assert.deepEqual([detail.caseResult.case_result_id, detail.caseResult.trace_id, detail.caseResult.output], [acme.caseResultId, ACME_TRACE, "Acme: refunds within 14 days."]);
    }
    const opened = await read(ALICE, canonical);
    assert.equal(opened.status, 200);
    assert.ok((await opened.text()).includes("Acme: refunds within 14 days."), "the redirect's address opens the request's page");

    assert.deepEqual((await listed(ALICE, `q=${ACME_TRACE.toUpperCase()}`)).map((trace) => trace.caseResultId), [acme.caseResultId], "q= a trace id");
    assert.deepEqual((await listed(ALICE, `q=${acme.caseResultId}`)).map((trace) => trace.traceId), [ACME_TRACE], "q= a case result id");
    assert.deepEqual((await listed(ALICE, "q=14%20days")).map((trace) => trace.caseResultId), [acme.caseResultId], "other text is still searched for in the answers");
    // The shared trace id: acme's own request, the only one its reader sees.
    assert.equal((await read(ALICE, `/traces/${SHARED_TRACE}`)).headers.get("location"), `/traces/${requestOf("acme", SHARED_TRACE).caseResultId}?trace=${SHARED_TRACE}`);
    assert.equal(((await (await read(ALICE, `/api/traces/${SHARED_TRACE}`)).json()) as { caseResult: { output: string } }).caseResult.output, "Acme: the shared trace's answer.");
  });

  test("another tenant's trace id is 404 to a tenant's reader, as one nobody sent, and its list is empty", async () => {
    const globex = requestOf("globex", GLOBEX_TRACE);
    const answers: string[] = [];
    for (const traceId of [GLOBEX_TRACE, UNKNOWN_TRACE]) {
      const page = await read(ALICE, `/traces/${traceId}`);
      assert.equal(page.status, 404, traceId);
      const pageText = await page.text();
      assert.ok(pageText.includes(`no request with trace id &quot;${traceId}&quot; is stored where this token can read it`), pageText);
      const api = await read(ALICE, `/api/traces/${traceId}`);
      assert.equal(api.status, 404, traceId);
      const { error } = (await api.json()) as { error: string };
      assert.match(error, new RegExp(`^no request with trace id "${traceId}" is stored where this token can read it`));
      answers.push(error.replace(traceId, "<trace id>"));
      assert.deepEqual(await listed(ALICE, `q=${traceId}`), [], traceId);
      for (const body of [pageText, error]) assert.ok(!body.includes(GLOBEX_SECRET) && !body.includes(globex.caseResultId), "nothing of globex's request");
    }
    assert.equal(answers[0], answers[1], "another tenant's trace id is answered as one nobody sent");
    assert.deepEqual(await listed(ALICE, `q=${globex.caseResultId}`), [], "nor by its case result id");
    const shared = await listed(ALICE, `q=${SHARED_TRACE}`);
    assert.deepEqual(shared.map((trace) => trace.tenantId), ["acme"], "the shared trace id lists acme's request only");
    recordAttack({ attack: "a tenant reader opens another tenant's trace by its trace id (/traces/<trace id>, /api/traces/<trace id>, /api/traces?q=<trace id>)", outcome: "404 as for a trace id nobody sent; empty lists" });

    // The checks above could fail: globex's own reader and the operator open it.
    assert.equal((await read(BOB, `/traces/${GLOBEX_TRACE}`)).headers.get("location"), `/traces/${globex.caseResultId}?trace=${GLOBEX_TRACE}`);
    assert.equal((await read(OPERATOR, `/traces/${GLOBEX_TRACE}`)).headers.get("location"), `/traces/${globex.caseResultId}?trace=${GLOBEX_TRACE}`);
    assert.equal(((await (await read(OPERATOR, `/api/traces/${GLOBEX_TRACE}`)).json()) as { caseResult: { output: string } }).caseResult.output, `${GLOBEX_SECRET} one`);
  });

  test("a trace id several tenants sent lists each request to a reader of both: the page the list, the API 300", async () => {
    const both = [requestOf("acme", SHARED_TRACE), requestOf("globex", SHARED_TRACE)];
    const page = await read(OPERATOR, `/traces/${SHARED_TRACE}`);
    assert.equal(page.status, 303);
    assert.equal(page.headers.get("location"), `/traces?q=${SHARED_TRACE}`);
    assert.deepEqual((await listed(OPERATOR, `q=${SHARED_TRACE}`)).map((trace) => trace.caseResultId).sort(), both.map((trace) => trace.caseResultId).sort());
    const api = await read(OPERATOR, `/api/traces/${SHARED_TRACE}`);
    assert.equal(api.status, 300);
    const answer = (await api.json()) as { error: string; requests: { caseResultId: string; tenantId: string; href: string }[] };
    assert.match(answer.error, /^2 stored requests have trace id/);
    assert.deepEqual(
      answer.requests.map((request) => [request.tenantId, request.caseResultId, request.href]).sort(),
      both.map((request) => [request.tenantId, request.caseResultId, `/api/traces/${request.caseResultId}?trace=${SHARED_TRACE}`]).sort(),
    );
  });
});
