/**
 * Where evaluated Case Results go. Small on purpose (like clickhouse-js's
 * Connection): the ClickHouse implementation serves both the embedded engine
 * and a server, and tests can supply another implementation of the interface.
 * A write either succeeded durably, or failed with a retriable flag — callers
 * acknowledge (commit offsets) only after success.
 */
import type { Result } from "../../contracts/result.js";
import type { CaseEvaluation } from "../../evaluators/evaluate-case-result.js";

export interface SinkFailure {
  retriable: boolean;
  message: string;
}

export interface ResultSink {
  write(batch: readonly CaseEvaluation[]): Promise<Result<void, SinkFailure>>;
  close(): Promise<void>;
}
