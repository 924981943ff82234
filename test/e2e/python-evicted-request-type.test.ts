/**
 * The request's tokens when an OpenLLMetry LLM call's Python SDK evicted its `llm.request.type`, as a user of
 * `ragscope serve` meets it: OTLP/JSON over HTTP to a running serve (a subprocess of the built CLI), then the Case
 * Results it stored. The spans are built as the OTel Python SDK sends them past its attribute count limit — the oldest
 * attributes evicted, `dropped_attributes_count` counting them, `telemetry.sdk.language = python`
 * (test/support/python-evicted-llm-trace.ts; the reading itself: test/unit/otlp/python-evicted-request-type.test.ts).
 *
 * Two requests, each a workflow, a query rewrite that lost nothing (40 + 8 = 48 tokens) and then the answer's call
 * (900 + 60 = 960 tokens) that lost its request type and its request:
 * - the call is `openai.chat`: the generation, counted — input 940, output 68, total 1008 (before: 40, 8, 48);
 * - the call's name does not say what it was (`replicate.run`) and it carries no completion: a generation or an
 *   embedding, not known — input, output, total tokens and cost null, with a note on the span (before: 40, 8, 48);
 *   ended after the rewrite, it may have been the last generation: the model is null (before: the rewrite's), the
 *   answer the workflow's own.
 * Neither call carries a cost (OpenLLMetry records none): cost is null in both.
 *
 * Two more, a workflow without output whose answer's call kept everything (`openai.chat`, "Up to 5 days carry
 * over.", gpt-4o-mini-2024-07-18) beside that unknown `replicate.run` call, read by which ended last (the rule that
 * chose the answer), not which started last:
 * - the unknown call 10 → 990 ms around the answer's call's 20 → 600 ms in time (its sibling, not its parent): it
 *   ended last and may have been the last generation — output and model null, a note on it (before: the answer's
 *   call's, the unknown call having started first);
 * - the answer's call 10 → 900 ms, the unknown call 20 → 100 ms beside it: it ended first and was not the last — the
 *   answer's call's output and model (before: both null, the unknown call having started last).
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { CaseResult } from "../../contracts/case-result.js";
import { readSample } from "../../collector/wiring/observe/metrics-registry.js";
import { startCollectorSubprocess, type CollectorSubprocess } from "../support/collector-subprocess.js";
import { answerCall, EVICTED_UP_TO_RESPONSE, pythonSdkTrace, pythonSpanId, REWRITE_CALL, RUNS_IN_TURN, WORKFLOW_SPAN, type PythonSpan } from "../support/python-evicted-llm-trace.js";
import { postTraces } from "../support/recorded-spans.js";
import { queryRows } from "../support/temporary-store.js";

const NAMED_CHAT = "7a000000000000000000000000000e01";
const UNNAMED_CALL = "7a000000000000000000000000000e02";
const UNKNOWN_ENDED_LAST = "7a000000000000000000000000000e03";
const UNKNOWN_ENDED_FIRST = "7a000000000000000000000000000e04";

const WORKFLOW_WITHOUT_OUTPUT: PythonSpan = { ...WORKFLOW_SPAN, attributes: WORKFLOW_SPAN.attributes.filter(([key]) => key !== "traceloop.entity.output") };
const UNKNOWN_CALL = answerCall("replicate.run", EVICTED_UP_TO_RESPONSE, { completions: false });
const ANSWER_CALL = answerCall("openai.chat", 0);
const running = (span: PythonSpan, fromMs: number, toMs: number): PythonSpan => ({ ...span, runs: { fromMs, toMs } });

let collector: CollectorSubprocess;
before(async () => (collector = await startCollectorSubprocess({})));
after(async () => {
  await collector.stop();
  await collector.remove();
});

test("an OpenLLMetry LLM call whose Python SDK evicted its request type: counted when it is the generation, the sums not available when it may be", async () => {
  // A minute ago: inside the window of span times serve takes.
  const startMs = Date.now() - 60_000;
  const rewriteThen = (answer: PythonSpan) => [WORKFLOW_SPAN, { ...REWRITE_CALL, runs: RUNS_IN_TURN.rewrite }, { ...answer, runs: RUNS_IN_TURN.answer }];
  for (const [traceId, spans] of [
    [NAMED_CHAT, rewriteThen(answerCall("openai.chat", EVICTED_UP_TO_RESPONSE))],
    [UNNAMED_CALL, rewriteThen(UNKNOWN_CALL)],
    [UNKNOWN_ENDED_LAST, [WORKFLOW_WITHOUT_OUTPUT, running(UNKNOWN_CALL, 10, 990), running(ANSWER_CALL, 20, 600)]],
    [UNKNOWN_ENDED_FIRST, [WORKFLOW_WITHOUT_OUTPUT, running(ANSWER_CALL, 10, 900), running(UNKNOWN_CALL, 20, 100)]],
  ] as const) {
    const body = pythonSdkTrace(traceId, spans, { startMs });
    assert.equal(await postTraces(collector.receiverUrl, new TextEncoder().encode(body), "application/json"), 200);
  }
  const written = async () => readSample(await collector.metrics(), "ragscope_traces_written_total") ?? 0;
  for (let attempt = 0; attempt < 300 && (await written()) < 4; attempt += 1) await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(await written(), 4, collector.output());

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
    "the span whose usage is not counted is named, and, ended after the rewrite, as a call that may have been the last generation",
  );
  assert.equal(stored.get(UNNAMED_CALL)?.rag_observation.generation.model, null, "not the rewrite's model: the unnamed call may have been the last generation");
  assert.equal(stored.get(UNNAMED_CALL)?.output, "Up to 5 days carry over.", "the workflow's own output");

  const answerAndModel = (traceId: string) => [stored.get(traceId)?.output, stored.get(traceId)?.rag_observation.generation.model];
  assert.deepEqual(answerAndModel(UNKNOWN_ENDED_LAST), [null, null], "started first but ended last, the unknown call may have been the last generation");
  assert.ok(
    stored.get(UNKNOWN_ENDED_LAST)?.rag_observation.malformed_attributes.some(
      (note) => note.span_id === pythonSpanId(UNKNOWN_ENDED_LAST, 1) && note.attribute === "generation" && /and it ended after the request's last known generation/.test(note.error),
    ),
    "the unknown call is named as one that may have been the last generation",
  );
  assert.deepEqual(answerAndModel(UNKNOWN_ENDED_FIRST), ["Up to 5 days carry over.", "gpt-4o-mini-2024-07-18"], "started last but ended first, the unknown call was not the last generation");
});
