/**
 * The in-memory store's tables, shared by its ports. Each keeps one row per
 * key, as the ClickHouse tables do once collapsed with FINAL: the row with
 * the highest version wins, and of equal versions the one written last
 * (ReplacingMergeTree's rule). The keys are the ClickHouse tables' sorting
 * keys (migration 0007), so a case of a run sent again after midnight UTC or
 * from a renamed service is two rows here as it is there: the trace list
 * shows each request, the run reader reads the newest (request-rows.ts).
 * Nothing is bounded here: this store is for tests and short-lived
 * processes, whose data fits in memory by design.
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

  /** Of one key, the row upserted last replaces one of the same or a lower version (ReplacingMergeTree's FINAL). */
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

  /** Every kept row with its version. */
  entries(): Versioned<Row>[] {
    return [...this.rows.values()];
  }
}

/** The UTC day of an ISO time, as toDate() gives it in the ClickHouse tables' sorting keys. */
export const dayOf = (time: string): string => new Date(Date.parse(time)).toISOString().slice(0, 10);

/** Which request of its Case Result a row was written with: its trace id and start (the ClickHouse rows carry both). */
export interface RequestOfRow {
  traceId: string;
  /** The Case Result's started_at, as written. */
  startedAt: string;
}

export interface StoredEvaluation extends RequestOfRow {
  runId: string;
  caseId: string;
  result: EvaluationResult;
}

export interface StoredMetricValue extends RequestOfRow {
  metric: string;
  caseResultId: string;
  evaluatorId: string;
  runId: string;
  tenantId: string;
  serviceName: string;
  value: number | null;
  /** The heuristic judge's value (case-verdict.ts isHeuristicJudgement): what ClickHouse reads from evaluator_version with HEURISTIC_JUDGE_ROW_SQL. */
  heuristicJudgement: boolean;
}

/** A run's lineage as one tenant recorded it (NO_TENANT: recorded without one); keyed by run id and tenant, as migration 0027 keys the runs table. */
export interface RecordedRun {
  tenantId: string;
  lineage: RunLineage;
  /** Its row version (store/row-version-clock.ts): of the records of one run id with a tenant, the newest is the one read. */
  version: number;
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
  if (record.version !== other.version) return record.version > other.version;
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
