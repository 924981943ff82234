/**
 * A GenAI-conventions LLM call whose SDK evicted its `gen_ai.operation.name`: the OTel Python SDK evicts the OLDEST
 * attribute past its count limit, and `opentelemetry-instrumentation-openai-v2` passes the operation name when it
 * starts the span, so a span that lost anything lost it first (collector/04-normalize/genai-call-without-operation-name.ts).
 * Before, the GenAI reader did not see the call: OpenLLMetry's reader of calls without `llm.request.type` took it for
 * one of its own it cannot tell, so a chat's tokens were not counted and the request's sums were all not available,
 * an embedding's too, with a note on an attribute the span never had; with no usage left, the call went unseen.
 *
 * The spans are built in openai-v2's attribute order, the oldest removed and counted in `dropped_attributes_count`,
 * under `telemetry.sdk.language = python` (test/support/python-evicted-genai-trace.ts), and evaluated through the
 * collector's consumer path (test/golden/replay-golden.ts).
 *
 * The request, worked by hand: a rewrite that lost nothing (40 input + 8 output) and the answer's call (900 + 60).
 * GenAI writes no total: each call's is input + output (48, 960). Counted together: 940, 68, 1008; the rewrite alone:
 * 40, 8, 48. GenAI writes no cost: not available in every case.
 * - `chat gpt-4o-mini` evicted up to its response: the generation by its name, 940 / 68 / 1008, its model the
 *   response's;
 * - a streamed chat that recorded no usage, evicted the same way: the generation, no token counts (lost or never
 *   recorded, the span cannot say), so the sums are not available;
 * - `embeddings text-embedding-3-small` evicted the same way: an embedding, no stage: 40 / 8 / 48;
 * - a name that is no operation (`answer`) with `gen_ai.output.messages` left: the generation (no embeddings call
 *   writes output), 940 / 68 / 1008;
 * - that name with only the usage and finish reasons left: generation or embedding, not known — every sum null;
 * - an OpenLLMetry call (`openai.chat`, `llm.usage.total_tokens`) is still OpenLLMetry's, its note on `llm.request.type`;
 * - a span that lost nothing, or whose SDK keeps the first attributes (the JS SDK), with no operation name, is no
 *   LLM call: 40 / 8 / 48.
 * Spans that are no LLM call, their operation name evicted, read as they are with it:
 * - the root `invoke_workflow leave_policy_rag`: still the request, its question and answer from its messages;
 * - an `invoke_agent leave_agent` around the two calls, carrying their usage (940 + 68): no stage, the calls
 *   counted once, 940 / 68 / 1008 (before, OpenLLMetry's reader took it for a call it cannot tell: every sum null);
 * - `retrieval leave_policies`: still the retrieval, its two documents in rank order.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { replayTrace } from "../../golden/replay-golden.js";
import { answerCall, EVICTED_UP_TO_RESPONSE, pythonSdkTrace, pythonSpanId, RUNS_IN_TURN, type PythonSpan } from "../../support/python-evicted-llm-trace.js";
import { GENAI_EVICTED_AGENT_SPAN, GENAI_EVICTED_UP_TO_RESPONSE, GENAI_REWRITE_CALL, GENAI_WORKFLOW_SPAN, genAiAnswerCall, genAiEmbeddingsCall } from "../../support/python-evicted-genai-trace.js";

const TRACE_ID = "7a000000000000000000000000000c01";
const ANSWER_SPAN_ID = pythonSpanId(TRACE_ID, 2);

/** The request, the rewrite then the answer's call, one after the other. */
async function replayed(answer: PythonSpan, language?: string | null) {
  return replayedSpans([GENAI_WORKFLOW_SPAN, { ...GENAI_REWRITE_CALL, runs: RUNS_IN_TURN.rewrite }, { ...answer, runs: RUNS_IN_TURN.answer }], language);
}

async function replayedSpans(spans: readonly PythonSpan[], language?: string | null) {
  const [evaluation, ...others] = await replayTrace(pythonSdkTrace(TRACE_ID, spans, { language }), []);
  assert.equal(others.length, 0, "one trace, one Case Result");
  const observation = evaluation!.caseResult.rag_observation;
  const usage = observation.generation;
  return {
    sums: [usage.input_tokens, usage.output_tokens, usage.total_tokens, usage.cost],
    model: usage.model,
    notes: observation.malformed_attributes.filter((note) => note.kind === "unreadable_value" && note.span_id === ANSWER_SPAN_ID),
    generations: observation.stage_timings.filter((timing) => timing.stage === "generate").length,
    output: evaluation!.caseResult.output,
    query: observation.query,
    retrieved: observation.retrieved_chunks?.map((chunk) => chunk.chunk_id) ?? null,
    notesOn: (index: number) => observation.malformed_attributes.filter((note) => note.kind === "unreadable_value" && note.span_id === pythonSpanId(TRACE_ID, index)),
  };
}

const BOTH_CALLS = [940, 68, 1008, null];
const REWRITE_ONLY = [40, 8, 48, null];
const ALL_NULL = [null, null, null, null];
const EVICTED_FIRST = /^is absent, and the span's SDK dropped attributes past its count limit; the span's SDK is "python" \(telemetry\.sdk\.language\), and an SDK that evicts the oldest \(Python's\) drops the operation name first, set when the span started: /;

test("the whole request: both calls counted, nothing named", async () => {
  const { sums, notes, generations, output } = await replayed(genAiAnswerCall("chat gpt-4o-mini", 0));
  assert.deepEqual(sums, BOTH_CALLS);
  assert.equal(generations, 2);
  assert.deepEqual(notes, []);
  assert.equal(output, "Up to 5 days carry over.");
});

test("chat gpt-4o-mini whose Python SDK evicted its operation name with its request: still the generation, its tokens counted", async () => {
  const { sums, model, notes, generations, output } = await replayed(genAiAnswerCall("chat gpt-4o-mini", GENAI_EVICTED_UP_TO_RESPONSE));
  assert.deepEqual(sums, BOTH_CALLS, "not null: the call read as one that cannot be told");
  assert.equal(generations, 2, "the answer's call is a generation stage");
  assert.equal(model, "gpt-4o-mini-2024-07-18", "the response model it still carries");
  assert.equal(output, "Up to 5 days carry over.", "the workflow's answer");
  // The second note, on gen_ai.completion.0, is the GenAI reader's own: the span carries no answer (openai-v2 records
  // content in events), and it dropped attributes.
  assert.deepEqual(notes.map((note) => note.attribute), ["gen_ai.operation.name", "gen_ai.completion.0"], JSON.stringify(notes));
  assert.ok(!notes.some((note) => note.attribute === "generation"), "no usage sum is left not available");
  assert.match(notes[0]!.error, EVICTED_FIRST);
  assert.match(
    notes[0]!.error,
    /the span is still the generation \(its name, "chat gpt-4o-mini", is the one the GenAI conventions give a chat call \(\{gen_ai\.operation\.name\} \{gen_ai\.request\.model\}\)\), read from what it still carries\. The span lost 6 attributes to its SDK's limit/,
  );
});

test("a streamed chat that recorded no usage, evicted up to its response: the generation, no token counts, so the request's token sums are not available, named", async () => {
  const { sums, notes, generations } = await replayed(genAiAnswerCall("chat gpt-4o-mini", GENAI_EVICTED_UP_TO_RESPONSE, { withoutUsage: true }));
  assert.deepEqual(sums, ALL_NULL, "not 40 / 8 / 48, the rewrite's alone");
  assert.equal(generations, 2);
  assert.match(
    notes.find((note) => note.attribute === "gen_ai.operation.name")?.error ?? "",
    /; it carries no input_tokens, output_tokens or total_tokens count \(lost with the other attributes, or never recorded: not known which\), so the request's input_tokens, output_tokens and total_tokens are not available rather than a sum that leaves this call out\./,
  );
  assert.match(notes.find((note) => note.attribute === "generation")?.error ?? "", /^this span's input_tokens, output_tokens and total_tokens are not known/);
});

test("embeddings whose operation name was evicted: an embedding, no stage, its tokens not the answer's", async () => {
  const { sums, notes, generations } = await replayed(genAiEmbeddingsCall(3));
  assert.deepEqual(sums, REWRITE_ONLY, "not null: an embedding is no call whose kind is unknown");
  assert.equal(generations, 1);
  assert.deepEqual(notes, []);
});

test("a name that is no operation, its output messages left: the generation (no embeddings call writes output), its tokens counted", async () => {
  const output: PythonSpan["attributes"] = [["gen_ai.output.messages", JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: "Up to 5 days." }] }])]];
  const { sums, notes, generations } = await replayed(genAiAnswerCall("answer", GENAI_EVICTED_UP_TO_RESPONSE, { response: output }));
  assert.deepEqual(sums, BOTH_CALLS);
  assert.equal(generations, 2);
  assert.match(notes.find((note) => note.attribute === "gen_ai.operation.name")?.error ?? "", /the span is still the generation \(it carries the model's output \(gen_ai\.output\.messages or a gen_ai\.choice event\), which no embeddings call writes\)/);
});

test("a name that is no operation, only its usage and finish reasons left: a generation or an embedding, not known — every usage sum not available", async () => {
  const { sums, model, notes, generations } = await replayed(genAiAnswerCall("answer", GENAI_EVICTED_UP_TO_RESPONSE));
  assert.deepEqual(sums, ALL_NULL, "not 40 / 8 / 48: the call's 960 tokens may be the answer's");
  assert.equal(generations, 1, "no stage: not read as a generation");
  assert.equal(model, null, "ended after the rewrite, it may have been the last generation: the model is not the rewrite's");
  assert.deepEqual(notes.map((note) => note.attribute), ["gen_ai.operation.name", "generation", "generation"]);
  assert.match(notes[0]!.error, EVICTED_FIRST);
  assert.match(notes[0]!.error, /the span carries what a GenAI call's response writes \(gen_ai\.usage\.input_tokens, gen_ai\.usage\.output_tokens, gen_ai\.response\.model\), but a generation and an embedding both write it, and its name, "answer", is no GenAI operation/);
});

test("an OpenLLMetry call that lost its request type is still OpenLLMetry's, whichever reader is tried first", async () => {
  const { sums, notes, generations } = await replayed(answerCall("openai.chat", EVICTED_UP_TO_RESPONSE));
  assert.deepEqual(sums, BOTH_CALLS);
  assert.equal(generations, 2);
  assert.equal(notes[0]?.attribute, "llm.request.type", JSON.stringify(notes));
  assert.match(notes[0]!.error, /its name, openai\.chat, is the one OpenLLMetry gives a chat or completion call/);
});

test("a span with no operation name that lost nothing is no LLM call on what it carries", async () => {
  const answer = genAiAnswerCall("chat gpt-4o-mini", 0);
  const { sums, notes, generations } = await replayed({ ...answer, attributes: answer.attributes.slice(1) });
  assert.deepEqual(sums, REWRITE_ONLY);
  assert.equal(generations, 1);
  assert.deepEqual(notes, []);
});

test("a span whose SDK keeps the first attributes (the JS SDK's) did not lose its operation name to the limit: no LLM call", async () => {
  const { sums, notes, generations } = await replayed(genAiAnswerCall("chat gpt-4o-mini", GENAI_EVICTED_UP_TO_RESPONSE), "nodejs");
  assert.deepEqual(sums, REWRITE_ONLY);
  assert.equal(generations, 1);
  assert.deepEqual(notes, []);
});

test("the root invoke_workflow span whose Python SDK evicted its operation name is still the request: its question and answer read, the eviction named", async () => {
  const { query, output, sums, notesOn } = await replayedSpans([{ ...GENAI_WORKFLOW_SPAN, evicted: 1 }, GENAI_REWRITE_CALL, genAiAnswerCall("chat gpt-4o-mini", 0)]);
  assert.equal(query, "Can unused annual leave be carried over?");
  assert.equal(output, "Up to 5 days carry over.", "the workflow's answer, not the answer call's (which carries none)");
  assert.deepEqual(sums, BOTH_CALLS);
  const notes = notesOn(0);
  assert.deepEqual(notes.map((note) => note.attribute), ["gen_ai.operation.name"], JSON.stringify(notes));
  assert.match(notes[0]!.error, EVICTED_FIRST);
  assert.match(notes[0]!.error, /the span is still the request \(its name, "invoke_workflow leave_policy_rag", is the one the GenAI conventions give an invoke_workflow span, and it has no parent\), read from what it still carries\. The span lost 1 attribute/);
});

test("an invoke_agent span around the calls that lost its operation name and carries their usage is no stage: the calls are counted once, not every sum made unknown", async () => {
  const { sums, generations, notesOn, output } = await replayedSpans([GENAI_WORKFLOW_SPAN, GENAI_EVICTED_AGENT_SPAN, { ...GENAI_REWRITE_CALL, parent: 1 }, { ...genAiAnswerCall("chat gpt-4o-mini", 0), parent: 1 }]);
  assert.deepEqual(sums, BOTH_CALLS, "not null: an agent span is no call whose kind is unknown; and its usage is its calls', counted once");
  assert.equal(generations, 2);
  assert.deepEqual(notesOn(1), []);
  assert.equal(output, "Up to 5 days carry over.");
});

test("a retrieval span whose Python SDK evicted its operation name is still the retrieval: its documents read in rank order", async () => {
  const retrieval: PythonSpan = {
    name: "retrieval leave_policies",
    evicted: 1,
    attributes: [
      ["gen_ai.operation.name", "retrieval"],
      ["gen_ai.data_source.id", "leave_policies"],
      ["gen_ai.retrieval.query.text", "annual leave carry over"],
      ["gen_ai.retrieval.documents", JSON.stringify([{ id: "policy_7", score: 0.91, content: "Up to 5 days of annual leave carry over." }, { id: "policy_2", score: 0.55, content: "Sick leave does not carry over." }])],
    ],
  };
  const { retrieved, notesOn } = await replayedSpans([GENAI_WORKFLOW_SPAN, retrieval, GENAI_REWRITE_CALL, genAiAnswerCall("chat gpt-4o-mini", 0)]);
  assert.deepEqual(retrieved, ["policy_7", "policy_2"]);
  assert.deepEqual(notesOn(1).map((note) => note.attribute), ["gen_ai.operation.name"]);
  assert.match(notesOn(1)[0]!.error, /the span is still the retrieval \(its name, "retrieval leave_policies", is the one the GenAI conventions give a retrieval span\)/);
});
