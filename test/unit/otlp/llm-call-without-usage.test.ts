/**
 * A request's token counts and cost when one of its LLM calls recorded none (collector/06-rebuild/request-usage.ts):
 * a streamed call without usage, an SDK or instrumentation that does not write it, a provider that returns none.
 * Before, the sums added up the calls that carried the value, so the request read LOWER than what it used — a
 * cheaper request on the dashboards and in the gate's average_cost / cost_per_success. Evaluated through the
 * collector's consumer path (test/golden/replay-golden.ts).
 *
 * Worked by hand:
 * - OpenLLMetry, Python (test/support/python-evicted-llm-trace.ts, nothing evicted): the query rewrite 40 input +
 *   8 output = 48 (`llm.usage.total_tokens`), the answer's call 900 + 60 = 960. Both counted: 940 / 68 / 1008.
 *   The answer's call streamed, its SDK writing no usage: the rewrite's 40 / 8 / 48 alone is what the sums read
 *   before; now null / null / null, with a note on the answer's span. OpenLLMetry writes no cost on either call:
 *   the cost is null as before, and no note names it (nothing was left out of it).
 * - OpenInference: the rewrite 40 + 8 (total 48) at cost 0.125, the answer 900 + 60 (total 960) at cost 0.5 →
 *   940 / 68 / 1008 and 0.625 (exact in binary). The answer without `llm.cost.total`: the tokens still 940 / 68 /
 *   1008, the cost null (0.125, the rewrite's alone, before), the note naming cost alone.
 * - OpenInference, LlamaIndex's nests: `OpenAILike.predict` → `.chat` → `.chat`, the innermost 100 + 20, the wrappers
 *   none — one call, known, so no note on its wrappers; a second nest `predict` → `chat` with no counts on any span:
 *   a call not recorded, so null (100 / 20 / 120 before), the note on that nest's outermost span.
 * - A nest that records one call's usage on two levels (request-usage.ts): LangChain's `ChatOpenAI` span 900 + 60
 *   (960) at cost 0.5 around the OpenAI instrumentation's `ChatCompletion` span with the same counts, beside the
 *   rewrite 40 + 8 (48) at 0.125 → 940 / 68 / 1008 and 0.625, as if the call had one span; before, every span was
 *   added: 1840 / 128 / 1968 and 1.125. LlamaIndex's `predict` (none) → `chat` 100 + 20 → `chat` 100 + 20: 100 / 20 /
 *   120, not 200 / 40 / 240. A wrapper recording the total of two calls inside it, 300 + 30 (330) at 0.3 around 100 +
 *   10 (110) at 0.1 and 200 + 20 (220) at 0.2: the inside adds up to the same (0.1 + 0.2 in binary is
 *   0.30000000000000004, no disagreement) → 300 / 30 / 330 and 0.3, not 600 / 60 / 660 and 0.6, no note.
 * - Levels that disagree, each beside the rewrite 40 + 8 (48): a wrapper 120 + 20 (140) around 100 + 20 (120) → the
 *   wrapper's 120 and 140 (it covers what the span inside did not record), the output 20 agreeing: 160 / 28 / 188,
 *   with a note on the wrapper naming input_tokens and total_tokens (260 / 48 / 308 before). A wrapper 100 + 20 (120)
 *   around two attempts 60 + 10 (70) and 100 + 20 (120), 160 + 30 (190) inside → the inside's, larger on every sum:
 *   200 / 38 / 238, the note naming all three (300 / 58 / 358 before).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { replayTrace } from "../../golden/replay-golden.js";
import { pythonSdkTrace, pythonSpanId, REWRITE_CALL, WORKFLOW_SPAN, type PythonSpan } from "../../support/python-evicted-llm-trace.js";
import { GENAI_REWRITE_CALL, GENAI_WORKFLOW_SPAN, genAiAnswerCall } from "../../support/python-evicted-genai-trace.js";

type Attributes = Record<string, string | number>;

async function rebuilt(otlpJson: string) {
  const [evaluation, ...others] = await replayTrace(otlpJson, []);
  assert.equal(others.length, 0, "one trace, one Case Result");
  const observation = evaluation!.caseResult.rag_observation;
  const usage = observation.generation;
  return {
    sums: [usage.input_tokens, usage.output_tokens, usage.total_tokens, usage.cost],
    notes: observation.malformed_attributes.filter((note) => note.attribute === "generation").map((note) => ({ span_id: note.span_id, kind: note.kind, error: note.error })),
  };
}

/** The answer's chat call as the openai instrumentation writes it: its usage only when `withUsage`. */
function answerChat(withUsage: boolean): PythonSpan {
  return {
    name: "openai.chat",
    attributes: [
      ["llm.request.type", "chat"],
      ["gen_ai.system", "openai"],
      ["gen_ai.request.model", "gpt-4o-mini"],
      ["llm.is_streaming", !withUsage],
      ["gen_ai.prompt.0.role", "user"],
      ["gen_ai.prompt.0.content", "Can unused annual leave be carried over?"],
      ["gen_ai.response.model", "gpt-4o-mini-2024-07-18"],
      ...(withUsage
        ? ([
            ["llm.usage.total_tokens", 960],
            ["gen_ai.usage.output_tokens", 60],
            ["gen_ai.usage.input_tokens", 900],
          ] as const)
        : []),
      ["gen_ai.completion.0.role", "assistant"],
      ["gen_ai.completion.0.content", "Up to 5 days carry over."],
    ],
  };
}

const PYTHON_TRACE = "7a000000000000000000000000000c01";

test("two LLM calls that both recorded their usage: the request's sums are theirs, nothing named", async () => {
  const { sums, notes } = await rebuilt(pythonSdkTrace(PYTHON_TRACE, [WORKFLOW_SPAN, REWRITE_CALL, answerChat(true)]));
  assert.deepEqual(sums, [940, 68, 1008, null], "OpenLLMetry records no cost: null, not 0");
  assert.deepEqual(notes, []);
});

test("an LLM call whose SDK recorded no usage: the request's token sums are not available, the call named", async () => {
  const { sums, notes } = await rebuilt(pythonSdkTrace(PYTHON_TRACE, [WORKFLOW_SPAN, REWRITE_CALL, answerChat(false)]));
  assert.deepEqual(sums, [null, null, null, null], "not 40 / 8 / 48, the rewrite's alone");
  assert.deepEqual(
    notes.map((note) => [note.span_id, note.kind]),
    [[pythonSpanId(PYTHON_TRACE, 2), "unreadable_value"]],
    "the answer's call, not the rewrite, and not for the cost, which no call recorded",
  );
  assert.match(
    notes[0]!.error,
    /^this LLM call recorded no input_tokens, output_tokens or total_tokens, while another of the request's LLM calls did; the request's input_tokens, output_tokens and total_tokens are summed over its LLM calls, so they are not available, rather than a sum that leaves this call out and reads lower than what the request used\./,
  );
});

/** One OpenInference trace, OTLP/JSON: each span's parent by its index in `spans` (the first is the root). */
function openInferenceTrace(traceId: string, spans: readonly { name: string; parent?: number; attributes: Attributes }[]): string {
  const start = BigInt(Date.UTC(2026, 6, 8, 9, 0, 0)) * 1_000_000n;
  const spanId = (index: number) => `${traceId.slice(0, 14)}${String(index + 1).padStart(2, "0")}`;
  const value = (item: string | number) => (typeof item === "string" ? { stringValue: item } : Number.isInteger(item) ? { intValue: String(item) } : { doubleValue: item });
  const otlpSpans = spans.map((span, index) => ({
    traceId,
    spanId: spanId(index),
    parentSpanId: index === 0 ? "" : spanId(span.parent ?? 0),
    name: span.name,
    kind: 1,
    startTimeUnixNano: String(start + BigInt(index) * 10_000_000n),
    endTimeUnixNano: String(start + 1_000_000_000n - BigInt(index) * 10_000_000n),
    attributes: Object.entries(span.attributes).map(([key, item]) => ({ key, value: value(item) })),
    status: {},
  }));
  return JSON.stringify({ resourceSpans: [{ resource: { attributes: [{ key: "service.name", value: { stringValue: "leave-policy-assistant" } }] }, scopeSpans: [{ spans: otlpSpans }] }] });
}

const chain = { name: "RetrieverQueryEngine.query", attributes: { "openinference.span.kind": "CHAIN", "input.value": "Can unused annual leave be carried over?", "output.value": "Up to 5 days carry over." } };

function llm(counts: { prompt: number; completion: number; total: number; cost?: number } | null): Attributes {
  return {
    "openinference.span.kind": "LLM",
    "llm.model_name": "gpt-4o-mini",
    ...(counts === null ? {} : { "llm.token_count.prompt": counts.prompt, "llm.token_count.completion": counts.completion, "llm.token_count.total": counts.total }),
    ...(counts?.cost === undefined ? {} : { "llm.cost.total": counts.cost }),
  };
}

const COST_TRACE = "7a000000000000000000000000000c02";

test("cost recorded by every call is summed; by some but not all, not available, the call without it named", async () => {
  const rewrite = { name: "rewrite", attributes: llm({ prompt: 40, completion: 8, total: 48, cost: 0.125 }) };
  const both = await rebuilt(openInferenceTrace(COST_TRACE, [chain, rewrite, { name: "answer", attributes: llm({ prompt: 900, completion: 60, total: 960, cost: 0.5 }) }]));
  assert.deepEqual(both.sums, [940, 68, 1008, 0.625]);
  assert.deepEqual(both.notes, []);

  const one = await rebuilt(openInferenceTrace(COST_TRACE, [chain, rewrite, { name: "answer", attributes: llm({ prompt: 900, completion: 60, total: 960 }) }]));
  assert.deepEqual(one.sums, [940, 68, 1008, null], "not 0.125, the rewrite's cost alone");
  assert.deepEqual(one.notes.map((note) => note.span_id), [`${COST_TRACE.slice(0, 14)}03`]);
  assert.match(one.notes[0]!.error, /^this LLM call recorded no cost, while another of the request's LLM calls did; the request's cost is summed over its LLM calls, so it is not available,/);
});

const NEST_TRACE = "7a000000000000000000000000000c03";

test("a nest of LLM spans is one call, known from its innermost span; a nest with no counts on any span is a call not recorded", async () => {
  const firstNest = [
    { name: "OpenAILike.predict", attributes: llm(null) },
    { name: "OpenAILike.chat", parent: 1, attributes: llm(null) },
    { name: "OpenAILike.chat", parent: 2, attributes: llm({ prompt: 100, completion: 20, total: 120 }) },
  ];
  const alone = await rebuilt(openInferenceTrace(NEST_TRACE, [chain, ...firstNest]));
  assert.deepEqual(alone.sums, [100, 20, 120, null], "the wrappers are no calls left out");
  assert.deepEqual(alone.notes, []);

  const withUnrecorded = await rebuilt(openInferenceTrace(NEST_TRACE, [chain, ...firstNest, { name: "OpenAILike.predict", attributes: llm(null) }, { name: "OpenAILike.chat", parent: 4, attributes: llm(null) }]));
  assert.deepEqual(withUnrecorded.sums, [null, null, null, null], "not 100 / 20 / 120, the first call's alone");
  assert.deepEqual(withUnrecorded.notes.map((note) => note.span_id), [`${NEST_TRACE.slice(0, 14)}05`], "the second nest's outermost span, once");
  assert.match(withUnrecorded.notes[0]!.error, /^this LLM call recorded no input_tokens, output_tokens or total_tokens \(nor did any generation span inside it\), while another/);
});

const TWO_LEVELS_TRACE = "7a000000000000000000000000000c04";

test("a nest whose wrapper and inner span both record the call's usage counts it once", async () => {
  const rewrite = { name: "rewrite", attributes: llm({ prompt: 40, completion: 8, total: 48, cost: 0.125 }) };
  const answer = { prompt: 900, completion: 60, total: 960, cost: 0.5 };
  const langChain = await rebuilt(openInferenceTrace(TWO_LEVELS_TRACE, [chain, rewrite, { name: "ChatOpenAI", attributes: llm(answer) }, { name: "ChatCompletion", parent: 2, attributes: llm(answer) }]));
  assert.deepEqual(langChain.sums, [940, 68, 1008, 0.625], "not 1840 / 128 / 1968 and 1.125: the answer's call counted twice");
  assert.deepEqual(langChain.notes, []);

  const llamaIndex = await rebuilt(
    openInferenceTrace(TWO_LEVELS_TRACE, [
      chain,
      { name: "OpenAILike.predict", attributes: llm(null) },
      { name: "OpenAILike.chat", parent: 1, attributes: llm({ prompt: 100, completion: 20, total: 120 }) },
      { name: "OpenAILike.chat", parent: 2, attributes: llm({ prompt: 100, completion: 20, total: 120 }) },
    ]),
  );
  assert.deepEqual(llamaIndex.sums, [100, 20, 120, null], "not 200 / 40 / 240");
  assert.deepEqual(llamaIndex.notes, []);

  const wrapperTotal = await rebuilt(
    openInferenceTrace(TWO_LEVELS_TRACE, [
      chain,
      { name: "ChatOpenAI", attributes: llm({ prompt: 300, completion: 30, total: 330, cost: 0.3 }) },
      { name: "ChatCompletion", parent: 1, attributes: llm({ prompt: 100, completion: 10, total: 110, cost: 0.1 }) },
      { name: "ChatCompletion", parent: 1, attributes: llm({ prompt: 200, completion: 20, total: 220, cost: 0.2 }) },
    ]),
  );
  assert.deepEqual(wrapperTotal.sums, [300, 30, 330, 0.3], "not 600 / 60 / 660 and 0.6; 0.1 + 0.2 inside is the wrapper's 0.3");
  assert.deepEqual(wrapperTotal.notes, [], "costs that differ in their last binary digits are no disagreement");
});

const DISAGREEING_TRACE = "7a000000000000000000000000000c05";

test("a nest whose levels record different usage: the larger, counted once, with a note on the wrapper", async () => {
  const rewrite = { name: "rewrite", attributes: llm({ prompt: 40, completion: 8, total: 48 }) };
  const wrapperMore = await rebuilt(
    openInferenceTrace(DISAGREEING_TRACE, [
      chain,
      rewrite,
      { name: "ChatOpenAI", attributes: llm({ prompt: 120, completion: 20, total: 140 }) },
      { name: "ChatCompletion", parent: 2, attributes: llm({ prompt: 100, completion: 20, total: 120 }) },
    ]),
  );
  assert.deepEqual(wrapperMore.sums, [160, 28, 188, null], "the wrapper's 120 / 140: not 260 / 48 / 308 (both added), nor 140 / 28 / 168 (the inner's, less than the wrapper records)");
  assert.deepEqual(wrapperMore.notes.map((note) => [note.span_id, note.kind]), [[`${DISAGREEING_TRACE.slice(0, 14)}03`, "unreadable_value"]], "on the wrapper, once");
  assert.match(
    wrapperMore.notes[0]!.error,
    /^this LLM span and the LLM spans inside it \(one call's spans, or calls inside one wrapper\) recorded different usage — input_tokens: 120 on this span, 100 inside it in all; total_tokens: 140 on this span, 120 inside it in all\. The request's sums count them once, at the larger \(input_tokens 120 and total_tokens 140\)/,
  );

  const retry = await rebuilt(
    openInferenceTrace(DISAGREEING_TRACE, [
      chain,
      rewrite,
      { name: "ChatOpenAI", attributes: llm({ prompt: 100, completion: 20, total: 120 }) },
      { name: "ChatCompletion", parent: 2, attributes: llm({ prompt: 60, completion: 10, total: 70 }) },
      { name: "ChatCompletion", parent: 2, attributes: llm({ prompt: 100, completion: 20, total: 120 }) },
    ]),
  );
  assert.deepEqual(retry.sums, [200, 38, 238, null], "the attempts' 160 / 30 / 190: not 300 / 58 / 358 (all added), nor 140 / 28 / 168 (the wrapper's, one attempt)");
  assert.deepEqual(retry.notes.map((note) => note.span_id), [`${DISAGREEING_TRACE.slice(0, 14)}03`]);
  assert.match(retry.notes[0]!.error, /recorded different usage — input_tokens: 100 on this span, 160 inside it in all; output_tokens: 20 on this span, 30 inside it in all; total_tokens: 120 on this span, 190 inside it in all\./);
});

/**
 * Counts beyond 2^53 − 1 (out-of-range-values.ts LARGEST_MEASUREMENT): a wrapper with no counts around two calls of
 * 1e308 input tokens each, beside the rewrite. Read as sent, the calls inside it added up to Infinity (and, over a
 * range of requests, the dashboards' means went beyond the largest number and read "no data"): each such count is not
 * available, with a note on its call, and the request's input and total tokens are not available either, rather than
 * a sum that leaves the calls out; the output 8 + 2 + 3 is still summed.
 */
const OVERFLOWING_TRACE = "7a000000000000000000000000000e08";
/** A call of 1e308 input tokens, as text: OTLP's intValue holds 64 bits, and a large double is whole, so the fixture's encoder would write it as one. */
const huge = (completion: number): Attributes => ({ ...llm(null), "llm.token_count.prompt": "1e308", "llm.token_count.completion": completion, "llm.token_count.total": "1e308" });

test("a nest whose calls inside state counts beyond 2^53 − 1: those counts not available, with a note on each call, and the request's sums of them not available", async () => {
  const overflowing = await rebuilt(
    openInferenceTrace(OVERFLOWING_TRACE, [
      chain,
      { name: "rewrite", attributes: llm({ prompt: 40, completion: 8, total: 48 }) },
      { name: "predict", attributes: llm(null) },
      { name: "chat", parent: 2, attributes: huge(2) },
      { name: "chat", parent: 2, attributes: huge(3) },
    ]),
  );
  assert.deepEqual(overflowing.sums, [null, 13, null, null]);
  const calls = [`${OVERFLOWING_TRACE.slice(0, 14)}04`, `${OVERFLOWING_TRACE.slice(0, 14)}05`];
  assert.deepEqual(overflowing.notes.map((note) => [note.span_id, note.kind]), calls.map((call) => [call, "unreadable_value"]), "on each call");
  for (const note of overflowing.notes) assert.match(note.error, /^this span's input_tokens and total_tokens are not known \(this span's other notes say why\)/);
});

/**
 * Calls whose usage is each within 2^53 − 1 but adds up beyond it: 6e15 input tokens and a cost of 5e15 on each of
 * two calls make 1.2e16 and 1e16, no measurement (core/largest-measurement.ts), so the request's input tokens, total
 * and cost are not available, with a note on the last call naming the values; the output 10 + 10 is summed. Inside a
 * nest the same, noted on the wrapper whose inside first went beyond. Before, the request stored 1.2e16 with no
 * note, which the stores count not applicable while `ragscope eval` and `gate` averaged it.
 */
const BEYOND_BOUND_TRACE = "7a000000000000000000000000000e09";
const large = (completion: number, cost?: number) => llm({ prompt: 6e15, completion, total: 6e15 + completion, ...(cost === undefined ? {} : { cost }) });

test("calls whose usage adds up beyond 2^53 − 1, each within it: the request's sums of it not available, with a note naming the values", async () => {
  const beside = await rebuilt(openInferenceTrace(BEYOND_BOUND_TRACE, [chain, { name: "answer", attributes: large(10, 5e15) }, { name: "answer", attributes: large(10, 5e15) }]));
  assert.deepEqual(beside.sums, [null, 20, null, null], "not 12000000000000000 input tokens and a cost of 1e16");
  assert.deepEqual(beside.notes.map((note) => [note.span_id, note.kind]), [[`${BEYOND_BOUND_TRACE.slice(0, 14)}03`, "unreadable_value"]], "on the last call");
  assert.equal(
    beside.notes[0]!.error,
    "adding up the recorded usage goes beyond what ragscope reads as a measurement — " +
      "input_tokens: 6000000000000000 + 6000000000000000 over the request's LLM calls, this one the last, which makes 12000000000000000, beyond 9007199254740991 (2^53 − 1), the most ragscope reads as a token count; " +
      "total_tokens: 6000000000000010 + 6000000000000010 over the request's LLM calls, this one the last, which makes 12000000000000020, beyond 9007199254740991 (2^53 − 1), the most ragscope reads as a token count; " +
      "cost: 5000000000000000 + 5000000000000000 over the request's LLM calls, this one the last, which makes 10000000000000000, beyond 9007199254740991 (2^53 − 1), the most ragscope reads as a cost. " +
      "The request's input_tokens, total_tokens and cost are not available (null): no request measures that much (a unit or encoding mistake), " +
      "and such sums would add up beyond the largest number the dashboards' means can hold; the rest of the request is read as recorded",
  );

  const nested = await rebuilt(
    openInferenceTrace(BEYOND_BOUND_TRACE, [
      chain,
      { name: "rewrite", attributes: llm({ prompt: 40, completion: 8, total: 48 }) },
      { name: "predict", attributes: llm(null) },
      { name: "chat", parent: 2, attributes: large(2) },
      { name: "chat", parent: 2, attributes: large(3) },
    ]),
  );
  assert.deepEqual(nested.sums, [null, 13, null, null]);
  assert.deepEqual(nested.notes.map((note) => note.span_id), [`${BEYOND_BOUND_TRACE.slice(0, 14)}03`], "on the wrapper, once");
  assert.match(nested.notes[0]!.error, /^adding up the recorded usage goes beyond what ragscope reads as a measurement — input_tokens: 6000000000000000 \+ 6000000000000000 over the LLM spans inside this LLM span, which makes 12000000000000000, beyond 9007199254740991/);
});

/**
 * GenAI agents (semantic conventions `invoke_agent`), their usage the calls they made (otel-genai-mapper.ts readAgent),
 * each beside or around the GenAI rewrite (40 + 8) and answer (900 + 60) calls, all on their operation names:
 * - a remote agent (a CLIENT span) beside the calls, 500 + 50: its calls ran where no span of this trace records them,
 *   so its usage is their only record → 1440 / 118 / 1558 (before: 940 / 68 / 1008, the agent left out);
 * - a local agent around the two calls, recording their 940 + 68: one nest, counted once → 940 / 68 / 1008, no note
 *   (not 1880 / 136 / 2016);
 * - that agent recording more than the calls inside it, 1000 + 70: a call of its own no span records → the larger,
 *   1000 / 70 / 1070, with a note on the agent naming both levels.
 */
const AGENT_TRACE = "7a000000000000000000000000000d07";
const genAiAgent = (input: number, output: number, kind?: number): PythonSpan => ({
  name: "invoke_agent leave_agent",
  ...(kind === undefined ? {} : { kind }),
  attributes: [
    ["gen_ai.operation.name", "invoke_agent"],
    ["gen_ai.provider.name", "openai"],
    ["gen_ai.agent.name", "leave_agent"],
    ["gen_ai.usage.input_tokens", input],
    ["gen_ai.usage.output_tokens", output],
  ],
});

test("an agent's usage is its calls': counted alone for a remote agent whose calls the trace does not hold, once with the calls inside it, the larger when the two disagree", async () => {
  const remote = await rebuilt(pythonSdkTrace(AGENT_TRACE, [GENAI_WORKFLOW_SPAN, GENAI_REWRITE_CALL, genAiAnswerCall("chat gpt-4o-mini", 0), genAiAgent(500, 50, 3)]));
  assert.deepEqual(remote.sums, [1440, 118, 1558, null], "the remote agent's 500 / 50 are usage no other span records: not 940 / 68 / 1008");
  assert.deepEqual(remote.notes, []);

  const around = await rebuilt(pythonSdkTrace(AGENT_TRACE, [GENAI_WORKFLOW_SPAN, genAiAgent(940, 68, 1), { ...GENAI_REWRITE_CALL, parent: 1 }, { ...genAiAnswerCall("chat gpt-4o-mini", 0), parent: 1 }]));
  assert.deepEqual(around.sums, [940, 68, 1008, null], "once: not 1880 / 136 / 2016");
  assert.deepEqual(around.notes, []);

  const more = await rebuilt(pythonSdkTrace(AGENT_TRACE, [GENAI_WORKFLOW_SPAN, genAiAgent(1000, 70, 1), { ...GENAI_REWRITE_CALL, parent: 1 }, { ...genAiAnswerCall("chat gpt-4o-mini", 0), parent: 1 }]));
  assert.deepEqual(more.sums, [1000, 70, 1070, null]);
  assert.deepEqual(more.notes.map((note) => note.span_id), [pythonSpanId(AGENT_TRACE, 1)]);
  assert.match(
    more.notes[0]!.error,
    /^this agent span \(it records the usage of the calls it made\) and the LLM spans inside it \(one call's spans, or calls inside one wrapper\) recorded different usage — input_tokens: 1000 on this span, 940 inside it in all; output_tokens: 70 on this span, 68 inside it in all; total_tokens: 1070 on this span, 1008 inside it in all\./,
  );
});
