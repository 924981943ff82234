/**
 * The simulated online experiment of test/data/experiments/simulated-stream.json
 * (drawn by simulated-stream.py with known true rates, and statsmodels' and
 * SciPy's statistics on the drawn data), sent the way an application sends
 * it: each user assigned by the SDK's assignVariant, each request traced with
 * its experiment and variant, likes given during the request, copies and
 * handoffs recorded later as late user events. The embedded collector
 * receives it all over OTLP/HTTP and stores it in a data folder, which the
 * tests then read through `ragscope experiment report` and the web UI.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { trace } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { loadSettings } from "../../collector/wiring/config/load-settings.js";
import { startEmbeddedCollector } from "../../collector/wiring/run/embedded-collector.js";
import { assignVariant, recordUserEvent, traceGenerate, traceRequest } from "../../instrumentation/index.js";
import { postTraces, startSpanRecorder, toOtlpProtobuf } from "./recorded-spans.js";

export interface StreamRequest {
  user: string;
  variant: string;
  like: number;
  handoff: number;
  copy: number;
}

export interface ExpectedComparison {
  difference: number;
  lower: number;
  upper: number;
  p_value: number;
}

export interface SimulatedStream {
  experiment: string;
  requests: StreamRequest[];
  expected: Record<string, ExpectedComparison>;
  units?: number[];
  chi_square?: number;
  srm_p_value?: number;
}

export const simulatedStreams = JSON.parse(readFileSync(fileURLToPath(new URL("../data/experiments/simulated-stream.json", import.meta.url)), "utf8")) as {
  true_rates: Record<string, Record<string, number>>;
  clustered: SimulatedStream;
  srm: SimulatedStream;
};

const variants = [
  { name: "control", weight: 1 },
  { name: "treatment", weight: 1 },
];
const SPANS_PER_POST = 3000;

async function post(receiverUrl: string, spans: readonly ReadableSpan[]): Promise<void> {
  for (let start = 0; start < spans.length; start += SPANS_PER_POST) assert.equal(await postTraces(receiverUrl, toOtlpProtobuf(spans.slice(start, start + SPANS_PER_POST))), 200);
}

/** Traces both streams (clustered and SRM) through the SDK and stores them, late events included, in `dataDir` (the embedded engine). */
export async function storeSimulatedStreams(dataDir: string): Promise<void> {
  const recorder = startSpanRecorder();
  try {
    const late: { traceId: string; session: string; kind: "copy" | "handoff" }[] = [];
    for (const stream of [simulatedStreams.clustered, simulatedStreams.srm]) {
      for (const [index, request] of stream.requests.entries()) {
        const assigned = assignVariant({ experimentId: stream.experiment, unitId: request.user, variants });
        assert.ok(assigned.ok);
        assert.equal(assigned.value, request.variant, `the SDK assigns ${request.user} as the reference does`);
        const session = `session-${request.user}`;
        await traceRequest({ query: `question ${index} of ${request.user}`, sessionId: session, userId: request.user, experimentId: stream.experiment, experimentVariant: assigned.value }, async () => {
          const answer = await traceGenerate({ model: `model-${assigned.value}` }, () => ({ text: `answer ${index}` }));
          if (request.like === 1) recordUserEvent({ kind: "thumbs_up", sessionId: session });
          const traceId = trace.getActiveSpan()!.spanContext().traceId;
          if (request.copy === 1) late.push({ traceId, session, kind: "copy" });
          if (request.handoff === 1) late.push({ traceId, session, kind: "handoff" });
          return answer.text;
        });
      }
    }
    const requestSpans = recorder.spans();
    recorder.reset();
    for (const event of late) assert.ok(recordUserEvent({ kind: event.kind, traceId: event.traceId, sessionId: event.session }).ok);
    const eventSpans = recorder.spans();

    const settings = loadSettings({ environment: {}, fixed: { "receiver.port": 0, "assembler.quietPeriodMs": 100, "clickhouse.dataPath": dataDir } });
    assert.ok(settings.ok, settings.ok ? "" : settings.error.join("\n"));
    const collector = await startEmbeddedCollector(settings.value);
    try {
      await post(collector.receiverUrl, requestSpans);
      assert.ok(await collector.waitUntilIdle(120_000), "the requests were evaluated and stored");
      // The copies and handoffs come after their requests were stored and forgotten: late events.
      await post(collector.receiverUrl, eventSpans);
      // A trace of events alone has no root; flush releases it now instead of at its deadline.
      await collector.flush();
      assert.ok(await collector.waitUntilIdle(120_000));
    } finally {
      await collector.close();
    }
  } finally {
    await recorder.shutdown();
  }
}
