/**
 * Sends `serve` (a collector subprocess) one answered request per rating, each with one rating feedback event of that
 * value (OTLP/JSON over HTTP), waits until every request is written and stops it: what the rating tests read back with
 * `ragscope report` and from the store. `traceIdOf` numbers the requests' traces.
 */
import assert from "node:assert/strict";
import { readSample } from "../../collector/wiring/observe/metrics-registry.js";
import type { CollectorSubprocess } from "./collector-subprocess.js";
import { oneRequestOtlp } from "./one-request-otlp.js";
import { postTraces } from "./recorded-spans.js";

export async function sendRatedRequests(collector: CollectorSubprocess, ratings: readonly string[], traceIdOf: (index: number) => string): Promise<void> {
  for (const [index, rating] of ratings.entries()) {
    const body = oneRequestOtlp({
      traceId: traceIdOf(index),
      serviceName: "support-bot",
      spans: [
        { name: "rag.request", attributes: { "openinference.span.kind": "CHAIN", "ragscope.stage": "request", "ragscope.query": "How fast is a refund?", "ragscope.answer": "Within 7 days." } },
        { name: "rag.feedback", attributes: { "ragscope.stage": "feedback", "ragscope.feedback.kind": "rating", "ragscope.feedback.value": rating } },
      ],
    });
    assert.equal(await postTraces(collector.receiverUrl, new TextEncoder().encode(body), "application/json"), 200);
  }
  const written = async () => readSample(await collector.metrics(), "ragscope_traces_written_total") ?? 0;
  for (let attempt = 0; attempt < 300 && (await written()) < ratings.length; attempt += 1) await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(await written(), ratings.length, collector.output());
  assert.equal(await collector.stop(), 0, collector.output());
}
