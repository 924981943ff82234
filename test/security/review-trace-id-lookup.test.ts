/**
 * A reviewer comes to the review page with an OpenTelemetry trace id from their application's logs or APM, as to
 * the trace page (trace-id-lookup.test.ts). Before, `/review/:id` took a Case Result id only: `/review/<trace id>`
 * answered "no trace with case result id … is stored"; and the review page ignored `?trace=`, so a case sent again
 * was always shown (and its form checked) as its newest request, whichever request the reviewer came from.
 *
 * As a user meets it: `ragscope serve` runs as a child process with an ingest and a UI token per tenant and an
 * operator token of every tenant (test/support/two-tenant-requests.ts). acme sends run "nightly"'s case "refund_days"
 * before midnight UTC from service acme-bot, then again after midnight from acme-bot-v2 (a new request: its own trace
 * id and answer; the same Case Result id); globex sends a request of its own; both send one under a shared trace id.
 *
 * Expected, from what was sent: acme's reader opening `/review/<first attempt's trace id>` (also in capitals) is sent
 * (303) to `/review/<case result id>?trace=<that trace id>`, which shows the first attempt's answer, not the retry's,
 * links its trace by the same request and posts its form to that address (a save comes back to it); the retry's
 * trace id opens the retry's review. globex's trace id is 404 to acme's reader, as a trace id nobody sent; the
 * shared one opens acme's own request. globex's reader and the operator open globex's request by its trace id, and
 * the operator's shared trace id goes to the list of both requests (`/traces?q=<trace id>`), as /traces does.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { recordAttack } from "../support/attack-report.js";
import { oneRequestOtlp } from "../support/one-request-otlp.js";
import { startTwoTenantRequests, type TwoTenantRequests } from "../support/two-tenant-requests.js";

const INGEST_ACME = "ingest-token-of-acme-review-trace-41c2";
const INGEST_GLOBEX = "ingest-token-of-globex-review-trace-8d07";
const ALICE = "ui-token-of-alice-at-acme-review-trace-b3e9";
const BOB = "ui-token-of-bob-at-globex-review-trace-5f61";
const OPERATOR = "ui-token-of-the-operator-review-trace-20aa";

const DAY_MS = 86_400_000;
/** The latest midnight UTC at least a day ago: both sides of it are in the past, whatever the time of day now. */
const midnight = Math.floor(Date.now() / DAY_MS) * DAY_MS - DAY_MS;

const FIRST_ATTEMPT = { traceId: "a11ce00000000000000000000000f157", service: "acme-bot", startMs: midnight - 60_000, answer: "Acme first attempt: refunds within 30 days." };
const RETRY = { traceId: "a11ce00000000000000000000000e7a1", service: "acme-bot-v2", startMs: midnight + 60_000, answer: "Acme retry: refunds within 14 days." };
const GLOBEX_TRACE = "9e0b0000000000000000000000001b0b";
/** Sent by both tenants. */
const SHARED_TRACE = "5a4ed0000000000000000000000b0717";
/** Sent by nobody. */
const UNKNOWN_TRACE = "fedcba9876543210fedcba9876543210";
const GLOBEX_SECRET = "GLOBEX-SECRET-REVIEW-ANSWER";

function otlp(traceId: string, service: string, answer: string, options: { startMs?: number; runId?: string; caseId?: string } = {}): string {
  const linkage: Record<string, string> = options.runId === undefined ? {} : { "ragscope.run_id": options.runId, "ragscope.case_id": options.caseId!, "ragscope.case_version": "1" };
  return oneRequestOtlp({
    traceId,
    serviceName: service,
    ...(options.startMs === undefined ? {} : { startMs: options.startMs }),
    spans: [
      { name: "rag.request", attributes: { "openinference.span.kind": "CHAIN", "ragscope.stage": "request", ...linkage, "ragscope.query": "what is the refund window?", "ragscope.answer": answer } },
      // A context the answer does not draw on: the overlap heuristic routes the request to review (the queue lists it).
      { name: "rag.context", attributes: { "ragscope.stage": "context", "ragscope.context.text": "Museum opening hours are nine to five on weekdays." } },
    ],
  });
}

/** The page's `<a id=…>` or `<form id=…>` address, as a browser follows it. */
function addressOf(page: string, id: string): string | null {
  const found = new RegExp(`<(?:a|form)\\b[^>]*\\b(?:href|action)="([^"]+)"[^>]*\\bid="${id}"`).exec(page);
  return found === null ? null : found[1]!.replaceAll("&amp;", "&");
}

describe("a trace id opens its request's review, under the reader's tenants", () => {
  let started: TwoTenantRequests | null = null;

  const read = (token: string, address: string) => started!.read(token, address);
  const requestOf = (tenant: string, traceId: string) => started!.requestOf(tenant, traceId);

  before(async () => {
    started = await startTwoTenantRequests("review-trace-id", { ingestAcme: INGEST_ACME, ingestGlobex: INGEST_GLOBEX, alice: ALICE, bob: BOB, operator: OPERATOR }, [
      ...[FIRST_ATTEMPT, RETRY].map((attempt) => ({ ingestToken: INGEST_ACME, body: otlp(attempt.traceId, attempt.service, attempt.answer, { startMs: attempt.startMs, runId: "nightly", caseId: "refund_days" }) })),
      { ingestToken: INGEST_ACME, body: otlp(SHARED_TRACE, "acme-bot", "Acme: the shared trace's answer.") },
      { ingestToken: INGEST_GLOBEX, body: otlp(GLOBEX_TRACE, "globex-bot", `${GLOBEX_SECRET} one`) },
      { ingestToken: INGEST_GLOBEX, body: otlp(SHARED_TRACE, "globex-bot", `${GLOBEX_SECRET} two`) },
    ]);
  });

  after(async () => {
    await started?.stop();
  });

  test("each request's trace id opens the review of that request of the case sent again", async () => {
    const first = requestOf("acme", FIRST_ATTEMPT.traceId);
    const retry = requestOf("acme", RETRY.traceId);
    assert.equal(first.caseResultId, retry.caseResultId, "the case sent again keeps its Case Result id");
    for (const [sent, other] of [
      [FIRST_ATTEMPT, RETRY],
      [RETRY, FIRST_ATTEMPT],
    ] as const) {
      const canonical = `/review/${first.caseResultId}?trace=${sent.traceId}`;
      for (const id of [sent.traceId, sent.traceId.toUpperCase()]) {
        const redirected = await read(ALICE, `/review/${id}`);
        assert.equal(redirected.status, 303, id);
        assert.equal(redirected.headers.get("location"), canonical, id);
      }
      const opened = await read(ALICE, canonical);
      assert.equal(opened.status, 200);
      const page = await opened.text();
      assert.ok(page.includes(sent.answer), `the review of ${sent.traceId} shows its answer`);
      assert.ok(!page.includes(other.answer), `the review of ${sent.traceId} does not show the other request's answer`);
      assert.equal(addressOf(page, "open-trace"), `/traces/${first.caseResultId}?trace=${sent.traceId}`, "its trace link names the same request");
      assert.equal(addressOf(page, "review-form"), canonical, "its form posts for the same request");
    }
    // The trace pages' review links and the review queue's rows (a row per request) name each request.
    for (const sent of [FIRST_ATTEMPT, RETRY]) {
      const tracePage = await (await read(ALICE, `/traces/${first.caseResultId}?trace=${sent.traceId}`)).text();
      assert.equal(addressOf(tracePage, "label-case"), `/review/${first.caseResultId}?trace=${sent.traceId}`, "the trace page's review link");
    }
    const queue = await (await read(ALICE, "/review")).text();
    const queued = [...queue.matchAll(/<a href="(\/review\/cr_[^"]+)">/g)].map((found) => found[1]!.replaceAll("&amp;", "&")).sort();
    assert.deepEqual(queued, [`/review/${first.caseResultId}?trace=${RETRY.traceId}`, `/review/${first.caseResultId}?trace=${FIRST_ATTEMPT.traceId}`, `/review/${requestOf("acme", SHARED_TRACE).caseResultId}?trace=${SHARED_TRACE}`].sort(), queue);
    // The form's address saves the review (labels are the case's) and comes back to the request's review.
    const saved = await fetch(`${started!.serve.uiUrl}/review/${first.caseResultId}?trace=${FIRST_ATTEMPT.traceId}`, {
      method: "POST",
      redirect: "manual",
      headers: { authorization: `Bearer ${ALICE}`, "content-type": "application/x-www-form-urlencoded" },
      body: "root_cause=RETRIEVAL_MISS&comment=first+attempt",
    });
    assert.equal(saved.status, 303, await saved.text());
    assert.equal(saved.headers.get("location"), `/review/${first.caseResultId}?trace=${FIRST_ATTEMPT.traceId}`);
    // A request the case does not have is not reviewed as another one.
    const missing = await read(ALICE, `/review/${first.caseResultId}?trace=${UNKNOWN_TRACE}`);
    assert.equal(missing.status, 404);
    assert.ok((await missing.text()).includes(`open /review/${first.caseResultId} for its newest request`));
    // The shared trace id: acme's own request, the only one its reader sees.
    assert.equal((await read(ALICE, `/review/${SHARED_TRACE}`)).headers.get("location"), `/review/${requestOf("acme", SHARED_TRACE).caseResultId}?trace=${SHARED_TRACE}`);
  });

  test("another tenant's trace id is 404 to a tenant's reader, as one nobody sent", async () => {
    const globex = requestOf("globex", GLOBEX_TRACE);
    const answers: string[] = [];
    for (const traceId of [GLOBEX_TRACE, UNKNOWN_TRACE]) {
      const page = await read(ALICE, `/review/${traceId}`);
      assert.equal(page.status, 404, traceId);
      const text = await page.text();
      assert.ok(text.includes(`no request with trace id &quot;${traceId}&quot; is stored where this token can read it`), text);
      assert.ok(!text.includes(GLOBEX_SECRET) && !text.includes(globex.caseResultId), "nothing of globex's request");
      answers.push(text.replaceAll(traceId, "<trace id>"));
    }
    assert.equal(answers[0], answers[1], "another tenant's trace id is answered as one nobody sent");
    recordAttack({ attack: "a tenant reader opens the review of another tenant's request by its trace id (/review/<trace id>)", outcome: "404 as for a trace id nobody sent" });

    // The check above could fail: globex's own reader and the operator open it.
    const globexReview = `/review/${globex.caseResultId}?trace=${GLOBEX_TRACE}`;
    assert.equal((await read(BOB, `/review/${GLOBEX_TRACE}`)).headers.get("location"), globexReview);
    assert.equal((await read(OPERATOR, `/review/${GLOBEX_TRACE}`)).headers.get("location"), globexReview);
    assert.ok((await (await read(BOB, globexReview)).text()).includes(`${GLOBEX_SECRET} one`));
  });

  test("a trace id several tenants sent goes to the list of each request for a reader of both", async () => {
    const page = await read(OPERATOR, `/review/${SHARED_TRACE}`);
    assert.equal(page.status, 303);
    assert.equal(page.headers.get("location"), `/traces?q=${SHARED_TRACE}`);
  });
});
