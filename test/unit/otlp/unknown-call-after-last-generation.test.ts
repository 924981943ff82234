/**
 * The request's answer and model when an LLM call whose kind is not known started after the last known generation
 * (collector/06-rebuild/last-generation.ts). The unknown call is an OpenLLMetry call whose Python SDK evicted its
 * `llm.request.type` and whose name (`replicate.run`) and what is left (token counts, response model, no completion)
 * cannot tell a generation from an embedding (collector/04-normalize/llm-call-without-request-type.ts). It may have
 * been the request's last generation: the answer and model of the generation before it are then a neighbour's.
 *
 * The spans are built as the OTel Python SDK sends them (test/support/python-evicted-llm-trace.ts: the root first, each
 * next span 10 ms later) and evaluated through the collector's consumer path (test/golden/replay-golden.ts).
 *
 * Worked by hand, the known generation being the query rewrite (`openai.chat`, model gpt-4o-mini-2024-07-18,
 * completion "annual leave carry over") or the answer's call (same model, completion "Up to 5 days carry over."):
 * - workflow without output, rewrite at +10 ms, unknown call at +20 ms: before, output "annual leave carry over" (the
 *   rewrite's output shown as the answer) and model gpt-4o-mini-2024-07-18; now both null, a note on the unknown call;
 * - the same, the workflow carrying its output "Up to 5 days carry over.": the output stays the workflow's, the model
 *   null (before: the rewrite's), the note saying the answer is the request's own;
 * - workflow without output, unknown call at +10 ms, answer's call at +20 ms: the answer's call came after, whatever
 *   the unknown one was — output "Up to 5 days carry over.", model gpt-4o-mini-2024-07-18, no such note;
 * - rewrite and unknown call starting in the same nanosecond: which was last is not known — null, "at the same time";
 * - the unknown call inside the last generation's span (an OpenInference LLM span, a framework's wrapper, around the
 *   provider's call): the wrapper returned after the call ended — its output "Up to 5 days carry over." and model
 *   gpt-4o-mini stand.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { replayTrace } from "../../golden/replay-golden.js";
import { answerCall, EVICTED_UP_TO_RESPONSE, pythonSdkTrace, pythonSpanId, REWRITE_CALL, WORKFLOW_SPAN, type PythonSpan } from "../../support/python-evicted-llm-trace.js";

const TRACE_ID = "7a000000000000000000000000000c01";
const spanId = (index: number) => pythonSpanId(TRACE_ID, index);

const UNKNOWN_CALL = answerCall("replicate.run", EVICTED_UP_TO_RESPONSE, { completions: false });
const WORKFLOW_WITHOUT_OUTPUT: PythonSpan = { ...WORKFLOW_SPAN, attributes: WORKFLOW_SPAN.attributes.filter(([key]) => key !== "traceloop.entity.output") };
const MAY_BE_LAST = /may have been the request's last generation/;

type OtlpSpan = { spanId: string; parentSpanId: string; startTimeUnixNano: string };

/** The trace's Case Result, after `reshape` changed its OTLP spans (times, parents). */
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
  const { output, model, notes } = await replayed([WORKFLOW_WITHOUT_OUTPUT, REWRITE_CALL, UNKNOWN_CALL]);
  assert.equal(output, null, "not the rewrite's output, annual leave carry over");
  assert.equal(model, null, "not the rewrite's model");
  assert.deepEqual(notes.map((note) => [note.span_id, note.span_name, note.kind]), [[spanId(2), "replicate.run", "unreadable_value"]]);
  assert.match(
    notes[0]!.error,
    new RegExp(
      `^this LLM call may have been a generation \\(its kind is not known: this span's other notes say why\\), and it started after the request's last known generation, "openai\\.chat" \\(span ${spanId(1)}\\): ` +
        "it may have been the request's last generation, so what the last generation decides — its answer \\(the request span carries none\\), model, abstained and time_to_first_token_ms — is not available rather than taken from the earlier call$",
    ),
  );
});

test("an unknown call after the last generation, the request carrying its output: the answer is the request's, the model not available", async () => {
  const { output, model, notes } = await replayed([WORKFLOW_SPAN, REWRITE_CALL, UNKNOWN_CALL]);
  assert.equal(output, "Up to 5 days carry over.", "the workflow's own output wins");
  assert.equal(model, null, "not the rewrite's model");
  assert.equal(notes.length, 1, JSON.stringify(notes));
  assert.match(notes[0]!.error, /what the last generation decides — its model, abstained and time_to_first_token_ms — is not available rather than taken from the earlier call; the answer is the request's own output, which its span carries$/);
});

test("an unknown call before the last generation: the answer and model are that generation's, as before", async () => {
  const { output, model, notes } = await replayed([WORKFLOW_WITHOUT_OUTPUT, UNKNOWN_CALL, answerCall("openai.chat", 0)]);
  assert.equal(output, "Up to 5 days carry over.");
  assert.equal(model, "gpt-4o-mini-2024-07-18");
  assert.deepEqual(notes, []);
});

test("an unknown call that started in the same nanosecond as the last generation: which was last is not known", async () => {
  const { output, model, notes } = await replayed([WORKFLOW_WITHOUT_OUTPUT, REWRITE_CALL, UNKNOWN_CALL], (spans) => {
    spans[2]!.startTimeUnixNano = spans[1]!.startTimeUnixNano;
  });
  assert.equal(output, null);
  assert.equal(model, null);
  assert.match(notes[0]?.error ?? "", /and it started at the same time as the request's last known generation, "openai\.chat"/);
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
