/**
 * Every port of the store, as one value a composition root opens and hands
 * out piece by piece: the evaluation worker gets `results`, `quarantine` and
 * `cases`; the online stage `judgeResults` and `alerts`; health snapshots
 * `health`; the gate, the report and the demo summary `reader`.
 * Implementations: store/clickhouse (ClickHouse server or embedded chDB) and
 * store/memory (tests, and anywhere nothing must outlive the process).
 */
import type { AlertSink } from "./alert-sink.js";
import type { DeadLetterStore } from "./dead-letter-store.js";
import type { CaseStore } from "./case-store.js";
import type { HealthSink } from "./health-sink.js";
import type { ExperimentReader } from "./experiment-reader.js";
import type { HumanLabelStore } from "./human-label-store.js";
import type { JudgeResultSink } from "./judge-result-sink.js";
import type { QuarantineSink, ResultSink } from "./result-sink.js";
import type { RunLineageSink } from "./run-lineage-sink.js";
import type { RunReader } from "./run-reader.js";
import type { QualityReader } from "./quality-reader.js";
import type { TraceReader } from "./trace-reader.js";

export interface Store {
  results: ResultSink;
  quarantine: QuarantineSink;
  cases: CaseStore;
  judgeResults: JudgeResultSink;
  humanLabels: HumanLabelStore;
  /** What the embedded collector acknowledged and could not evaluate, kept with the reason. */
  deadLetters: DeadLetterStore;
  health: HealthSink;
  alerts: AlertSink;
  runs: RunLineageSink;
  reader: RunReader;
  /** The live UI's read side: traces with filters and keyset paging, one trace, the runs. */
  traces: TraceReader;
  /** The UI's board and failures over time; only where the dashboards' SQL runs (the ClickHouse adapter). */
  quality?: QualityReader;
  /** Online experiments: the requests of one experiment id with their metric values. */
  experiments: ExperimentReader;
  /** For logs and errors: where the data is. */
  describe(): string;
  /** Null when the store answers; otherwise why not (readiness checks). */
  ping(): Promise<string | null>;
  close(): Promise<void>;
}
