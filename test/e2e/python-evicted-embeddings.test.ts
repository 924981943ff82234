/**
 * An index built under OpenLLMetry's Python instrumentation whose SDK evicted each embedding call's `llm.request.type`,
 * as an operator of `ragscope serve` meets it: OTLP/JSON over HTTP to a running serve (a subprocess of the built CLI),
 * then ragscope_traces_without_request_total{reason} on its /metrics. The spans are built as the OTel Python SDK sends
 * them past its attribute count limit — the oldest attributes evicted, `dropped_attributes_count` counting them,
 * `telemetry.sdk.language = python` (test/support/python-evicted-llm-trace.ts).
 *
 * Two traces, each two embedding calls (`openai.embeddings`, `cohere.embed`) and nothing else — the same index build,
 * once with every attribute, once with the first 4 of each call evicted (the request type, the system, the model and
 * the input), leaving its response. Neither is a request; both are an index being built: embedding_only 2,
 * no_rag_stage 0 (before: embedding_only 1, no_rag_stage 1 — the evicted calls were not told to be embeddings), and
 * nothing written as a Case Result.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { readSample } from "../../collector/wiring/observe/metrics-registry.js";
import { startCollectorSubprocess, type CollectorSubprocess } from "../support/collector-subprocess.js";
import { pythonSdkTrace, type PythonSpan } from "../support/python-evicted-llm-trace.js";
import { postTraces } from "../support/recorded-spans.js";

const WITH_REQUEST_TYPE = "7a000000000000000000000000000f01";
const REQUEST_TYPE_EVICTED = "7a000000000000000000000000000f02";

/** An embedding call in the order the instrumentation sets its attributes (no completions, no output tokens). */
function embeddingCall(name: string, system: string, evicted: number): PythonSpan {
  return {
    name,
    evicted,
    attributes: [
      ["llm.request.type", "embedding"],
      ["gen_ai.system", system],
      ["gen_ai.request.model", "text-embedding-3-small"],
      ["gen_ai.prompt.0.content", "Employees may carry over up to 5 days of unused annual leave."],
      ["gen_ai.response.model", "text-embedding-3-small"],
      ["llm.usage.total_tokens", 14],
      ["gen_ai.usage.input_tokens", 14],
    ],
  };
}

const indexBuild = (evicted: number) => [embeddingCall("openai.embeddings", "openai", evicted), embeddingCall("cohere.embed", "cohere", evicted)];

let collector: CollectorSubprocess;
before(async () => (collector = await startCollectorSubprocess({ RAGSCOPE_QUIET_PERIOD_MS: "200" })));
after(async () => {
  await collector.stop();
  await collector.remove();
});

test("embedding calls whose Python SDK evicted their request type are counted as an index being built, as with it", async () => {
  // A minute ago: inside the window of span times serve takes.
  const startMs = Date.now() - 60_000;
  for (const [traceId, evicted] of [
    [WITH_REQUEST_TYPE, 0],
    [REQUEST_TYPE_EVICTED, 4],
  ] as const) {
    const body = pythonSdkTrace(traceId, indexBuild(evicted), { startMs });
    assert.equal(await postTraces(collector.receiverUrl, new TextEncoder().encode(body), "application/json"), 200);
  }
  const counted = (metrics: string, reason: string) => readSample(metrics, "ragscope_traces_without_request_total", { reason }) ?? 0;
  const settled = async () => {
    const metrics = await collector.metrics();
    return counted(metrics, "embedding_only") + counted(metrics, "no_rag_stage") + (readSample(metrics, "ragscope_traces_written_total") ?? 0) >= 2;
  };
  for (let attempt = 0; attempt < 300 && !(await settled()); attempt += 1) await new Promise((resolve) => setTimeout(resolve, 100));

  const metrics = await collector.metrics();
  assert.equal(counted(metrics, "embedding_only"), 2, `both index builds, the evicted one too: ${collector.output()}`);
  assert.equal(counted(metrics, "no_rag_stage"), 0, "the evicted embedding calls are embeddings, as their names say");
  assert.equal(readSample(metrics, "ragscope_traces_written_total") ?? 0, 0, "neither is a request");
});
