/**
 * The in-memory store's tables, shared by its ports. Each keeps one row per
 * key, as the ClickHouse tables do once collapsed with FINAL: the row with
 * the highest version wins, and of equal versions the one written last
 * (ReplacingMergeTree's rule). Nothing is bounded here: this store is for
 * tests and short-lived processes, whose data fits in memory by design.
 */
import type { CaseResult } from "../../contracts/case-result.js";
import type { EvalCase } from "../../contracts/eval-case.js";
import type { EvaluationResult } from "../../contracts/evaluation-result.js";
import type { RunLineage } from "../../contracts/run-lineage.js";

export interface Versioned<Row> {
  row: Row;
  version: number;
}

export class VersionedTable<Row> {
  private readonly rows = new Map<string, Versioned<Row>>();

  upsert(key: string, row: Row, version: number): void {
    const existing = this.rows.get(key);
    if (existing === undefined || version >= existing.version) this.rows.set(key, { row, version });
  }

  get(key: string): Row | undefined {
    return this.rows.get(key)?.row;
  }

  values(): Row[] {
    return [...this.rows.values()].map((entry) => entry.row);
  }
}

export interface StoredEvaluation {
  runId: string;
  caseId: string;
  result: EvaluationResult;
}

export interface StoredMetricValue {
  metric: string;
  caseResultId: string;
  evaluatorId: string;
  runId: string;
  value: number | null;
}

/** A run's lineage as one tenant recorded it (NO_TENANT: recorded without one); keyed by run id and tenant, as migration 0027 keys the runs table. */
export interface RecordedRun {
  tenantId: string;
  lineage: RunLineage;
  /** Its version: of the records of one run id with a tenant, the newest is the one read. */
  recordedAt: number;
}

export const recordedRunKey = (runId: string, tenantId: string) => JSON.stringify([runId, tenantId]);

/**
 * Whether `record` is read before `other` (RunReader.readRun): one without a tenant first, then one that says the run
 * has not finished, then the newest, then the greatest tenant — the ClickHouse reader's order (store/clickhouse/run-record-read-order.ts).
 */
function readBefore(record: RecordedRun, other: RecordedRun): boolean {
  if ((record.tenantId === "") !== (other.tenantId === "")) return record.tenantId === "";
  const unfinished = (run: RecordedRun) => run.lineage.completion?.status === "running" || run.lineage.completion?.status === "interrupted";
  if (unfinished(record) !== unfinished(other)) return unfinished(record);
  if (record.recordedAt !== other.recordedAt) return record.recordedAt > other.recordedAt;
  return record.tenantId > other.tenantId;
}

/** Of the records of each run id, the one a reader of every tenant reads (readBefore). */
export function readRecords(records: readonly RecordedRun[]): Map<string, RecordedRun> {
  const read = new Map<string, RecordedRun>();
  for (const record of records) {
    const seen = read.get(record.lineage.run_id);
    if (seen === undefined || readBefore(record, seen)) read.set(record.lineage.run_id, record);
  }
  return read;
}

export class MemoryTables {
  readonly caseResults = new VersionedTable<CaseResult>();
  readonly evaluations = new VersionedTable<StoredEvaluation>();
  readonly metricValues = new VersionedTable<StoredMetricValue>();
  readonly evalCases = new VersionedTable<EvalCase>();
  readonly runs = new VersionedTable<RecordedRun>();
}
