/**
 * GenAI-conventions spans that are no LLM call, whose Python SDK evicted their `gen_ai.operation.name`, as a user of
 * `ragscope serve` meets them: OTLP/JSON over HTTP to a running serve (a subprocess of the built CLI), then the Case
 * Result it stored. The spans are built as the OTel Python SDK sends them past its attribute count limit — the oldest
 * attribute evicted, `dropped_attributes_count` counting it, `telemetry.sdk.language = python`
 * (test/support/python-evicted-genai-trace.ts; the reading itself: test/unit/otlp/python-evicted-operation-name.test.ts).
 *
 * One request: its root `invoke_workflow leave_policy_rag` (question and answer as messages) lost its operation name,
 * and so did an `invoke_agent leave_agent` inside it that carries the usage of the calls inside it (940 + 68); the
 * calls are a query rewrite (40 + 8) and the answer's call (900 + 60), which lost nothing. Worked by hand: the request is the workflow's
 * question and answer; its tokens are the two calls', 940 / 68 / 1008, the agent's not counted again; GenAI records no
 * cost. Before: no question, no answer (the root was no request) and every token sum null (the agent read as a call
 * whose kind is unknown).
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { CaseResult } from "../../contracts/case-result.js";
import { readSample } from "../../collector/wiring/observe/metrics-registry.js";
import { startCollectorSubprocess, type CollectorSubprocess } from "../support/collector-subprocess.js";
import { pythonSdkTrace, pythonSpanId } from "../support/python-evicted-llm-trace.js";
import { GENAI_EVICTED_AGENT_SPAN, GENAI_REWRITE_CALL, GENAI_WORKFLOW_SPAN, genAiAnswerCall } from "../support/python-evicted-genai-trace.js";
import { postTraces } from "../support/recorded-spans.js";
import { queryRows } from "../support/temporary-store.js";

const TRACE_ID = "7a000000000000000000000000000f01";


let collector: CollectorSubprocess;
before(async () => (collector = await startCollectorSubprocess({})));
after(async () => {
  await collector.stop();
  await collector.remove();
});

test("a request whose root workflow and agent spans lost their operation names to the Python SDK: still the request, its calls counted once", async () => {
  // A minute ago: inside the window of span times serve takes.
  const body = pythonSdkTrace(TRACE_ID, [{ ...GENAI_WORKFLOW_SPAN, evicted: 1 }, GENAI_EVICTED_AGENT_SPAN, { ...GENAI_REWRITE_CALL, parent: 1 }, { ...genAiAnswerCall("chat gpt-4o-mini", 0), parent: 1 }], { startMs: Date.now() - 60_000 });
  assert.equal(await postTraces(collector.receiverUrl, new TextEncoder().encode(body), "application/json"), 200);
  const written = async () => readSample(await collector.metrics(), "ragscope_traces_written_total") ?? 0;
  for (let attempt = 0; attempt < 300 && (await written()) < 1; attempt += 1) await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(await written(), 1, collector.output());

  assert.equal(await collector.stop(), 0, collector.output());
  const store = await collector.openStore();
  let stored: CaseResult[];
  try {
    stored = (await queryRows<{ payload: string }>(store, "SELECT payload FROM {{database}}.case_results FINAL WHERE trace_id = {traceId:String}", { traceId: TRACE_ID })).map((row) => JSON.parse(row.payload) as CaseResult);
  } finally {
    await store.close();
  }
  assert.equal(stored.length, 1);
  const [result] = stored;
  const observation = result!.rag_observation;
  assert.equal(observation.query, "Can unused annual leave be carried over?");
  assert.equal(result!.output, "Up to 5 days carry over.");
  const generation = observation.generation;
  assert.deepEqual([generation.input_tokens, generation.output_tokens, generation.total_tokens, generation.cost], [940, 68, 1008, null], "the two calls once; the agent's usage is theirs");
  const notes = (index: number) => observation.malformed_attributes.filter((note) => note.span_id === pythonSpanId(TRACE_ID, index) && note.kind === "unreadable_value").map((note) => note.attribute);
  assert.deepEqual(notes(0), ["gen_ai.operation.name"], "the root's evicted operation name is named");
  assert.deepEqual(notes(1), [], "the agent span is no stage, and nothing of it is unknown");
});
