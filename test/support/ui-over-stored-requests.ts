/**
 * The web UI `ragscope serve` starts, over the embedded collector's store holding requests sent through its OTLP
 * receiver at chosen start times, with the UI's clock fixed — for suites whose answers depend on where the stored
 * requests lie in time (board ranges, time parameters). Each request is one root span of a question and an answer.
 */
import assert from "node:assert/strict";
import { startUiServer, type UiServer } from "../../ui/ui-server.js";
import { startCollectorForTests, type CollectorForTests } from "./embedded-collector-for-tests.js";

/** A request's trace id and its root span's start, in OTLP nanoseconds as text. */
export type SentRequest = [trace: string, startNanos: string];

function requestOtlp(trace: string, startNanos: string, serviceName: string): string {
  const text = (value: string) => ({ stringValue: value });
  const attributes = [
    { key: "openinference.span.kind", value: text("CHAIN") },
    { key: "ragscope.stage", value: text("request") },
    { key: "ragscope.query", value: text("what is the refund window?") },
    { key: "ragscope.answer", value: text("Refunds within 14 days.") },
  ];
  const endNanos = (BigInt(startNanos) + 100n).toString();
  return JSON.stringify({
    resourceSpans: [{ resource: { attributes: [{ key: "service.name", value: text(serviceName) }] }, scopeSpans: [{ spans: [{ traceId: trace, spanId: `${trace.slice(0, 15)}1`, name: "rag.request", kind: 1, startTimeUnixNano: startNanos, endTimeUnixNano: endNanos, attributes }] }] }],
  });
}

/** An embedded collector (its settings `fixed` as startCollectorForTests takes them) once every sent request is stored. */
export async function collectorWithRequests(sent: readonly SentRequest[], serviceName: string, fixed: Record<string, unknown> = {}): Promise<CollectorForTests> {
  const collector = await startCollectorForTests({ fixed });
  try {
    for (const [trace, startNanos] of sent) {
      const answer = await fetch(`${collector.collector.receiverUrl}/v1/traces`, { method: "POST", headers: { "content-type": "application/json" }, body: requestOtlp(trace, startNanos, serviceName) });
      assert.equal(answer.status, 200, await answer.text());
    }
    assert.ok(await collector.collector.waitUntilIdle(30_000));
    assert.equal((await collector.collector.store.reader.storedSpan())?.requests, sent.length);
    return collector;
  } catch (error) {
    // The caller never gets it to stop: not left running behind a failed setup.
    await collector.stop();
    throw error;
  }
}

/** The UI server over the collector's store for the one reviewer `token` names, its clock at `nowMs`. */
export function uiAt(collector: CollectorForTests, token: string, nowMs: number): Promise<UiServer> {
  return startUiServer({ host: "127.0.0.1", port: 0, store: collector.collector.store, access: { tokens: new Map([[token, "reviewer"]]) }, now: () => nowMs });
}

/** GET `address` of the UI as the reviewer `token` names: the status and the body as text. */
export async function getAs(server: UiServer, token: string, address: string): Promise<{ status: number; body: string }> {
  const answer = await fetch(`${server.url}${address}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: answer.status, body: await answer.text() };
}
