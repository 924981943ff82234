/**
 * A case sent from two services on the same day is two requests, each with a row in the trace list and its own
 * trace detail — and each keeps its own raw spans. Before, the raw spans were stored one row per Case Result id, so the
 * second request's spans replaced the first's, and the first request's detail said no raw spans were stored.
 *
 * As a user meets it: `ragscope serve` as a child process, the two requests posted to its OTLP receiver, each
 * request's detail read from the read API (/api/traces/<trace id>), then, with serve stopped and started again on
 * the same folder, read again: the store kept both.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { oneRequestOtlp } from "../../support/one-request-otlp.js";
import { startServeWithUi, type ServeWithUi } from "../../support/serve-with-ui.js";

const SENT = [
  { traceId: "f2000000000000000000000000000001", service: "support-bot", answer: "Refunds take 30 days." },
  { traceId: "f2000000000000000000000000000002", service: "support-bot-canary", answer: "Refunds take 14 days." },
] as const;
/** A minute after the start of the day two hours ago: both requests (one minute apart) in the past and on one day. */
const startMs = Math.floor((Date.now() - 7_200_000) / 86_400_000) * 86_400_000 + 60_000;

interface Detail {
  caseResult: { trace_id: string; rag_observation: { service_name: string } };
  rawSpans: { spans: { trace_id: string; name: string }[] } | null;
}

let folder: string;
let serve: ServeWithUi | null = null;

async function detailsOf(running: ServeWithUi): Promise<Map<string, Detail>> {
  const details = new Map<string, Detail>();
  for (const sent of SENT) details.set(sent.traceId, (await (await fetch(`${running.uiUrl}/api/traces/${sent.traceId}`)).json()) as Detail);
  return details;
}

function assertOwnSpans(details: Map<string, Detail>): void {
  for (const sent of SENT) {
    const detail = details.get(sent.traceId)!;
    assert.equal(detail.caseResult.rag_observation.service_name, sent.service);
    assert.ok(detail.rawSpans !== null, `request ${sent.traceId} (${sent.service}) keeps its raw spans`);
    assert.deepEqual([...new Set(detail.rawSpans.spans.map((span) => span.trace_id))], [sent.traceId], "its own spans, not the other request's");
  }
}

before(async () => {
  folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-raw-spans-per-request-"));
});
after(async () => {
  await serve?.stop();
  await rm(folder, { recursive: true, force: true });
});

test("the same case from two services on one day: each request's detail shows its own raw spans, before and after a restart", async () => {
  const dataDir = path.join(folder, "data");
  serve = await startServeWithUi(dataDir, { RAGSCOPE_QUIET_PERIOD_MS: "200" });
  for (const [index, sent] of SENT.entries()) {
    const body = oneRequestOtlp({
      traceId: sent.traceId,
      serviceName: sent.service,
      startMs: startMs + index * 60_000,
      durationMs: 200,
      spans: [{ name: "rag.request", attributes: { "openinference.span.kind": "CHAIN", "ragscope.stage": "request", "ragscope.run_id": "canary-check", "ragscope.case_id": "refund_days", "ragscope.case_version": "1", "ragscope.query": "what is the refund window?", "ragscope.answer": sent.answer } }],
    });
    const answer = await fetch(`${serve.receiverUrl}/v1/traces`, { method: "POST", headers: { "content-type": "application/json" }, body });
    assert.equal(answer.status, 200, await answer.text());
    // One after the other, each stored before the next is sent: the second request is the one that replaced the first.
    for (let attempt = 0; ; attempt += 1) {
      if ((await fetch(`${serve.uiUrl}/api/traces/${sent.traceId}`)).status === 200) break;
      if (attempt >= 600) assert.fail(`request ${sent.traceId} was not stored within 60 s\n${serve.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  assertOwnSpans(await detailsOf(serve));
  await serve.stop();

  serve = await startServeWithUi(dataDir, {});
  assertOwnSpans(await detailsOf(serve));
  await serve.stop();
  serve = null;
});
