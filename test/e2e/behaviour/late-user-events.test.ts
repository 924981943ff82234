/**
 * Late user events, end to end: SDK spans → OTLP/HTTP → the embedded
 * collector → chDB, read back from the store.
 *
 * A request is traced (with a thumbs-up given while the trace was still open)
 * and stored by one collector, which is then stopped: the trace is forgotten.
 * Days later (the events carry their own time) a second collector on the same
 * store receives a copy, a citation click and a rating for that request. They
 * must land on the stored Case Result — not on a second, partial one — and a
 * replay of the same export must change nothing. An event for a request the
 * store never saw is still kept (as a partial result), never dropped.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { loadSettings } from "../../../collector/wiring/config/load-settings.js";
import { startEmbeddedCollector, type EmbeddedCollector } from "../../../collector/wiring/run/embedded-collector.js";
import { caseResult as caseResultSchema, type CaseResult } from "../../../contracts/case-result.js";
import { currentRequest, recordUserEvent, traceGenerate, traceRequest } from "../../../instrumentation/index.js";
import { postTraces, startSpanRecorder, toOtlpJson, toOtlpProtobuf, type SpanRecorder } from "../../support/recorded-spans.js";
import { queryRows } from "../../support/temporary-store.js";

/**
 * The request happens now and its late events are stamped days after it, so the collectors' receivers allow span
 * times a week ahead of their clock (RAGSCOPE_MAX_FUTURE_SPAN_SECONDS; by default a span more than an hour ahead is
 * rejected as a broken clock).
 */
const A_WEEK_AHEAD_SECONDS = 7 * 86_400;

async function startCollector(dataPath: string): Promise<EmbeddedCollector> {
  const settings = loadSettings({ environment: {}, fixed: { "receiver.port": 0, "receiver.maxFutureSpanSeconds": A_WEEK_AHEAD_SECONDS, "assembler.quietPeriodMs": 100, "clickhouse.dataPath": dataPath } });
  assert.ok(settings.ok, settings.ok ? "" : settings.error.join("\n"));
  return startEmbeddedCollector(settings.value);
}

/**
 * A trace of feedback spans alone has no root: the assembler would hold it
 * until its deadline (assembler.maxTraceWaitMs); `flush` releases it now.
 */
async function storedResults(collector: EmbeddedCollector): Promise<CaseResult[]> {
  await collector.flush();
  assert.ok(await collector.waitUntilIdle(10_000), "collector did not become idle");
  const rows = await queryRows<{ payload: string }>(collector.store.connection, "SELECT payload FROM {{database}}.case_results FINAL ORDER BY trace_id, partial_trace");
  return rows.map((row) => caseResultSchema.parse(JSON.parse(row.payload)));
}

describe("late user events merge into the stored Case Result", () => {
  let dataPath: string;
  let recorder: SpanRecorder;
  let requestTraceId = "";

  before(async () => {
    dataPath = await mkdtemp(path.join(os.tmpdir(), "ragscope-late-events-"));
    recorder = startSpanRecorder();
  });
  after(async () => {
    await recorder.shutdown();
    await rm(dataPath, { recursive: true, force: true });
  });

  test("days later, through a new collector; a replay counts once; an unknown trace's event is kept", async () => {
    // What the application keeps beside the answer it shows, for the user's later events.
    const kept: { request: ReturnType<typeof currentRequest> } = { request: null };
    assert.equal(currentRequest(), null, "outside a traced request there is no request to refer to");
    await traceRequest({ query: "how do refunds work?", sessionId: "session-1", userId: "user-1", experimentId: "prompt-v2", experimentVariant: "treatment" }, async () => {
      const answer = await traceGenerate({ model: "m" }, () => ({ text: "Refunds go back to the card within 5 days." }));
      recordUserEvent({ kind: "thumbs_up", sessionId: "session-1" });
      kept.request = currentRequest();
      return answer.text;
    });
    const requestSpans = recorder.spans();
    const root = requestSpans.find((span) => span.name === "rag.request")!;
    assert.deepEqual(kept.request, { traceId: root.spanContext().traceId, spanId: root.spanContext().spanId });
    requestTraceId = kept.request!.traceId;
    const first = await startCollector(dataPath);
    try {
      assert.equal(await postTraces(first.receiverUrl, toOtlpProtobuf(requestSpans)), 200);
      const stored = await storedResults(first);
      assert.equal(stored.length, 1);
      assert.deepEqual(stored[0]!.rag_observation.feedback.map((entry) => entry.kind), ["thumbs_up"]);
      assert.equal(stored[0]!.rag_observation.session_id, "session-1");
      assert.equal(stored[0]!.rag_observation.experiment_variant, "treatment");
    } finally {
      await first.close();
    }

    recorder.reset();
    const requestStartMs = requestSpans[0]!.startTime[0] * 1000;
    const daysLater = new Date(Math.floor(requestStartMs) + 3 * 86_400_000);
    assert.ok(recordUserEvent({ kind: "copy", traceId: requestTraceId, sessionId: "session-1", occurredAt: daysLater }).ok);
    assert.ok(recordUserEvent({ kind: "citation_click", traceId: requestTraceId, sessionId: "session-1", chunkId: "refund_chunk_3", occurredAt: new Date(daysLater.getTime() + 1000) }).ok);
    assert.ok(recordUserEvent({ kind: "rating", traceId: requestTraceId, sessionId: "session-1", value: 4, occurredAt: new Date(daysLater.getTime() + 2000) }).ok);
    const unknownTraceId = "0af7651916cd43dd8448eb211c80319c";
    assert.ok(recordUserEvent({ kind: "handoff", traceId: unknownTraceId, occurredAt: daysLater }).ok);
    const lateSpans = recorder.spans();
    assert.equal(lateSpans.length, 4);

    const second = await startCollector(dataPath);
    try {
      assert.equal(await postTraces(second.receiverUrl, toOtlpProtobuf(lateSpans)), 200);
      const merged = await storedResults(second);
      // The replay: the same export again, once as JSON.
      assert.equal(await postTraces(second.receiverUrl, toOtlpJson(lateSpans), "application/json"), 200);
      const replayed = await storedResults(second);

      for (const results of [merged, replayed]) {
        assert.equal(results.length, 2, "the request's result and the unknown trace's partial one");
        const request = results.find((result) => result.trace_id === requestTraceId)!;
        assert.equal(request.rag_observation.partial_trace, false, "the complete result stays the one stored");
        assert.equal(request.output, "Refunds go back to the card within 5 days.");
        assert.deepEqual(
          request.rag_observation.feedback.map((entry) => [entry.kind, entry.value, entry.chunk_id]),
          [
            ["thumbs_up", null, null],
            ["copy", null, null],
            ["citation_click", null, "refund_chunk_3"],
            ["rating", "4", null],
          ],
        );
        assert.equal(request.rag_observation.feedback[1]!.recorded_at, daysLater.toISOString());
        const orphan = results.find((result) => result.trace_id === unknownTraceId)!;
        assert.equal(orphan.rag_observation.partial_trace, true);
        assert.deepEqual(orphan.rag_observation.feedback.map((entry) => entry.kind), ["handoff"]);
      }
      // A browser's event, as instrumentation/README.md "From a browser" documents it: one hand-written OTLP/JSON span.
      const browserEvent = {
        resourceSpans: [
          {
            resource: { attributes: [{ key: "service.name", value: { stringValue: "policy-assistant" } }] },
            scopeSpans: [
              {
                scope: { name: "ragscope-browser" },
                spans: [
                  {
                    traceId: requestTraceId,
                    spanId: "a3f1c2d4e5f60718",
                    name: "rag.feedback",
                    kind: 1,
                    startTimeUnixNano: String(BigInt(daysLater.getTime() + 5000) * 1_000_000n),
                    endTimeUnixNano: String(BigInt(daysLater.getTime() + 5000) * 1_000_000n),
                    attributes: [
                      { key: "ragscope.stage", value: { stringValue: "feedback" } },
                      { key: "ragscope.feedback.kind", value: { stringValue: "resolved" } },
                      { key: "session.id", value: { stringValue: "session-1" } },
                    ],
                  },
                ],
              },
            ],
          },
        ],
      };
      const body = new TextEncoder().encode(JSON.stringify(browserEvent));
      assert.equal(await postTraces(second.receiverUrl, body, "application/json"), 200);
      assert.equal(await postTraces(second.receiverUrl, body, "application/json"), 200, "sent twice: counted once");
      const withBrowserEvent = (await storedResults(second)).find((result) => result.trace_id === requestTraceId)!;
      assert.deepEqual(withBrowserEvent.rag_observation.feedback.map((entry) => entry.kind), ["thumbs_up", "copy", "citation_click", "rating", "resolved"]);
      // No row of the request's trace other than the merged one (no partial copy).
      const rows = await queryRows<{ partial_trace: number }>(second.store.connection, "SELECT partial_trace FROM {{database}}.case_results FINAL WHERE trace_id = {traceId:String}", { traceId: requestTraceId });
      assert.deepEqual(rows, [{ partial_trace: 0 }]);
    } finally {
      await second.close();
    }
  });
});
