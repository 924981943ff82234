/**
 * A GenAI `invoke_agent` span at the top of a trace records its calls' usage (`gen_ai.usage.*`) as the request's own
 * (RequestObservation.enclosedUsage). Its counts and cost meet the bounds every other span's do
 * (collector/04-normalize/out-of-range-values.ts): beyond 2^53 − 1 or below 0 a value is not available, with a note,
 * and the request's sum of it too; the rest of the request is stored. Before, such a root's 1e308 tokens were stored
 * and summed as sent, and its -1 made the whole request fail its schema and go to the dead letters. Through the
 * evaluation worker (the Kafka path's), as a Python application's trace arrives.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { success } from "../../../core/result.js";
import { defaultAssemblerOptions } from "../../../collector/05-assemble/trace-assembler.js";
import { EvaluationWorker, type EvaluationWorkerOptions } from "../../../collector/07-evaluate/evaluation-worker.js";
import type { CaseEvaluation } from "../../../evaluators/evaluate-case-result.js";
import { createDefaultRegistry } from "../../../evaluators/default-registry.js";
import { pythonSdkTrace, type PythonSpan } from "../../support/python-evicted-llm-trace.js";
import { GENAI_REWRITE_CALL } from "../../support/python-evicted-genai-trace.js";

const message = (role: string, text: string) => JSON.stringify([{ role, parts: [{ type: "text", content: text }] }]);

async function evaluate(otlp: string): Promise<{ written: CaseEvaluation[]; deadLetters: string[] }> {
  const written: CaseEvaluation[] = [];
  const deadLetters: string[] = [];
  const options = {
    assembler: defaultAssemblerOptions,
    registry: createDefaultRegistry(),
    cases: { get: async () => null, list: async () => [] },
    sink: { write: async (items: CaseEvaluation[]) => (written.push(...items), success(undefined)) },
    deadLetters: { send: async (letter: { reason: string }) => void deadLetters.push(letter.reason) },
    sinkRetry: { initialDelayMs: 1, maxDelayMs: 1, maxAttempts: 1, deadlineMs: 10 },
    maxBatch: 100,
    clock: () => Date.UTC(2026, 6, 8, 10, 0, 0),
  } as unknown as EvaluationWorkerOptions;
  const worker = new EvaluationWorker(options);
  await worker.ingest([{ key: null, value: new TextEncoder().encode(otlp), position: { partition: 0, offset: "0" } }]);
  await worker.processReady(true);
  return { written, deadLetters };
}

function agentTrace(inputTokens: string, withCall: boolean): string {
  const root: PythonSpan = {
    name: "invoke_agent leave_agent",
    attributes: [
      ["gen_ai.operation.name", "invoke_agent"],
      ["gen_ai.provider.name", "openai"],
      ["gen_ai.agent.name", "leave_agent"],
      ["gen_ai.input.messages", message("user", "Can unused annual leave be carried over?")],
      ["gen_ai.output.messages", message("assistant", "Up to 5 days carry over.")],
      ["gen_ai.usage.input_tokens", 777777],
      ["gen_ai.usage.output_tokens", 50],
    ],
  };
  const otlp = pythonSdkTrace("7a000000000000000000000000000e01", withCall ? [root, GENAI_REWRITE_CALL] : [root]);
  return otlp.replace('{"intValue":"777777"}', `{"doubleValue":${inputTokens}}`);
}

describe("a root agent span's usage meets the bounds of every span's", () => {
  for (const [value, withCall] of [["1e308", false], ["-1", false], ["9007199254740994", false], ["-1", true]] as const) {
    test(`input tokens ${value}${withCall ? ", around a call of its own" : ""}: not available, noted, the request stored`, async () => {
      const { written, deadLetters } = await evaluate(agentTrace(value, withCall));
      assert.deepEqual(deadLetters, []);
      assert.equal(written.length, 1);
      const observation = written[0]!.caseResult.rag_observation;
      assert.deepEqual([observation.generation.input_tokens, observation.generation.total_tokens], [null, null]);
      const noted = observation.malformed_attributes.filter((note) => note.attribute === "generation.input_tokens" && note.kind === "unreadable_value");
      assert.equal(noted.length, 1, JSON.stringify(observation.malformed_attributes));
    });
  }
});
