/**
 * Every port of store/ports in memory, on shared tables: what the sinks write
 * the reader reads. For tests and for runs whose results need not outlive the
 * process; nothing is persisted.
 */
import { MemoryDeadLetterStore } from "./memory-dead-letter-store.js";
import type { Store } from "../ports/store.js";
import { MemoryAlertSink } from "./memory-alert-sink.js";
import { MemoryCaseStore } from "./memory-case-store.js";
import { MemoryExperimentReader } from "./memory-experiment-reader.js";
import { MemoryHealthSink } from "./memory-health-sink.js";
import { MemoryHumanLabelStore } from "./memory-human-label-store.js";
import { MemoryJudgeResultSink } from "./memory-judge-result-sink.js";
import { MemoryQuarantine, MemoryResultSink } from "./memory-result-sink.js";
import { MemoryRunLineageSink } from "./memory-run-lineage-sink.js";
import { MemoryRunReader } from "./memory-run-reader.js";
import { MemoryTables } from "./memory-tables.js";
import { MemoryTraceReader } from "./memory-trace-reader.js";
import { RowVersionClock } from "../row-version-clock.js";

export interface MemoryStore extends Store {
  quarantine: MemoryQuarantine;
  health: MemoryHealthSink;
  alerts: MemoryAlertSink;
  tables: MemoryTables;
}

export function createMemoryStore(options: { now?: () => number } = {}): MemoryStore {
  const now = options.now ?? Date.now;
  const tables = new MemoryTables();
  // One writer's versions for every sink of this store that versions rows: a later write of this store always wins (row-version-clock.ts).
  const versions = new RowVersionClock(now);
  const humanLabels = new MemoryHumanLabelStore();
  return {
    tables,
    results: new MemoryResultSink(tables, versions),
    quarantine: new MemoryQuarantine(),
    cases: new MemoryCaseStore(tables),
    judgeResults: new MemoryJudgeResultSink(tables, versions),
    deadLetters: new MemoryDeadLetterStore(),
    humanLabels,
    health: new MemoryHealthSink(),
    alerts: new MemoryAlertSink(),
    runs: new MemoryRunLineageSink(tables, versions),
    reader: new MemoryRunReader(tables, humanLabels),
    traces: new MemoryTraceReader(tables, humanLabels),
    experiments: new MemoryExperimentReader(tables),
    describe: () => "in-memory store (nothing persisted)",
    ping: async () => null,
    close: async () => {},
  };
}
