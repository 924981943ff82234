/**
 * An OpenLLMetry LLM call whose SDK evicted its `llm.request.type`: the OTel Python SDK evicts the OLDEST attribute
 * past its count limit, and the instrumentation passes the request type when it starts the span, so an LLM span that
 * lost anything lost it first (collector/04-normalize/llm-call-without-request-type.ts). Before, such a span was read
 * by no mapper: the generation went unseen, and the request's token sums left its tokens out — read LOWER than what
 * the request used, as a plain number.
 *
 * The spans are built in the order the openai instrumentation sets their attributes, the oldest removed and counted
 * in `dropped_attributes_count`, under `telemetry.sdk.language = python` (test/support/python-evicted-llm-trace.ts),
 * and evaluated through the collector's consumer path (test/golden/replay-golden.ts).
 *
 * The request, worked by hand: a query rewrite that lost nothing (40 input + 8 output = 48 tokens, `llm.usage.total_tokens`
 * 48) and the answer's call (900 + 60 = 960). Counted together: input 940, output 68, total 1008. The rewrite alone (the
 * answer's call left out): 40, 8, 48 — what the sums read before. Neither call carries a cost (OpenLLMetry records
 * none), so the cost is not available in every case.
 * - the answer's call (`openai.chat`) evicted up to its response: still the generation by its name, 940 / 68 / 1008;
 * - evicted down to its completions: the generation, its token counts gone, so the sums are not available (null);
 * - a name this reader does not list (`replicate.run`: Replicate runs text and embedding models alike) with
 *   completions left: the generation (no embedding call writes completions), 940 / 68 / 1008;
 * - that name without completions: a generation or an embedding, not known — every usage sum null, the span named
 *   (and, ended after the rewrite, the request's model not the rewrite's: unknown-call-after-last-generation.test.ts);
 * - `openai.embeddings` evicted the same way: an embedding, no stage, as with its request type: 40 / 8 / 48;
 * - a span that lost nothing, or whose SDK keeps the first attributes (the JS SDK), carrying no request type, is no
 *   LLM call: 40 / 8 / 48 as before.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { replayTrace } from "../../golden/replay-golden.js";
import { answerCall, EVICTED_UP_TO_RESPONSE, pythonSdkTrace, pythonSpanId, REWRITE_CALL, RUNS_IN_TURN, WORKFLOW_SPAN, type PythonSpan } from "../../support/python-evicted-llm-trace.js";

const TRACE_ID = "7a000000000000000000000000000b01";
const ANSWER_SPAN_ID = pythonSpanId(TRACE_ID, 2);

/** The request, the rewrite then the answer's call, one after the other. */
async function replayed(answer: PythonSpan, language?: string | null) {
  const spans = [WORKFLOW_SPAN, { ...REWRITE_CALL, runs: RUNS_IN_TURN.rewrite }, { ...answer, runs: RUNS_IN_TURN.answer }];
  const [evaluation, ...others] = await replayTrace(pythonSdkTrace(TRACE_ID, spans, { language }), []);
  assert.equal(others.length, 0, "one trace, one Case Result");
  const observation = evaluation!.caseResult.rag_observation;
  const usage = observation.generation;
  return {
    sums: [usage.input_tokens, usage.output_tokens, usage.total_tokens, usage.cost],
    notes: observation.malformed_attributes.filter((note) => note.kind === "unreadable_value" && note.span_id === ANSWER_SPAN_ID),
    generations: observation.stage_timings.filter((timing) => timing.stage === "generate").length,
    output: evaluation!.caseResult.output,
  };
}

const BOTH_CALLS = [940, 68, 1008, null];
const REWRITE_ONLY = [40, 8, 48, null];
const EVICTED_FIRST = /^is absent, and the span's SDK dropped attributes past its count limit; the span's SDK is "python" \(telemetry\.sdk\.language\), and an SDK that evicts the oldest \(Python's\) drops the request type first, set when the span started: /;

test("the whole request: both calls counted, nothing named", async () => {
  const { sums, notes, generations } = await replayed(answerCall("openai.chat", 0));
  assert.deepEqual(sums, BOTH_CALLS);
  assert.equal(generations, 2);
  assert.deepEqual(notes, []);
});

test("openai.chat whose Python SDK evicted its request type with its request: still the generation, its tokens counted", async () => {
  const { sums, notes, generations, output } = await replayed(answerCall("openai.chat", EVICTED_UP_TO_RESPONSE));
  assert.deepEqual(sums, BOTH_CALLS, "left out, the sums read 40 / 8 / 48: the rewrite's alone");
  assert.equal(generations, 2, "the answer's call is a generation stage");
  assert.equal(output, "Up to 5 days carry over.", "the workflow's answer");
  assert.equal(notes[0]?.attribute, "llm.request.type", JSON.stringify(notes));
  assert.match(notes[0]!.error, EVICTED_FIRST);
  assert.match(notes[0]!.error, /the span is still the generation \(its name, openai\.chat, is the one OpenLLMetry gives a chat or completion call\), read from what it still carries\. The span lost 10 attributes to its SDK's limit/);
  assert.ok(!notes.some((note) => note.attribute === "generation"), "no usage sum is left not available");
});

test("openai.chat evicted down to its completions: the generation, its token counts gone, so the request's token sums are not available, named", async () => {
  const answer = answerCall("openai.chat", 0);
  const { sums, notes, generations } = await replayed({ ...answer, evicted: answer.attributes.length - 3 });
  assert.deepEqual(sums, [null, null, null, null], "not 40 / 8 / 48, the rewrite's alone");
  assert.equal(generations, 2);
  const typeNote = notes.find((note) => note.attribute === "llm.request.type");
  assert.match(typeNote?.error ?? "", /; it carries no input_tokens, output_tokens or total_tokens count \(lost with the other attributes, or never recorded: not known which\), so the request's input_tokens, output_tokens and total_tokens are not available rather than a sum that leaves this call out\./);
  const sumNote = notes.find((note) => note.attribute === "generation");
  assert.match(sumNote?.error ?? "", /^this span's input_tokens, output_tokens and total_tokens are not known \(this span's other notes say why\), and the request's are summed over its LLM calls: the request's input_tokens, output_tokens and total_tokens are not available/);
});

test("a name not listed, completions left: the generation (no embedding call writes completions), its tokens counted", async () => {
  const { sums, notes, generations } = await replayed(answerCall("replicate.run", EVICTED_UP_TO_RESPONSE));
  assert.deepEqual(sums, BOTH_CALLS);
  assert.equal(generations, 2);
  assert.match(notes.find((note) => note.attribute === "llm.request.type")?.error ?? "", /the span is still the generation \(it carries completions \(gen_ai\.completion\.N\), which no embedding call writes\)/);
});

test("a name not listed, no completions: a generation or an embedding, not known — every usage sum not available, the span named", async () => {
  const { sums, notes, generations } = await replayed(answerCall("replicate.run", EVICTED_UP_TO_RESPONSE, { completions: false }));
  assert.deepEqual(sums, [null, null, null, null], "not 40 / 8 / 48: the call's 960 tokens may be the answer's");
  assert.equal(generations, 1, "no stage: not read as a generation");
  // The second note on generation: ended after the rewrite, the call may have been the last generation, so the model
  // is not the rewrite's (test/unit/otlp/unknown-call-after-last-generation.test.ts).
  assert.deepEqual(notes.map((note) => note.attribute), ["llm.request.type", "generation", "generation"]);
  assert.match(notes[0]!.error, EVICTED_FIRST);
  assert.match(
    notes[0]!.error,
    /the span carries what an OpenLLMetry LLM call's response writes \(gen_ai\.usage\.input_tokens, gen_ai\.usage\.output_tokens, llm\.usage\.total_tokens, gen_ai\.response\.model\), but a generation and an embedding both write it, and its name, "replicate\.run", does not say which/,
  );
  assert.match(notes[1]!.error, /^this span's input_tokens, output_tokens, total_tokens and cost are not known .*reads lower than what the request used$/);
});

test("a resource that does not name its SDK's language is read as if its SDK could have evicted the oldest", async () => {
  const { sums, notes } = await replayed(answerCall("replicate.run", EVICTED_UP_TO_RESPONSE, { completions: false }), null);
  assert.deepEqual(sums, [null, null, null, null]);
  assert.match(notes[0]?.error ?? "", /the span's resource does not name its SDK's language \(no telemetry\.sdk\.language\)/);
});

/** openai.embeddings in the order the instrumentation sets its attributes (no completions, no output tokens). */
const embeddingCall: PythonSpan = {
  name: "openai.embeddings",
  evicted: 4,
  attributes: [
    ["llm.request.type", "embedding"],
    ["gen_ai.system", "openai"],
    ["gen_ai.request.model", "text-embedding-3-small"],
    ["gen_ai.prompt.0.content", "annual leave carry over"],
    ["gen_ai.openai.api_base", "https://api.openai.com/v1/"],
    ["gen_ai.response.model", "text-embedding-3-small"],
    ["llm.usage.total_tokens", 5],
    ["gen_ai.usage.input_tokens", 5],
  ],
};

test("openai.embeddings whose request type was evicted: an embedding, no stage, its tokens not the answer's", async () => {
  const { sums, notes, generations } = await replayed(embeddingCall);
  assert.deepEqual(sums, REWRITE_ONLY);
  assert.equal(generations, 1);
  assert.deepEqual(notes, []);
});

test("a span with no request type that lost nothing is no LLM call on what it carries", async () => {
  const answer = answerCall("openai.chat", 0);
  const { sums, notes, generations } = await replayed({ ...answer, attributes: answer.attributes.slice(1) });
  assert.deepEqual(sums, REWRITE_ONLY);
  assert.equal(generations, 1);
  assert.deepEqual(notes, []);
});

test("a span whose SDK keeps the first attributes (the JS SDK's) did not lose its request type to the limit: no LLM call", async () => {
  const { sums, notes, generations } = await replayed(answerCall("openai.chat", EVICTED_UP_TO_RESPONSE), "nodejs");
  assert.deepEqual(sums, REWRITE_ONLY);
  assert.equal(generations, 1);
  assert.deepEqual(notes, []);
});
