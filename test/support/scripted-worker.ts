/**
 * An EvaluationWorker for collector unit tests: the default rules, no Eval
 * Cases, dead letters in memory, no quiet period, and one sink attempt (a
 * failure is final for that round, so the test decides what happens next).
 */
import { EvaluationWorker } from "../../collector/07-evaluate/evaluation-worker.js";
import { MemoryDeadLetters } from "../../collector/07-evaluate/memory-dead-letters.js";
import { createDefaultRegistry } from "../../evaluators/default-registry.js";
import type { ResultSink } from "../../store/ports/result-sink.js";

export function scriptedWorker(options: { sink: ResultSink; maxBatch: number; maxBatchBytes?: number; clock: () => number }): EvaluationWorker {
  return new EvaluationWorker({
    assembler: { quietPeriodMs: 0, maxTraceWaitMs: 60_000, maxOpenSpans: 100_000, recentTraceMemory: 100 },
    registry: createDefaultRegistry(),
    cases: { get: async () => null, put: async () => {}, listSplit: async () => [] },
    sink: options.sink,
    deadLetters: new MemoryDeadLetters(),
    sinkRetry: { initialDelayMs: 1, maxDelayMs: 1, maxAttempts: 1, deadlineMs: 10 },
    maxBatch: options.maxBatch,
    ...(options.maxBatchBytes === undefined ? {} : { maxBatchBytes: options.maxBatchBytes }),
    clock: options.clock,
  });
}
