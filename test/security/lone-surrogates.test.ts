/**
 * Acknowledged, then lost: a JSON string with a lone UTF-16 surrogate
 * (`"\ud800"`) was answered 200, re-encoded for the bus as bytes no UTF-8
 * decoder accepts, and dead-lettered in memory — the trace never stored. The
 * SDK made such strings itself when it cut a text at maxTextLength inside a
 * surrogate pair. Now: the SDK never splits a code point, and the receiver
 * repairs lone surrogates (U+FFFD) before it acknowledges.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { caseResult as caseResultSchema } from "../../contracts/case-result.js";
import type { EmbeddedCollector } from "../../collector/wiring/run/embedded-collector.js";
import { startCollectorForTests, type CollectorForTests } from "../support/embedded-collector-for-tests.js";
import { setupRagscope, traceRequest } from "../../instrumentation/index.js";
import { queryRows } from "../support/temporary-store.js";
import { recordAttack, residentMemoryMb } from "../support/attack-report.js";

describe("lone surrogates", () => {
  let running: CollectorForTests;
  let collector: EmbeddedCollector;
  before(async () => {
    running = await startCollectorForTests({});
    collector = running.collector;
  });
  after(async () => running.stop());

  async function storedQueries(): Promise<Map<string, string | null>> {
    assert.ok(await collector.waitUntilIdle(20_000), "the collector did not become idle");
    const rows = await queryRows<{ trace_id: string; payload: string }>(collector.store.connection, "SELECT trace_id, payload FROM {{database}}.case_results FINAL");
    return new Map(rows.map((row) => [row.trace_id, caseResultSchema.parse(JSON.parse(row.payload)).rag_observation.query]));
  }

  test("an OTLP/JSON request with lone surrogates in a value and a key is acknowledged and stored, each replaced by U+FFFD", async () => {
    const traceId = "5b8efff798038103d269b633813fc60c";
    // Written by hand: JSON.stringify would escape the surrogates the same way, but the wire text is the point.
    const body = String.raw`{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"surrogates"}}]},"scopeSpans":[{"spans":[{"traceId":"${traceId}","spanId":"eee19b7ec3c1b174","name":"rag.request","kind":1,"startTimeUnixNano":"1700000000000000000","endTimeUnixNano":"1700000000100000000","attributes":[{"key":"openinference.span.kind","value":{"stringValue":"CHAIN"}},{"key":"input.value","value":{"stringValue":"before\ud800after"}},{"key":"note\udfff","value":{"stringValue":"x"}}]}]}]}]}`;
    const response = await fetch(`${collector.receiverUrl}/v1/traces`, { method: "POST", headers: { "content-type": "application/json" }, body });
    assert.equal(response.status, 200, await response.text());
    const queries = await storedQueries();
    assert.equal(queries.get(traceId), "before\uFFFDafter");
    assert.equal(collector.deadLetters.counters.received, 0, "nothing acknowledged was dead-lettered");
    recordAttack({ attack: "OTLP/JSON with lone surrogates in a value and a key", outcome: "200, stored with U+FFFD, nothing dead-lettered", peakRssMb: residentMemoryMb() });
  });

  test("the SDK cuts a text at maxTextLength without splitting a surrogate pair, and the trace is stored", async () => {
    const ragscope = setupRagscope({ endpoint: collector.receiverUrl, protocol: "http/json", maxTextLength: 3, serviceName: "surrogate-sdk", flushOnExit: false });
    let traceId = "";
    try {
      await traceRequest({ query: "ab\u{1F600}cd" }, async () => {
        const { trace, context } = await import("@opentelemetry/api");
        traceId = trace.getSpan(context.active())!.spanContext().traceId;
        return "done";
      });
    } finally {
      await ragscope.shutdown();
    }
    assert.equal(ragscope.statistics().exported, 1);
    const queries = await storedQueries();
    // 3 code units would end inside the emoji's pair: the cut keeps "ab".
    assert.equal(queries.get(traceId), "ab");
    assert.equal(collector.deadLetters.counters.received, 0);
    recordAttack({ attack: "SDK text cut at maxTextLength inside a surrogate pair", outcome: "cut before the pair; exported and stored", peakRssMb: residentMemoryMb() });
  });
});
