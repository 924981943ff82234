/**
 * The request's tokens when an OpenLLMetry LLM call's Python SDK evicted its `llm.request.type`, as a user of
 * `ragscope serve` meets it: OTLP/JSON over HTTP to a running serve (a subprocess of the built CLI), then the Case
 * Results it stored. The spans are built as the OTel Python SDK sends them past its attribute count limit — the oldest
 * attributes evicted, `dropped_attributes_count` counting them, `telemetry.sdk.language = python`
 * (test/support/python-evicted-llm-trace.ts; the reading itself: test/unit/otlp/python-evicted-request-type.test.ts).
 *
 * Two requests, each a workflow, a query rewrite that lost nothing (40 + 8 = 48 tokens) and the answer's call
 * (900 + 60 = 960 tokens) that lost its request type and its request:
 * - the call is `openai.chat`: the generation, counted — input 940, output 68, total 1008 (before: 40, 8, 48);
 * - the call's name does not say what it was (`replicate.run`) and it carries no completion: a generation or an
 *   embedding, not known — input, output, total tokens and cost null, with a note on the span (before: 40, 8, 48);
 *   started after the rewrite, it may have been the last generation: the model is null (before: the rewrite's), the
 *   answer the workflow's own.
 * Neither call carries a cost (OpenLLMetry records none): cost is null in both.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { CaseResult } from "../../contracts/case-result.js";
import { readSample } from "../../collector/wiring/observe/metrics-registry.js";
import { startCollectorSubprocess, type CollectorSubprocess } from "../support/collector-subprocess.js";
import { answerCall, EVICTED_UP_TO_RESPONSE, pythonSdkTrace, pythonSpanId, REWRITE_CALL, WORKFLOW_SPAN } from "../support/python-evicted-llm-trace.js";
import { postTraces } from "../support/recorded-spans.js";
import { queryRows } from "../support/temporary-store.js";

const NAMED_CHAT = "7a000000000000000000000000000e01";
const UNNAMED_CALL = "7a000000000000000000000000000e02";

let collector: CollectorSubprocess;
before(async () => (collector = await startCollectorSubprocess({})));
after(async () => {
  await collector.stop();
  await collector.remove();
});

test("an OpenLLMetry LLM call whose Python SDK evicted its request type: counted when it is the generation, the sums not available when it may be", async () => {
  // A minute ago: inside the window of span times serve takes.
  const startMs = Date.now() - 60_000;
  for (const [traceId, answer] of [
    [NAMED_CHAT, answerCall("openai.chat", EVICTED_UP_TO_RESPONSE)],
    [UNNAMED_CALL, answerCall("replicate.run", EVICTED_UP_TO_RESPONSE, { completions: false })],
  ] as const) {
    const body = pythonSdkTrace(traceId, [WORKFLOW_SPAN, REWRITE_CALL, answer], { startMs });
    assert.equal(await postTraces(collector.receiverUrl, new TextEncoder().encode(body), "application/json"), 200);
  }
  const written = async () => readSample(await collector.metrics(), "ragscope_traces_written_total") ?? 0;
  for (let attempt = 0; attempt < 300 && (await written()) < 2; attempt += 1) await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(await written(), 2, collector.output());

  assert.equal(await collector.stop(), 0, collector.output());
  const store = await collector.openStore();
  let stored: Map<string, CaseResult>;
  try {
    const rows = await queryRows<{ trace_id: string; payload: string }>(store, "SELECT trace_id, payload FROM {{database}}.case_results FINAL");
    stored = new Map(rows.map((row) => [row.trace_id, JSON.parse(row.payload) as CaseResult]));
  } finally {
    await store.close();
  }

  const usage = (traceId: string) => {
    const generation = stored.get(traceId)?.rag_observation.generation;
    assert.ok(generation, `${traceId} stored: ${[...stored.keys()].join(", ")}`);
    return [generation.input_tokens, generation.output_tokens, generation.total_tokens, generation.cost];
  };
  assert.deepEqual(usage(NAMED_CHAT), [940, 68, 1008, null], "left out, the answer's call read 40 / 8 / 48");
  assert.deepEqual(usage(UNNAMED_CALL), [null, null, null, null], "not the rewrite's 40 / 8 / 48 alone");

  const notes = (traceId: string, spanId: string) =>
    (stored.get(traceId)?.rag_observation.malformed_attributes ?? []).filter((note) => note.span_id === spanId && note.kind === "unreadable_value").map((note) => note.attribute);
  assert.ok(notes(NAMED_CHAT, pythonSpanId(NAMED_CHAT, 2)).includes("llm.request.type"), "the evicted request type is named");
  assert.ok(!notes(NAMED_CHAT, pythonSpanId(NAMED_CHAT, 2)).includes("generation"), "no sum is left not available");
  assert.deepEqual(
    notes(UNNAMED_CALL, pythonSpanId(UNNAMED_CALL, 2)),
    ["llm.request.type", "generation", "generation"],
    "the span whose usage is not counted is named, and, started after the rewrite, as a call that may have been the last generation",
  );
  assert.equal(stored.get(UNNAMED_CALL)?.rag_observation.generation.model, null, "not the rewrite's model: the unnamed call may have been the last generation");
  assert.equal(stored.get(UNNAMED_CALL)?.output, "Up to 5 days carry over.", "the workflow's own output");
});
