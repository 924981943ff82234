/**
 * Replays a recorded OTLP/JSON trace through the collector's consumer path —
 * decode → assemble → normalize (mapper registry) → rebuild the Case Result →
 * evaluate with the default evaluators — exactly as the EvaluationWorker runs
 * it behind the receiver or Kafka, with an in-memory case store holding the
 * golden Eval Case and a sink that keeps what it is given.
 */
import type { EvalCase } from "../../contracts/eval-case.js";
import { success } from "../../core/result.js";
import { defaultAssemblerOptions } from "../../collector/05-assemble/trace-assembler.js";
import type { CaseStore, CaseWriteReport } from "../../store/ports/case-store.js";
import { EvaluationWorker } from "../../collector/07-evaluate/evaluation-worker.js";
import type { ResultSink } from "../../store/ports/result-sink.js";
import { createDefaultRegistry } from "../../evaluators/default-registry.js";
import type { CaseEvaluation } from "../../evaluators/evaluate-case-result.js";

class MemoryCaseStore implements CaseStore {
  constructor(private readonly cases: readonly EvalCase[]) {}
  async get(caseId: string, caseVersion: string): Promise<EvalCase | null> {
    return this.cases.find((item) => item.case_id === caseId && item.case_version === caseVersion) ?? null;
  }
  async put(): Promise<CaseWriteReport> {
    return { stored: new Set() };
  }
  async listSplit(): Promise<EvalCase[]> {
    return [];
  }
}

class KeepingSink implements ResultSink {
  readonly written: CaseEvaluation[] = [];
  async write(batch: readonly CaseEvaluation[]) {
    this.written.push(...batch);
    return success(undefined);
  }
  async close(): Promise<void> {}
}

/** The evaluated Case Result of each trace in the OTLP/JSON text (evaluated at a fixed time). */
export async function replayTrace(otlpJson: string, cases: readonly EvalCase[]): Promise<CaseEvaluation[]> {
  const sink = new KeepingSink();
  const deadLetters: string[] = [];
  const worker = new EvaluationWorker({
    assembler: defaultAssemblerOptions,
    registry: createDefaultRegistry(),
    cases: new MemoryCaseStore(cases),
    sink,
    deadLetters: { send: async (letter) => void deadLetters.push(letter.reason) },
    sinkRetry: { initialDelayMs: 1, maxDelayMs: 1, maxAttempts: 1, deadlineMs: 10 },
    maxBatch: 100,
    clock: () => Date.UTC(2026, 6, 8, 10, 0, 0),
  });
  await worker.ingest([{ key: null, value: new TextEncoder().encode(otlpJson), position: { partition: 0, offset: "0" } }]);
  if (deadLetters.length > 0) throw new Error(`the trace did not decode: ${deadLetters.join("; ")}`);
  if (!(await worker.processReady(true))) throw new Error("the sink refused the results");
  return sink.written;
}
