/**
 * Where evaluated Case Results go. Small on purpose (like clickhouse-js's
 * Connection): the ClickHouse implementation serves both the embedded engine
 * and a server, and tests can supply another implementation of the interface.
 * A write either succeeded durably, or failed with a retriable flag — callers
 * acknowledge (commit offsets) only after success. A permanent failure says
 * whether the store refused the data itself (`rejectsData`: a value a type or
 * a constraint rejects — another write without the offending row succeeds)
 * or cannot take anything (an unknown table: no write will succeed until an
 * operator fixes the schema).
 */
import type { Result } from "../../core/result.js";
import type { CaseEvaluation } from "../../evaluators/evaluate-case-result.js";

export interface SinkFailure {
  retriable: boolean;
  message: string;
  /** The store refused a value of the batch: the other rows can be written, the offending ones quarantined. */
  rejectsData?: boolean;
}

export interface ResultSink {
  write(batch: readonly CaseEvaluation[]): Promise<Result<void, SinkFailure>>;
  close(): Promise<void>;
}

/** Keeps results the store refused as bad data, with the store's error, so the pipeline can move on. */
export interface QuarantineSink {
  quarantine(evaluations: readonly CaseEvaluation[], error: string): Promise<Result<void, SinkFailure>>;
}
