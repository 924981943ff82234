/**
 * A LangChain.js chain traced by Traceloop's @traceloop/instrumentation-langchain whose retriever step returns a
 * `[Document, score]` pair with a score that is no number. The instrumentation writes a step's value with
 * `JSON.stringify`, which writes a score of NaN (a cosine similarity against a zero vector) as `null`; the chain
 * passes the same pairs to its formatting step. ragscope reads a step's documents all or none: neither step is then
 * read as a stage (no retrieval, no context assembly), and before, nothing on the Case Result said why.
 *
 * The trace is the recorded golden (test/golden/traces/openllmetry.otlp.json, recorded by record-goldens.ts) with
 * the second pair's score set to null in the retriever step's `traceloop.entity.output` and in the formatting
 * step's `traceloop.entity.input`, as `JSON.stringify([[document, NaN]])` writes it. Replayed through the
 * collector's consumer path (replay-golden.ts).
 *
 * Expected: the retrieved chunks, the packed chunks and the context stay null (nothing made up from the other two
 * pairs), and the Case Result's `malformed_attributes` names each step, its attribute and the item (its index, and
 * that its score is null) as `unreadable_value`. The unedited golden carries no such note (golden-traces.test.ts).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { editGoldenTrace, type OtlpSpan } from "./edited-golden-trace.js";
import { replayTrace } from "./replay-golden.js";
import { goldenCase } from "./scenarios/policy-corpus.js";

const STEP = "workflow RunnableLambda";

test("a Traceloop JS step's pair whose score is null: no retrieval or context is made up, and the Case Result says which item of which step", async () => {
  assert.equal(JSON.stringify([[{ pageContent: "x" }, NaN]]), '[[{"pageContent":"x"},null]]', "JSON.stringify writes NaN as null");
  const trace = await editGoldenTrace("openllmetry");
  /** The step's value in the attribute: the instrumentation wraps a list as {"output": […]} or {"input": […]}. */
  const listIn = (span: OtlpSpan, key: string, direction: string): unknown => {
    if (!span.attributes.some((item) => item.key === key)) return undefined;
    return (JSON.parse(trace.text(span, key)) as Record<string, unknown>)[direction];
  };
  const returnsPairs = (span: OtlpSpan) => Array.isArray(listIn(span, "traceloop.entity.output", "output"));
  const givenPairs = (span: OtlpSpan) => Array.isArray(listIn(span, "traceloop.entity.input", "input"));
  const retriever = trace.span(STEP, returnsPairs);
  const formatter = trace.span(STEP, givenPairs);
  for (const [span, key, direction] of [[retriever, "traceloop.entity.output", "output"], [formatter, "traceloop.entity.input", "input"]] as const) {
    const value = JSON.parse(trace.text(span, key)) as Record<string, [unknown, unknown][]>;
    assert.equal(value[direction]!.length, 3, "the recorded step had three pairs");
    assert.equal(typeof value[direction]![1]![1], "number", "the recorded score is a number");
    value[direction]![1]![1] = null;
    trace.setText(span, key, JSON.stringify(value));
  }

  const [evaluation, ...others] = await replayTrace(trace.json(), [goldenCase]);
  assert.equal(others.length, 0, "one trace, one Case Result");
  const observation = evaluation!.caseResult.rag_observation;
  assert.equal(observation.retrieved_chunks, null, "the retrieval's documents: not available, none made up");
  assert.equal(observation.context_chunks, null, "the packed chunks: not available");
  assert.equal(observation.context, null, "the context assembly is not seen either");
  assert.equal(observation.query, "未使用的年假可以结转到下一年吗？", "the rest of the trace is read as before");

  const notes = observation.malformed_attributes.filter((note) => note.kind === "unreadable_value");
  assert.deepEqual(
    notes.map((note) => [note.span_id, note.span_name, note.attribute]).sort(),
    [
      [retriever.spanId, STEP, "traceloop.entity.output"],
      [formatter.spanId, STEP, "traceloop.entity.input"],
    ].sort(),
  );
  const [returned, given] = [retriever, formatter].map((span) => notes.find((note) => note.span_id === span.spanId)!.error);
  assert.match(returned!, /^the step's returned list: \[1\] is a Document paired with null .*where a score was expected/);
  assert.match(returned!, /beside 2 of its 3 items that are; .* not read as a retrieval/);
  assert.match(given!, /^the step's given list: \[1\] is a Document paired with null/);
  assert.match(given!, /not read as the context assembly/);
  for (const reason of [returned!, given!]) assert.ok([...reason].length < 600, "bounded");
});
