/**
 * The evaluation worker as both compositions build it (embedded and the Kafka
 * evaluator role): the default evaluators, the configured assembly and sink
 * batching, and the online stage's hook when there is one.
 */
import { createDefaultRegistry } from "../../evaluators/default-registry.js";
import type { CaseStore } from "../../store/ports/case-store.js";
import { memoryBounds, sinkRetryPolicy, type CollectorConfig } from "../wiring/config/collector-config.js";
import type { OnlineStage } from "../wiring/online/online-stage.js";
import type { QuarantineSink, ResultSink } from "../../store/ports/result-sink.js";
import type { AttributionOptions } from "../../evaluators/root-cause/index.js";
import { EvaluationWorker, type DeadLetterHandler } from "./evaluation-worker.js";
import { unknownCaseNotice, type OtherTenantsCase } from "./unknown-case-notice.js";

export interface EvaluationWorkerParts {
  cases: CaseStore;
  sink: ResultSink;
  quarantine: QuarantineSink;
  deadLetters: DeadLetterHandler;
  signal: AbortSignal;
  online: OnlineStage | null;
  /** Each durable trace's seconds since its last span was received (EvaluationWorkerOptions.freshness). */
  freshness?: { observe(seconds: number): void };
  /** Told of traces naming an Eval Case the store does not hold (or only another tenant's); default: a line on stderr once per case. */
  onUnknownCase?: (caseId: string, caseVersion: string, traceId: string, tenants?: OtherTenantsCase) => void;
  /** For the root cause of failed cases (EvaluationWorkerOptions.attribution): the corpus index of `eval --corpus`. */
  attribution?: AttributionOptions;
}

export function createEvaluationWorker(config: Readonly<CollectorConfig>, parts: EvaluationWorkerParts): EvaluationWorker {
  const { online } = parts;
  const bounds = memoryBounds(config);
  return new EvaluationWorker({
    assembler: { ...config.assembler, maxOpenBytes: bounds.openBytes, maxRecentBytes: bounds.recentBytes },
    registry: createDefaultRegistry(),
    cases: parts.cases,
    sink: parts.sink,
    quarantine: parts.quarantine,
    deadLetters: parts.deadLetters,
    maxBatch: config.sink.maxBatch,
    maxBatchBytes: bounds.sinkBatchBytes,
    sinkRetry: sinkRetryPolicy(config),
    signal: parts.signal,
    afterWrite: online ? (evaluations) => online.afterWrite(evaluations) : undefined,
    freshness: parts.freshness,
    onUnknownCase: parts.onUnknownCase ?? unknownCaseNotice((line) => console.error(line)),
    attribution: parts.attribution,
  });
}
