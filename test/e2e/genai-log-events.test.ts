/**
 * A GenAI call's content sent as OpenTelemetry log records beside its spans, as a user of `ragscope serve` meets it:
 * traces to POST /v1/traces and logs to POST /v1/logs of a running serve (a subprocess of the built CLI), then the
 * Case Result it stored and its /metrics.
 *
 * - The GenAI conventions' own Python packages with content capture `event_only`, recorded
 *   (test/data/otel-genai-log-events/): the chat span carries no messages; its `gen_ai.client.inference.operation.details`
 *   log record holds `gen_ai.output.messages`. Sent as the recorded OTLP/JSON bodies, logs first (the Python SDK's
 *   batch log processor exports before its span processor by default), their times moved to a minute ago.
 * - The conventions' older event path, recorded from opentelemetry-instrumentation-openai-v2 2.3b0: a chat span with
 *   the model and tokens, and beside it a `gen_ai.<role>.message` record per input message and a `gen_ai.choice`
 *   record whose body is the choice (no `time_unix_nano`: the observed time is the record's time).
 * - The same `gen_ai.choice` record made and sent by the OpenTelemetry JS SDK's own OTLP/HTTP protobuf exporters:
 *   a `chat` span without messages, and the choice record emitted inside it; once more with the logs sent by the JS
 *   SDK's OTLP/gRPC exporter to serve's gRPC port (`LogsService/Export`), as Python apps export by default.
 * Worked from the scenario (its scripted answer), not from ragscope's output. Before: the answer was not available.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, test } from "node:test";
import { ROOT_CONTEXT, trace } from "@opentelemetry/api";
import { OTLPLogExporter as OtlpGrpcLogExporter } from "@opentelemetry/exporter-logs-otlp-grpc";
import { OTLPLogExporter } from "@opentelemetry/exporter-logs-otlp-proto";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { LoggerProvider, SimpleLogRecordProcessor } from "@opentelemetry/sdk-logs";
import { BasicTracerProvider, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import type { CaseResult } from "../../contracts/case-result.js";
import type { StoredRawSpan } from "../../contracts/raw-spans.js";
import { readSample } from "../../collector/wiring/observe/metrics-registry.js";
import { startCollectorSubprocess, type CollectorSubprocess } from "../support/collector-subprocess.js";
import { shifted, shiftToStartAt, type Json } from "../support/shift-recorded-times.js";
import { queryRows } from "../support/temporary-store.js";
import { fakeAnswer, question } from "../golden/scenarios/policy-corpus.js";

const recordings = path.join(path.dirname(fileURLToPath(import.meta.url)), "../data/otel-genai-log-events");

let collector: CollectorSubprocess;
before(async () => (collector = await startCollectorSubprocess({})));
after(async () => {
  await collector.stop();
  await collector.remove();
});

async function post(signal: "traces" | "logs", body: Json): Promise<number> {
  const response = await fetch(`${collector.receiverUrl}/v1/${signal}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  await response.arrayBuffer();
  return response.status;
}

async function untilWritten(count: number): Promise<void> {
  const written = async () => readSample(await collector.metrics(), "ragscope_traces_written_total") ?? 0;
  for (let attempt = 0; attempt < 300 && (await written()) < count; attempt += 1) await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(await written(), count, collector.output());
}

async function storedResult(traceId: string): Promise<CaseResult> {
  const store = await collector.openStore();
  try {
    const rows = await queryRows<{ payload: string }>(store, "SELECT payload FROM {{database}}.case_results FINAL WHERE trace_id = {traceId:String}", { traceId });
    assert.equal(rows.length, 1);
    return JSON.parse(rows[0]!.payload) as CaseResult;
  } finally {
    await store.close();
  }
}

async function storedSpans(caseResultId: string): Promise<StoredRawSpan[]> {
  const store = await collector.openStore();
  try {
    const rows = await queryRows<{ spans: string }>(store, "SELECT spans FROM {{database}}.trace_spans FINAL WHERE case_result_id = {caseResultId:String}", { caseResultId });
    assert.equal(rows.length, 1);
    return JSON.parse(rows[0]!.spans) as StoredRawSpan[];
  } finally {
    await store.close();
  }
}

test("content in log records: the recorded Python packages' operation-details event, and the JS SDK's choice event, give the answers", async () => {
  // 1. The recordings, logs before traces.
  for (const recording of ["event-only", "openai-v2-legacy"]) {
    const traces = JSON.parse(await readFile(path.join(recordings, `${recording}.traces.otlp.json`), "utf8")) as Json;
    const logs = JSON.parse(await readFile(path.join(recordings, `${recording}.logs.otlp.json`), "utf8")) as Json;
    const shift = shiftToStartAt(traces, Date.now() - 60_000);
    assert.equal(await post("logs", shifted(logs, shift)), 200);
    assert.equal(await post("traces", shifted(traces, shift)), 200);
  }

  // 2. The JS SDK's own exporters: a chat span, and the choice record emitted inside it; logs over HTTP, then gRPC.
  const grpcUrl = /OTLP\/gRPC on (http:\/\/[\d.:]+)/.exec(collector.output())?.[1];
  assert.ok(grpcUrl, collector.output());
  const jsTraceIds: string[] = [];
  for (const logExporter of [new OTLPLogExporter({ url: `${collector.receiverUrl}/v1/logs` }), new OtlpGrpcLogExporter({ url: grpcUrl })]) {
    const resource = resourceFromAttributes({ "service.name": "policy-assistant-js" });
    const tracerProvider = new BasicTracerProvider({ resource, spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url: `${collector.receiverUrl}/v1/traces` }))] });
    const loggerProvider = new LoggerProvider({ resource, processors: [new SimpleLogRecordProcessor({ exporter: logExporter })] });
    const tracer = tracerProvider.getTracer("opentelemetry.instrumentation.openai_v2");
    const logger = loggerProvider.getLogger("opentelemetry.instrumentation.openai_v2");
    // Contexts passed explicitly: no context manager is registered in this process.
    const root = tracer.startSpan("invoke_workflow policy_rag", { attributes: { "gen_ai.operation.name": "invoke_workflow", "gen_ai.input.messages": JSON.stringify([{ role: "user", parts: [{ type: "text", content: question }] }]) } });
    jsTraceIds.push(root.spanContext().traceId);
    const chat = tracer.startSpan("chat gpt-4o-mini", { attributes: { "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o-mini", "gen_ai.usage.input_tokens": 137, "gen_ai.usage.output_tokens": 41 } }, trace.setSpan(ROOT_CONTEXT, root));
    logger.emit({
      eventName: "gen_ai.choice",
      attributes: { "gen_ai.system": "openai" },
      body: { index: 0, finish_reason: "stop", message: { role: "assistant", content: fakeAnswer } },
      context: trace.setSpan(ROOT_CONTEXT, chat),
    });
    chat.end();
    root.end();
    await loggerProvider.forceFlush();
    await tracerProvider.forceFlush();
    await loggerProvider.shutdown();
    await tracerProvider.shutdown();
  }

  await untilWritten(4);
  const metrics = await collector.metrics();
  assert.equal(readSample(metrics, "ragscope_log_records_received_total"), 6, "the recordings' one and three records, the JS SDK's two");
  assert.equal(readSample(metrics, "ragscope_log_events_total", { outcome: "joined" }), 6, collector.output());
  // The trace page shows the choice record on the chat span, said to have come as a log record, with its body.
  const uiUrl = /web UI and read API on (http:\/\/[\d.:]+)/.exec(collector.output())?.[1];
  assert.ok(uiUrl, collector.output());
  const listed = (await (await fetch(`${uiUrl}/api/traces`)).json()) as { traces: { caseResultId: string; traceId: string }[] };
  const legacyCase = listed.traces.find((entry) => entry.traceId === "00001010000000000000000000000001")!.caseResultId;
  const page = await (await fetch(`${uiUrl}/traces/${legacyCase}`)).text();
  assert.match(page, /<strong>gen_ai\.choice<\/strong> <span class="muted">\d+ ns · sent as an OpenTelemetry log record<\/span>/);
  assert.match(page, /<pre class="event-body">[^<]*finish_reason[^<]*stop[^<]*<\/pre>/);
  assert.equal(await collector.stop(), 0, collector.output());

  const recorded = await storedResult("0000100f000000000000000000000001");
  assert.equal(recorded.output, fakeAnswer, "the operation-details record's output messages");
  // event_only leaves the workflow's and the retrieval's content off their spans too, and opentelemetry-util-genai 1.1b0
  // sends no record for them: the question is not available (the chat call's input messages are not the request's).
  assert.equal(recorded.rag_observation.query, null);
  assert.deepEqual(recorded.rag_observation.malformed_attributes, []);
  const legacy = await storedResult("00001010000000000000000000000001");
  assert.equal(legacy.output, fakeAnswer, "the recorded gen_ai.choice record's body");
  // The trace page's stored span shows the records joined to it, each with its body.
  const chatEvents = (await storedSpans(legacy.case_result_id)).find((span) => span.name.startsWith("chat "))?.events;
  assert.deepEqual(chatEvents?.map((event) => event.name), ["gen_ai.system.message", "gen_ai.user.message", "gen_ai.choice"]);
  assert.deepEqual(chatEvents?.[2]?.body, { index: 0, finish_reason: "stop", message: { role: "assistant", content: fakeAnswer } });
  assert.deepEqual([legacy.rag_observation.generation.input_tokens, legacy.rag_observation.generation.output_tokens], [137, 41]);
  for (const [index, traceId] of jsTraceIds.entries()) {
    const fromJs = await storedResult(traceId);
    assert.equal(fromJs.output, fakeAnswer, `the choice record's body (${index === 0 ? "OTLP/HTTP" : "OTLP/gRPC"})`);
    assert.deepEqual([fromJs.rag_observation.generation.model, fromJs.rag_observation.generation.total_tokens], ["gpt-4o-mini", 178]);
  }
});
