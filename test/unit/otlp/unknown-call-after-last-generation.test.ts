/**
 * The request's answer and model when an LLM call whose kind is not known ended after the last known generation
 * (collector/06-rebuild/last-generation.ts). The unknown call is an OpenLLMetry call whose Python SDK evicted its
 * `llm.request.type` and whose name (`replicate.run`) and what is left (token counts, response model, no completion)
 * cannot tell a generation from an embedding (collector/04-normalize/llm-call-without-request-type.ts). It may have
 * been the request's last generation: the answer and model of the generation before it are then a neighbour's. It is
 * read by the rule that chose the answer — the generation that ENDED last — not by when it started.
 *
 * The spans are built as the OTel Python SDK sends them (test/support/python-evicted-llm-trace.ts, each call's times
 * given: `runs`, ms after the root started) and evaluated through the collector's consumer path
 * (test/golden/replay-golden.ts).
 *
 * Worked by hand, the known generation being the query rewrite (`openai.chat`, model gpt-4o-mini-2024-07-18,
 * completion "annual leave carry over") or the answer's call (same model, completion "Up to 5 days carry over."):
 * - workflow without output, rewrite 10 → 300 ms, unknown call 320 → 980 ms: output "annual leave carry over" (the
 *   rewrite's output shown as the answer) and model gpt-4o-mini-2024-07-18 would be a neighbour's; both null, a note
 *   on the unknown call;
 * - the same, the workflow carrying its output "Up to 5 days carry over.": the output stays the workflow's, the model
 *   null (not the rewrite's), the note saying the answer is the request's own;
 * - workflow without output, unknown call 10 → 300 ms, answer's call 320 → 980 ms: the answer's call ended after,
 *   whatever the unknown one was — output "Up to 5 days carry over.", model gpt-4o-mini-2024-07-18, no such note;
 * - unknown call 10 → 990 ms, answer's call 20 → 600 ms beside it: it started first but ended last, and may have been
 *   the last generation — null, a note (before: the answer's call's output and model, read by start time);
 * - answer's call 10 → 900 ms, unknown call 20 → 100 ms beside it (not inside it): it started later but ended long
 *   before, so it was not the last — the answer's call's output and model (before: both null, read by start time);
 * - rewrite 10 → 300 ms, unknown call 100 → 300 ms: ended in the same millisecond, which was last is not known —
 *   null, "at the same instant"; on a millisecond clock an answer's call 50 → 50 ms (a cache hit) after an unknown
 *   call 10 → 50 ms ran after it and stands, and an unknown call 50 → 50 ms after a rewrite 10 → 50 ms may be last;
 * - a rewrite and the answer's call both ending at 300 ms, overlapping (which answered is not known), and the unknown
 *   call ending at 500 ms: a note naming both, besides theirs; ending at 200 ms, it adds nothing;
 * - the unknown call inside the last generation's span (an OpenInference LLM span, a framework's wrapper, around the
 *   provider's call): the wrapper returned after the call ended — its output "Up to 5 days carry over." and model
 *   gpt-4o-mini stand;
 * - the answer's call inside the unknown call's span (a framework's LLM span whose request type was evicted, around
 *   the provider's call), 20 → 980 ms inside 10 → 990 ms, or ending with it at 980 ms: the one call at two layers —
 *   the answer's call's output and model stand, no note.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { replayTrace } from "../../golden/replay-golden.js";
import { answerCall, EVICTED_UP_TO_RESPONSE, pythonSdkTrace, pythonSpanId, REWRITE_CALL, RUNS_IN_TURN, WORKFLOW_SPAN, type PythonSpan } from "../../support/python-evicted-llm-trace.js";

const TRACE_ID = "7a000000000000000000000000000c01";
const spanId = (index: number) => pythonSpanId(TRACE_ID, index);

const UNKNOWN_CALL = answerCall("replicate.run", EVICTED_UP_TO_RESPONSE, { completions: false });
const WORKFLOW_WITHOUT_OUTPUT: PythonSpan = { ...WORKFLOW_SPAN, attributes: WORKFLOW_SPAN.attributes.filter(([key]) => key !== "traceloop.entity.output") };
const ANSWER_CALL = answerCall("openai.chat", 0);
const MAY_BE_LAST = /may have been the request's last generation/;

/** `span`, run from `fromMs` to `toMs` after the root started. */
const running = (span: PythonSpan, fromMs: number, toMs: number): PythonSpan => ({ ...span, runs: { fromMs, toMs } });

type OtlpSpan = { spanId: string; parentSpanId: string };

/** The trace's Case Result, after `reshape` changed its OTLP spans (a parent). */
async function replayed(spans: readonly PythonSpan[], reshape: (otlpSpans: OtlpSpan[]) => void = () => {}) {
  const body = JSON.parse(pythonSdkTrace(TRACE_ID, spans));
  reshape(body.resourceSpans[0].scopeSpans[0].spans);
  const [evaluation, ...others] = await replayTrace(JSON.stringify(body), []);
  assert.equal(others.length, 0, "one trace, one Case Result");
  const observation = evaluation!.caseResult.rag_observation;
  return {
    output: evaluation!.caseResult.output,
    model: observation.generation.model,
    notes: observation.malformed_attributes.filter((note) => note.attribute === "generation" && MAY_BE_LAST.test(note.error)),
  };
}

test("an unknown call after the last generation, no request output: the answer and model are not the earlier call's", async () => {
  const { output, model, notes } = await replayed([WORKFLOW_WITHOUT_OUTPUT, { ...REWRITE_CALL, runs: RUNS_IN_TURN.rewrite }, { ...UNKNOWN_CALL, runs: RUNS_IN_TURN.answer }]);
  assert.equal(output, null, "not the rewrite's output, annual leave carry over");
  assert.equal(model, null, "not the rewrite's model");
  assert.deepEqual(notes.map((note) => [note.span_id, note.span_name, note.kind]), [[spanId(2), "replicate.run", "unreadable_value"]]);
  assert.match(
    notes[0]!.error,
    new RegExp(
      `^this LLM call may have been a generation \\(its kind is not known: this span's other notes say why\\), and it ended after the request's last known generation, "openai\\.chat" \\(span ${spanId(1)}\\): ` +
        "it may have been the request's last generation, so what the last generation decides — its answer \\(the request span carries none\\), model, abstained and time_to_first_token_ms — is not available rather than taken from the known one$",
    ),
  );
});

test("an unknown call after the last generation, the request carrying its output: the answer is the request's, the model not available", async () => {
  const { output, model, notes } = await replayed([WORKFLOW_SPAN, { ...REWRITE_CALL, runs: RUNS_IN_TURN.rewrite }, { ...UNKNOWN_CALL, runs: RUNS_IN_TURN.answer }]);
  assert.equal(output, "Up to 5 days carry over.", "the workflow's own output wins");
  assert.equal(model, null, "not the rewrite's model");
  assert.equal(notes.length, 1, JSON.stringify(notes));
  assert.match(notes[0]!.error, /what the last generation decides — its model, abstained and time_to_first_token_ms — is not available rather than taken from the known one; the answer is the request's own output, which its span carries$/);
});

test("an unknown call before the last generation: the answer and model are that generation's", async () => {
  const { output, model, notes } = await replayed([WORKFLOW_WITHOUT_OUTPUT, { ...UNKNOWN_CALL, runs: RUNS_IN_TURN.rewrite }, { ...ANSWER_CALL, runs: RUNS_IN_TURN.answer }]);
  assert.equal(output, "Up to 5 days carry over.");
  assert.equal(model, "gpt-4o-mini-2024-07-18");
  assert.deepEqual(notes, []);
});

test("an unknown call that started before the answer's call but ended after it: it may have been the last, the answer and model are not available", async () => {
  const { output, model, notes } = await replayed([WORKFLOW_WITHOUT_OUTPUT, running(UNKNOWN_CALL, 10, 990), running(ANSWER_CALL, 20, 600)]);
  assert.equal(output, null, "not the answer's call's: the unknown call ended after it");
  assert.equal(model, null);
  assert.deepEqual(notes.map((note) => note.span_id), [spanId(1)]);
  assert.match(notes[0]!.error, new RegExp(`and it ended after the request's last known generation, "openai\\.chat" \\(span ${spanId(2)}\\): it may have been the request's last generation`));
});

test("an unknown call that started after the answer's call but ended long before it, beside it: not the last, the answer and model stand", async () => {
  const { output, model, notes } = await replayed([WORKFLOW_WITHOUT_OUTPUT, running(ANSWER_CALL, 10, 900), running(UNKNOWN_CALL, 20, 100)]);
  assert.equal(output, "Up to 5 days carry over.", "the answer's call ended last, whatever the unknown call was");
  assert.equal(model, "gpt-4o-mini-2024-07-18");
  assert.deepEqual(notes, []);
});

test("an unknown call that ended in the same millisecond as the last generation: which was last is not known, unless one ran after the other", async () => {
  const together = await replayed([WORKFLOW_WITHOUT_OUTPUT, running(REWRITE_CALL, 10, 300), running(UNKNOWN_CALL, 100, 300)]);
  assert.deepEqual([together.output, together.model], [null, null]);
  assert.match(together.notes[0]?.error ?? "", /and it ended at the same instant as the request's last known generation, "openai\.chat"/);
  // A cache hit (50 → 50 ms) started when the unknown call (10 → 50 ms) had ended: it ran after it, and gave the answer.
  const cacheHit = await replayed([WORKFLOW_WITHOUT_OUTPUT, running(UNKNOWN_CALL, 10, 50), running(ANSWER_CALL, 50, 50)]);
  assert.deepEqual([cacheHit.output, cacheHit.model, cacheHit.notes], ["Up to 5 days carry over.", "gpt-4o-mini-2024-07-18", []]);
  // The other way round, the unknown call ran after the rewrite: it may have been the last.
  const unknownAfter = await replayed([WORKFLOW_WITHOUT_OUTPUT, running(REWRITE_CALL, 10, 50), running(UNKNOWN_CALL, 50, 50)]);
  assert.deepEqual([unknownAfter.output, unknownAfter.model, unknownAfter.notes.length], [null, null, 1]);
});

test("generations ending together, which answered not known, and an unknown call that ended after them: both notes, none of their values", async () => {
  const later = await replayed([WORKFLOW_WITHOUT_OUTPUT, running(REWRITE_CALL, 10, 300), running(ANSWER_CALL, 20, 300), running(UNKNOWN_CALL, 30, 500)]);
  assert.deepEqual([later.output, later.model], [null, null]);
  assert.deepEqual(later.notes.map((note) => note.span_id), [spanId(3)]);
  assert.match(later.notes[0]!.error, new RegExp(`ended after the request's last known generations, "openai\\.chat" \\(span ${spanId(1)}\\) and "openai\\.chat" \\(span ${spanId(2)}\\), of which one gave the answer:`));
  // Ended before them, the unknown call adds nothing: the two still tie.
  const earlier = await replayed([WORKFLOW_WITHOUT_OUTPUT, running(REWRITE_CALL, 10, 300), running(ANSWER_CALL, 20, 300), running(UNKNOWN_CALL, 30, 200)]);
  assert.deepEqual([earlier.output, earlier.model, earlier.notes], [null, null, []]);
});

/** A framework's LLM span (OpenInference's convention) that recorded the call it wraps. */
const WRAPPING_GENERATION: PythonSpan = {
  name: "OpenAI.chat",
  attributes: [
    ["openinference.span.kind", "LLM"],
    ["llm.model_name", "gpt-4o-mini"],
    ["output.value", "Up to 5 days carry over."],
  ],
};

test("an unknown call inside the last generation's span is part of it: that generation's answer and model stand", async () => {
  const { output, model, notes } = await replayed([WORKFLOW_WITHOUT_OUTPUT, WRAPPING_GENERATION, UNKNOWN_CALL], (spans) => {
    spans[2]!.parentSpanId = spans[1]!.spanId;
  });
  assert.equal(output, "Up to 5 days carry over.");
  assert.equal(model, "gpt-4o-mini");
  assert.deepEqual(notes, []);
});

test("the answer's call inside an unknown call's span is the same call one layer down: its answer and model stand", async () => {
  for (const endMs of [990, 980]) {
    const { output, model, notes } = await replayed([WORKFLOW_WITHOUT_OUTPUT, running(UNKNOWN_CALL, 10, endMs), running(ANSWER_CALL, 20, 980)], (spans) => {
      spans[2]!.parentSpanId = spans[1]!.spanId;
    });
    assert.equal(output, "Up to 5 days carry over.", `the unknown call ending at ${endMs} ms`);
    assert.equal(model, "gpt-4o-mini-2024-07-18");
    assert.deepEqual(notes, []);
  }
});
