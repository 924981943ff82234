/**
 * A rerank whose output its SDK dropped at its attribute count limit (OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT): the rerank
 * ran, and its output was the ranking the pipeline went on with, so the final ranking is not known. Before, LlamaIndex's
 * LLMRerank CHAIN span without its `output.value` was not seen as a rerank at all, and the retriever's ranking stood in
 * as the final one (ranking metrics measured on a list the pipeline did not produce); an OpenInference RERANKER span
 * whose output documents were not available let the retriever's ranking stand in the same way.
 *
 * Traces: the recorded LlamaIndex LLMRerank query (test/data/llama-index-llm-rerank/: the retriever ranked refund-1,
 * shipping-1, refund-2; LLMRerank kept shipping-1, refund-1) and the recorded golden llama-index-openinference (a
 * RERANKER span), edited as an SDK at its limit would have sent them: what it dropped removed and counted in
 * `dropped_attributes_count` (edited-golden-trace.ts `dropAttributes`). Replayed through the collector's consumer path
 * (replay-golden.ts).
 *
 * The LLMRerank span's attributes were set in the order input.value, input.mime_type, output.value, output.mime_type,
 * openinference.span.kind (the recording's order). Python's SDK, which the instrumentation runs on, evicts the OLDEST
 * attribute past its limit (BoundedAttributes), so a span that lost its output lost its input first and still carries
 * its kind: the first test is that span; the second keeps the input, as an SDK that drops the newest would not (it would
 * drop the span kind after the output), to show the input is read when carried.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { editGoldenTrace, editRecordedTrace } from "./edited-golden-trace.js";
import { replayTrace } from "./replay-golden.js";

const llmRerankRecording = fileURLToPath(new URL("../data/llama-index-llm-rerank/llm-rerank.otlp.json", import.meta.url));
const LLM_RERANK = "LLMRerank._postprocess_nodes";
const RETRIEVER_RANKING = ["refund-1", "shipping-1", "refund-2"];

async function replayed(json: string) {
  const [evaluation, ...others] = await replayTrace(json, []);
  assert.equal(others.length, 0, "one trace, one Case Result");
  return evaluation!.caseResult.rag_observation;
}

type Observation = Awaited<ReturnType<typeof replayed>>;
const unreadable = (observation: Observation) => observation.malformed_attributes.filter((note) => note.kind === "unreadable_value");
const lost = (count: number) => new RegExp(`The span lost ${count} attributes? to its SDK's limit OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT \\(128 by default; dropped_attributes_count ${count}\\)`);

test("LLMRerank's CHAIN span that lost its input and output to its SDK (Python evicts the oldest): still the rerank, the final ranking not available, not the retriever's", async () => {
  const trace = await editRecordedTrace(llmRerankRecording, "llama-index-llm-rerank");
  const rerank = trace.span(LLM_RERANK);
  const dropped = trace.dropAttributes(rerank, ["input.", "output.value"]);

  const observation = await replayed(trace.json());
  assert.equal(observation.retrieved_chunks, null, `read as no rerank, the final ranking was the retriever's ${RETRIEVER_RANKING.join(", ")}; LLMRerank kept shipping-1, refund-1`);
  assert.deepEqual(observation.pre_rerank_chunks?.map((chunk) => chunk.chunk_id), RETRIEVER_RANKING, "the retriever's ranking stays what it is: the one before the rerank");
  assert.deepEqual(
    observation.stage_timings.filter((timing) => timing.stage === "rerank").map((timing) => timing.span_name),
    [LLM_RERANK],
    "the rerank is seen",
  );
  const notes = unreadable(observation);
  assert.deepEqual(
    notes.map((note) => [note.span_id, note.span_name, note.attribute]),
    [
      [rerank.spanId, LLM_RERANK, "output.value"],
      [rerank.spanId, LLM_RERANK, "retrieved_chunks"],
    ],
  );
  assert.match(notes[0]!.error, /^is absent, and the span's SDK dropped attributes: the rerank's output \(the nodes LLMRerank kept, in order\) is not carried; the span is still the rerank/);
  assert.match(notes[0]!.error, /retrieved_chunks is not available, and the retrieval's ranking, which the rerank reordered and cut, is not taken in its place/);
  assert.match(notes[0]!.error, lost(dropped));
  assert.match(notes[1]!.error, /the last rerank's output is the final ranking: retrieved_chunks is not available.*\(it is kept as pre_rerank_chunks, the ranking before the rerank\)$/);
});

test("LLMRerank's CHAIN span that lost only its output: the rerank with its input read, the final ranking not available", async () => {
  const trace = await editRecordedTrace(llmRerankRecording, "llama-index-llm-rerank");
  const rerank = trace.span(LLM_RERANK);
  trace.dropAttributes(rerank, ["output."]);

  const observation = await replayed(trace.json());
  assert.equal(observation.retrieved_chunks, null);
  assert.deepEqual(observation.pre_rerank_chunks?.map((chunk) => chunk.chunk_id), RETRIEVER_RANKING);
  assert.deepEqual(unreadable(observation).map((note) => note.attribute), ["output.value", "retrieved_chunks"]);
});

test("LLMRerank's CHAIN span with no output and nothing dropped (the postprocessor wrote none) is no rerank, as before: no note", async () => {
  const trace = await editRecordedTrace(llmRerankRecording, "llama-index-llm-rerank");
  const rerank = trace.span(LLM_RERANK);
  trace.remove(rerank, "output.value");
  trace.remove(rerank, "output.mime_type");

  const observation = await replayed(trace.json());
  assert.deepEqual(observation.retrieved_chunks?.map((chunk) => chunk.chunk_id), RETRIEVER_RANKING);
  assert.equal(observation.pre_rerank_chunks, null);
  assert.deepEqual(unreadable(observation), []);
});

test("OpenInference RERANKER span that lost its first output documents to its SDK (Python evicts the oldest): the final ranking is not available, not the retriever's", async () => {
  const trace = await editGoldenTrace("llama-index-openinference");
  const whole = await replayed(trace.json());
  const rerank = trace.span("StructuredLLMRerank._postprocess_nodes");
  // Every attribute set before reranker.output_documents.1.*, as a Python SDK keeping the last seven sends the span.
  const dropped = trace.dropAttributes(rerank, ["metadata", "input.value", "reranker.query", "reranker.top_k", "reranker.model_name", "reranker.input_documents.", "reranker.output_documents.0."]);

  const observation = await replayed(trace.json());
  assert.ok(whole.retrieved_chunks !== null && whole.pre_rerank_chunks !== null, "the golden's rerank is read");
  assert.equal(observation.retrieved_chunks, null, "read before as the retriever's ranking, the final one");
  assert.deepEqual(observation.pre_rerank_chunks, whole.pre_rerank_chunks, "the retriever's ranking, before the rerank");
  const notes = unreadable(observation).filter((note) => note.span_id === rerank.spanId);
  assert.deepEqual(notes.map((note) => note.attribute), ["reranker.output_documents.0", "retrieved_chunks"]);
  assert.match(notes[0]!.error, /^is missing: the span carries reranker\.output_documents\.1 but no attribute of reranker\.output_documents\.0.*the documents of reranker\.output_documents are not available/);
  assert.match(notes[0]!.error, lost(dropped));
});

// OpenLLMetry's Cohere rerank (test/data/openllmetry-cohere-rerank/: Chroma ranked refund-1, shipping-1, refund-2;
// Cohere kept refund-2, refund-1). Its attributes were set in the order gen_ai.system, llm.request.type,
// gen_ai.request.model, the prompts (documents, then the query), gen_ai.response.id, the completions (the ranking).
const cohereRecording = fileURLToPath(new URL("../data/openllmetry-cohere-rerank/cohere-rerank.otlp.json", import.meta.url));

test("OpenLLMetry's Cohere rerank whose SDK dropped its whole ranking (the attributes set last): still the rerank, the final ranking not available, not Chroma's", async () => {
  const trace = await editRecordedTrace(cohereRecording, "openllmetry-cohere-rerank");
  // Recorded in Python, whose SDK evicts the oldest: given the JS SDK's language, whose drops (the attributes set last) these are.
  trace.setSdkLanguage("nodejs");
  const whole = await replayed(trace.json());
  const rerank = trace.span("cohere.rerank");
  const dropped = trace.dropAttributes(rerank, ["gen_ai.response.", "gen_ai.completion."]);

  const observation = await replayed(trace.json());
  assert.deepEqual(whole.retrieved_chunks?.map((chunk) => chunk.chunk_id), ["refund-2", "refund-1"], "the recording's rerank is read");
  assert.equal(observation.retrieved_chunks, null, `read before as no rerank, the final ranking was Chroma's ${RETRIEVER_RANKING.join(", ")}`);
  assert.deepEqual(observation.pre_rerank_chunks?.map((chunk) => chunk.chunk_id), RETRIEVER_RANKING, "Chroma's ranking, the one before the rerank");
  assert.deepEqual(
    observation.stage_timings.filter((timing) => timing.stage === "rerank").map((timing) => timing.span_name),
    ["cohere.rerank"],
    "the span is still the rerank",
  );
  const notes = unreadable(observation).filter((note) => note.span_id === rerank.spanId);
  assert.deepEqual(notes.map((note) => note.attribute), ["gen_ai.prompt.3", "retrieved_chunks"]);
  assert.match(notes[0]!.error, /^may not be the last prompt: .*the rerank's documents and query are not read, so its ranking, the final one, is not known/);
  assert.match(notes[0]!.error, lost(dropped));
  assert.match(notes[1]!.error, /^this rerank's output is not available \(this span's other notes say why\).*\(it is kept as pre_rerank_chunks, the ranking before the rerank\)/);
});

// As Python's SDK sends the same span (the recording's own SDK: telemetry.sdk.language "python"): it evicts the
// OLDEST attributes (BoundedAttributes), and the instrumentation passes gen_ai.system and llm.request.type when it
// starts the span, so those go first.
test("OpenLLMetry's Cohere rerank whose Python SDK evicted its oldest attributes, the request type among them: still the rerank (by its name), the final ranking not available, not Chroma's", async () => {
  const trace = await editRecordedTrace(cohereRecording, "openllmetry-cohere-rerank");
  const rerank = trace.span("cohere.rerank");
  trace.dropOldestAttributes(rerank, 2);
  assert.ok(!rerank.attributes.some((attribute) => attribute.key === "llm.request.type"), "the request type, set first, is evicted first");

  const observation = await replayed(trace.json());
  assert.equal(observation.retrieved_chunks, null, `read as no stage, the final ranking was Chroma's ${RETRIEVER_RANKING.join(", ")}`);
  assert.deepEqual(observation.pre_rerank_chunks?.map((chunk) => chunk.chunk_id), RETRIEVER_RANKING);
  assert.deepEqual(observation.stage_timings.filter((timing) => timing.stage === "rerank").map((timing) => timing.span_name), ["cohere.rerank"]);
  const notes = unreadable(observation).filter((note) => note.span_id === rerank.spanId);
  assert.deepEqual(notes.map((note) => note.attribute), ["llm.request.type", "retrieved_chunks"]);
  assert.match(notes[0]!.error, /^is absent, and the span's SDK dropped attributes past its count limit; the span's SDK is "python" \(telemetry\.sdk\.language\), and an SDK that evicts the oldest \(Python's\) drops the request type first/);
  assert.match(notes[0]!.error, lost(2));
});

test("a span named cohere.rerank that carries no request type and lost nothing is not taken for a rerank on its name", async () => {
  const trace = await editRecordedTrace(cohereRecording, "openllmetry-cohere-rerank");
  const rerank = trace.span("cohere.rerank");
  trace.remove(rerank, "llm.request.type");
  const observation = await replayed(trace.json());
  assert.deepEqual(observation.retrieved_chunks?.map((chunk) => chunk.chunk_id), RETRIEVER_RANKING);
  assert.deepEqual(unreadable(observation).filter((note) => note.span_id === rerank.spanId), []);
});

test("OpenLLMetry's Cohere rerank whose Python SDK evicted gen_ai.system only: a completion carried says nothing of the prompts there, so both lists are named", async () => {
  const trace = await editRecordedTrace(cohereRecording, "openllmetry-cohere-rerank");
  const rerank = trace.span("cohere.rerank");
  trace.dropOldestAttributes(rerank, 1);

  const observation = await replayed(trace.json());
  assert.equal(observation.retrieved_chunks, null);
  const notes = unreadable(observation).filter((note) => note.span_id === rerank.spanId);
  assert.deepEqual(notes.map((note) => note.attribute), ["gen_ai.prompt.3", "gen_ai.completion.1", "retrieved_chunks"], "the JS order's deduction (a completion carried, every prompt kept) is not made for Python's SDK");
  for (const note of notes.slice(0, 2)) {
    assert.match(note.error, /nor the list whole: .*the span's SDK is "python" \(telemetry\.sdk\.language\), whose order of dropping is not relied on/);
    assert.doesNotMatch(note.error, /\(the JS SDK keeps the first ones\)/);
  }
});
