/**
 * The Azure AI Inference client library with content recording off, its default
 * (test/data/azure-ai-inference-without-content/): its chat span's `gen_ai.choice` event then holds the finish
 * reason and index only. The answer is not available — null, not "", and no other span's text — and so is every
 * metric that needs it; the question and the documents, which the request's own spans record, are read, and so are
 * the call's model and tokens (137 + 41, the scripted usage). The retrieval meets its gold evidence, but the case is
 * unjudged, not passed: nothing read its answer (case-verdict.ts answerNotRecorded). Worked from the recording (its
 * README), not from ragscope's output.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { replayTrace } from "./replay-golden.js";
import { answerUsage } from "./scenarios/llama-index-rerank.js";
import { goldenCase, goldenRun, question } from "./scenarios/policy-corpus.js";

const recording = path.join(path.dirname(fileURLToPath(import.meta.url)), "../data/azure-ai-inference-without-content/content-off.otlp.json");

test("content recording off: the answer is not available, the question, documents, model and tokens read", async () => {
  const [evaluation, ...others] = await replayTrace(await readFile(recording, "utf8"), [goldenCase]);
  assert.equal(others.length, 0);
  const result = evaluation!.caseResult;
  const observation = result.rag_observation;
  assert.deepEqual([result.run_id, result.case_id, result.case_version], [goldenRun.runId, goldenRun.caseId, goldenRun.caseVersion]);
  assert.deepEqual(observation.stage_timings.map((timing) => timing.stage), ["request", "retrieve", "generate"]);
  assert.equal(observation.query, question);
  assert.equal(result.output, null, "a choice without its message records no answer: not an empty one");
  assert.equal(observation.retrieved_chunks?.length, 3);
  assert.deepEqual(observation.malformed_attributes, [], "a choice without content is no unreadable value");
  assert.deepEqual(
    [observation.generation.model, observation.generation.input_tokens, observation.generation.output_tokens, observation.generation.total_tokens],
    ["fake-policy-model", answerUsage.promptTokens, answerUsage.completionTokens, answerUsage.promptTokens + answerUsage.completionTokens],
  );
  const metric = (name: string) => evaluation!.evaluationResults.find((item) => name in item.metric_values)?.metric_values[name];
  for (const name of ["exact_match", "token_f1", "sensitive_data_in_answer"]) assert.equal(metric(name), null, `${name}: not available, not 0`);
  assert.equal(metric("recall_at_k"), 1, "the retrieval is measured: the gold evidence is among the documents");
  assert.equal(result.quality_status, "unjudged", "an answer nobody could read is not passed on its retrieval alone");
});
