/**
 * What becomes a Case Result, as a user of `ragscope serve` meets it: OTLP/JSON
 * over HTTP to a running serve (a subprocess), then its /metrics and the store
 * it wrote.
 *
 * A LlamaIndex app that builds its index with the instrumentation on sends two
 * traces that are no request (recorded with the real instrumentation:
 * test/data/traces-without-request/): one of EMBEDDING spans, one of the
 * splitter's CHAIN spans. A service behind a forwarding OpenTelemetry
 * Collector also sends its plain HTTP spans. None of them may be stored or
 * counted as a request, and none may vanish: each is counted in
 * ragscope_traces_without_request_total by reason, and in the health
 * snapshots. Real requests must all still be stored — the LlamaIndex golden
 * request, and the edges of the rule (collector/06-rebuild/rag-request-evidence.ts):
 * a question answered by generation alone, a request that failed before any
 * stage span, a question with no stage span (answered from a cache), the SDK's
 * request span alone, a request linked to an Eval Case run.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { readSample } from "../../collector/wiring/observe/metrics-registry.js";
import { startCollectorSubprocess, type CollectorSubprocess } from "../support/collector-subprocess.js";
import { queryRows } from "../support/temporary-store.js";

const dataFile = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));

type Attribute = { key: string; value: { stringValue: string } };
const text = (key: string, value: string): Attribute => ({ key, value: { stringValue: value } });

const STATUS_ERROR = 2;

/** One span of trace `trace` (a small number), OTLP/JSON; span 1 is the root, the others its children. */
function span(trace: number, index: number, name: string, attributes: Attribute[], status = 0) {
  const traceId = trace.toString(16).padStart(32, "c");
  const spanId = (trace * 16 + index).toString(16).padStart(16, "d");
  return {
    traceId,
    spanId,
    parentSpanId: index === 1 ? "" : (trace * 16 + 1).toString(16).padStart(16, "d"),
    name,
    kind: index === 1 ? 2 : 1,
    startTimeUnixNano: String(1_783_503_000_000_000_000n + BigInt(index) * 1_000_000n),
    endTimeUnixNano: String(1_783_503_001_000_000_000n - BigInt(index) * 1_000_000n),
    attributes,
    status: { code: status, message: status === STATUS_ERROR ? "the vector store did not answer" : "" },
  };
}

const traceIdOf = (trace: number) => trace.toString(16).padStart(32, "c");

function document(spans: ReturnType<typeof span>[]) {
  return JSON.stringify({ resourceSpans: [{ resource: { attributes: [text("service.name", "policy-assistant")] }, scopeSpans: [{ scope: { name: "app" }, spans }] }] });
}

const chain = text("openinference.span.kind", "CHAIN");

/** The requests at the edges of the rule, each a trace of its own; the trace numbers are their ids' tails. */
const edgeRequests = {
  generationOnly: [span(1, 1, "POST /chat", []), span(1, 2, "ChatOpenAI", [text("openinference.span.kind", "LLM"), text("llm.model_name", "gpt-4o-mini"), text("output.value", "Five days.")])],
  failedBeforeAnyStage: [span(2, 1, "policy_rag_chain", [chain, text("input.value", '{"session": 7}'), text("input.mime_type", "application/json")], STATUS_ERROR)],
  questionWithoutStage: [span(3, 1, "cached_answer", [chain, text("input.value", "How many days of annual leave do I get?"), text("output.value", "Five days.")])],
  sdkRequestSpanAlone: [span(4, 1, "rag.request", [text("ragscope.stage", "request"), text("ragscope.schema_version", "1")])],
  linkedToARun: [span(5, 1, "policy_rag_chain", [chain, text("ragscope.run_id", "run-7"), text("ragscope.case_id", "leave_days"), text("ragscope.case_version", "1")])],
};

/** A service's own spans, forwarded by an OpenTelemetry Collector that sends everything: no RAG in them. */
const healthCheck = [span(6, 1, "GET /healthz", [text("http.request.method", "GET"), text("url.path", "/healthz")]), span(6, 2, "SELECT 1", [text("db.system", "postgresql")])];

const goldenRequestTraceId = "00001006000000000000000000000001";

let collector: CollectorSubprocess;

before(async () => {
  // Health snapshots every 100 ms: the last one, written on stop, must carry the count.
  collector = await startCollectorSubprocess({ RAGSCOPE_QUIET_PERIOD_MS: "200", RAGSCOPE_HEALTH_SNAPSHOT_MS: "100" });
});
after(async () => {
  await collector.stop();
  await collector.remove();
});

async function post(body: string): Promise<void> {
  const answer = await fetch(`${collector.receiverUrl}/v1/traces`, { method: "POST", headers: { "content-type": "application/json" }, body });
  assert.equal(answer.status, 200, await answer.text());
}

test("traces without a RAG request are counted by reason, never stored as requests; every request is stored", async () => {
  await post(await readFile(dataFile("../data/traces-without-request/llama-index-indexing.otlp.json"), "utf8"));
  await post(await readFile(dataFile("../golden/traces/llama-index-openinference.otlp.json"), "utf8"));
  for (const spans of Object.values(edgeRequests)) await post(document(spans));
  await post(document(healthCheck));

  const requests = 1 + Object.keys(edgeRequests).length;
  const withoutRequest = 3;
  const settled = async () => {
    const metrics = await collector.metrics();
    const set = NO_REQUEST.reduce((total, reason) => total + (readSample(metrics, "ragscope_traces_without_request_total", { reason }) ?? 0), 0);
    return (readSample(metrics, "ragscope_traces_written_total") ?? 0) + set >= requests + withoutRequest;
  };
  for (let attempt = 0; attempt < 300 && !(await settled()); attempt += 1) await new Promise((resolve) => setTimeout(resolve, 100));

  const metrics = await collector.metrics();
  assert.equal(readSample(metrics, "ragscope_traces_without_request_total", { reason: "embedding_only" }), 1, "the index's embedding trace");
  assert.equal(readSample(metrics, "ragscope_traces_without_request_total", { reason: "no_rag_stage" }), 2, "the splitter's trace and the health check");
  assert.equal(readSample(metrics, "ragscope_traces_written_total"), requests, "every request written, nothing else");
  assert.equal(readSample(metrics, "ragscope_case_results_invalid_total"), 0);

  assert.equal(await collector.stop(), 0, collector.output());
  const store = await collector.openStore();
  try {
    const stored = await queryRows<{ trace_id: string; execution_status: string }>(store, "SELECT trace_id, execution_status FROM {{database}}.case_results FINAL ORDER BY trace_id");
    const expected = new Map<string, string>([
      [goldenRequestTraceId, "completed"],
      [traceIdOf(1), "completed"],
      [traceIdOf(2), "failed"],
      [traceIdOf(3), "completed"],
      [traceIdOf(4), "completed"],
      [traceIdOf(5), "completed"],
    ]);
    assert.deepEqual(new Map(stored.map((row) => [row.trace_id, row.execution_status])), expected);
    const valuesOfOthers = await queryRows<{ count: string }>(
      store,
      `SELECT count() AS count FROM {{database}}.metric_values WHERE case_result_id NOT IN (SELECT case_result_id FROM {{database}}.case_results)`,
    );
    assert.equal(Number(valuesOfOthers[0]!.count), 0, "no metric value of a trace that is no request");
    const health = await queryRows<{ total: string }>(store, "SELECT sum(value) AS total FROM {{database}}.collector_health WHERE metric = 'traces_without_request'");
    assert.equal(Number(health[0]!.total), withoutRequest, "the health snapshots count them too");
  } finally {
    await store.close();
  }
});

const NO_REQUEST = ["embedding_only", "no_rag_stage"] as const;
