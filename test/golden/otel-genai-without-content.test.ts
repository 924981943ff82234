/**
 * What ragscope makes of an application recorded with the GenAI conventions' own Python packages when their content
 * is not on the spans (test/data/otel-genai-without-content/: content mode `event_only`, whose spans are also what
 * the packages' default, no content, sends). ragscope receives traces, not OpenTelemetry logs: the question, the
 * answer, the retrieval's query and its documents are not available — null, not "" and not a neighbour's — and so is
 * every metric that needs them; what the spans do carry is read: the stages, the chat call's model and tokens
 * (137 + 41, the scripted usage; the total their sum), the run and case linkage. Worked from the recording's
 * attributes (its README), not from ragscope's output.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { replayTrace } from "./replay-golden.js";
import { answerUsage } from "./scenarios/llama-index-rerank.js";
import { goldenCase, goldenRun } from "./scenarios/policy-corpus.js";

const recording = path.join(path.dirname(fileURLToPath(import.meta.url)), "../data/otel-genai-without-content/event-only.otlp.json");

test("content sent as events: the question, answer and documents are not available, the model, tokens and linkage read", async () => {
  const [evaluation, ...others] = await replayTrace(await readFile(recording, "utf8"), [goldenCase]);
  assert.equal(others.length, 0);
  const result = evaluation!.caseResult;
  const observation = result.rag_observation;
  assert.deepEqual([result.run_id, result.case_id, result.case_version], [goldenRun.runId, goldenRun.caseId, goldenRun.caseVersion]);
  assert.deepEqual(observation.stage_timings.map((timing) => timing.stage), ["request", "retrieve", "generate"]);
  assert.equal(observation.query, null);
  assert.equal(result.output, null);
  assert.equal(observation.retrieved_chunks, null, "no documents recorded: not an empty list");
  assert.equal(observation.context, null);
  assert.deepEqual(
    [observation.generation.model, observation.generation.input_tokens, observation.generation.output_tokens, observation.generation.total_tokens, observation.generation.cost],
    ["fake-policy-model", answerUsage.promptTokens, answerUsage.completionTokens, answerUsage.promptTokens + answerUsage.completionTokens, null],
  );
  const metric = (name: string) => evaluation!.evaluationResults.find((item) => name in item.metric_values)?.metric_values[name];
  for (const name of ["exact_match", "token_f1", "recall_at_k", "mrr", "sensitive_data_in_answer"]) assert.equal(metric(name), null, `${name}: not available, not 0`);
  assert.equal(result.quality_status, "unjudged", "nothing could measure its answer: neither passed nor failed");
});
