/**
 * A trace that lacks fields gives "not available" metrics, never zeros; and
 * feedback spans in a request's trace end up on its Case Result. Both through
 * the collector's replay path (decode → assemble → normalize → rebuild → evaluate).
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ROOT_CONTEXT, context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { JsonTraceSerializer } from "@opentelemetry/otlp-transformer";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { recordFeedback, traceRequest, traceRetrieve } from "../../../instrumentation/index.js";
import { replayTrace } from "../../golden/replay-golden.js";
import { goldenCase, goldenRun } from "../../golden/scenarios/policy-corpus.js";

/** Runs `record` with a global tracer provider exporting to memory (the SDK's wrappers use the global one), then removes it. */
async function withGlobalTracing(record: (exporter: InMemorySpanExporter) => Promise<void>): Promise<void> {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
  try {
    await record(exporter);
  } finally {
    await provider.shutdown();
    trace.disable();
    context.disable();
  }
}

function otlpJson(spans: ReadableSpan[]): string {
  return Buffer.from(JsonTraceSerializer.serializeRequest(spans)!).toString("utf8");
}

describe("a trace missing fields", () => {
  test("GenAI spans without documents, usage or content: metrics are not available, not 0", async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const tracer = provider.getTracer("app");
    const root = tracer.startSpan("invoke_workflow rag", { attributes: { "gen_ai.operation.name": "invoke_workflow", "ragscope.run_id": goldenRun.runId, "ragscope.case_id": goldenRun.caseId, "ragscope.case_version": goldenRun.caseVersion } });
    const inside = trace.setSpan(ROOT_CONTEXT, root);
    tracer.startSpan("retrieval idx", { attributes: { "gen_ai.operation.name": "retrieval", "gen_ai.data_source.id": "idx" } }, inside).end();
    tracer.startSpan("chat m", { attributes: { "gen_ai.operation.name": "chat", "gen_ai.request.model": "m" } }, inside).end();
    root.end();
    const [evaluation] = await replayTrace(otlpJson(exporter.getFinishedSpans()), [goldenCase]);
    const result = evaluation!.caseResult;
    assert.equal(result.case_id, goldenRun.caseId, "linked, so case metrics could apply");
    assert.equal(result.output, null);
    assert.equal(result.rag_observation.retrieved_chunks, null);
    assert.deepEqual(result.rag_observation.generation, { model: "m", input_tokens: null, output_tokens: null, total_tokens: null, cost: null, time_to_first_token_ms: null });

    const byEvaluator = new Map(evaluation!.evaluationResults.map((item) => [item.evaluator_id, item]));
    for (const evaluatorId of ["retrieval.ranking", "context.coverage", "citation.accuracy"]) {
      const outcome = byEvaluator.get(evaluatorId)!;
      assert.equal(outcome.outcome, "not_applicable", evaluatorId);
      assert.ok(Object.values(outcome.metric_values).every((value) => value === null), `${evaluatorId}: ${JSON.stringify(outcome.metric_values)}`);
    }
    const usage = byEvaluator.get("performance.usage")!.metric_values;
    for (const name of ["input_tokens", "output_tokens", "total_tokens", "cost", "time_to_first_token_ms"]) assert.equal(usage[name], null, name);
    assert.equal(typeof usage.latency_ms, "number", "what the trace does carry is measured");
    // Across every evaluator: a metric is either computed from something the trace carried, or null.
    for (const item of evaluation!.evaluationResults) {
      if (item.outcome === "not_applicable") assert.ok(Object.values(item.metric_values).every((value) => value === null), item.evaluator_id);
    }
    await provider.shutdown();
  });
});

describe("feedback on the Case Result", () => {
  test("feedback recorded in the request and later by trace id lands on the request's Case Result, in order", async () => {
    await withGlobalTracing(async (exporter) => {
      let traceId = "";
      let rootSpanId = "";
      await traceRequest({ query: "q" }, async () => {
        await traceRetrieve({ query: "q" }, () => [{ chunkId: "c1" }]);
        const active = trace.getActiveSpan()!.spanContext();
        traceId = active.traceId;
        rootSpanId = active.spanId;
        assert.ok(recordFeedback({ kind: "follow_up", comment: "and for part-timers?" }).ok);
        return "a";
      });
      const later = recordFeedback({ kind: "thumbs_down", traceId, spanId: rootSpanId, value: 1 });
      assert.ok(later.ok);
      assert.equal(later.value.traceId, traceId);
      const [evaluation] = await replayTrace(otlpJson(exporter.getFinishedSpans()), []);
      const feedback = evaluation!.caseResult.rag_observation.feedback;
      assert.deepEqual(
        feedback.map((entry) => [entry.kind, entry.value, entry.comment]),
        [
          ["follow_up", null, "and for part-timers?"],
          ["thumbs_down", "1", null],
        ],
      );
      assert.ok(feedback.every((entry) => !Number.isNaN(Date.parse(entry.recorded_at))));
      assert.equal(evaluation!.caseResult.rag_observation.partial_trace, false);
    });
  });
});

describe("a retrieval that returned nothing", () => {
  test("is an empty list, not a missing one: recall against the gold evidence is 0, not \"not applicable\"", async () => {
    await withGlobalTracing(async (exporter) => {
      await traceRequest({ query: "q", runId: goldenRun.runId, caseId: goldenRun.caseId, caseVersion: goldenRun.caseVersion }, async () => {
        await traceRetrieve({ query: "q", topK: 5 }, () => []);
        return "I could not find anything.";
      });
      const [evaluation] = await replayTrace(otlpJson(exporter.getFinishedSpans()), [goldenCase]);
      assert.equal(evaluation!.caseResult.case_id, goldenRun.caseId);
      assert.deepEqual(evaluation!.caseResult.rag_observation.retrieved_chunks, []);
      const ranking = evaluation!.evaluationResults.find((item) => item.evaluator_id === "retrieval.ranking")!;
      assert.notEqual(ranking.outcome, "not_applicable", ranking.reason);
      assert.equal(ranking.metric_values.recall_at_5, 0);
    });
  });
});
