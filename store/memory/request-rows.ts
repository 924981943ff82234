/**
 * Which of the in-memory Case Result rows are which request. The rows are
 * keyed as the ClickHouse table sorts them (tenant, service, UTC day, Case
 * Result id: migration 0007), so one Case Result id may have several rows: a
 * case of a run sent again after midnight UTC or from a renamed service, or a
 * result rebuilt from a partial trace that named no tenant. The trace list
 * shows every row; a run, and a trace opened by its id alone, read the newest
 * of an id's rows — the highest version, then the row the list shows first —
 * as the ClickHouse reader's argMax by NEWEST_REQUEST_ORDER does
 * (store/clickhouse/newest-row.ts).
 */
import type { CaseResult } from "../../contracts/case-result.js";
import { compareNewestFirst, type TraceCursor } from "../ports/trace-reader.js";
import { dayOf, type RequestOfRow, type StoredMetricValue, type Versioned } from "./memory-tables.js";

/** A Case Result's row key: case_results' sorting key. */
export function requestKey(caseResult: CaseResult): string {
  const observation = caseResult.rag_observation;
  return JSON.stringify([observation.tenant_id ?? "", observation.service_name ?? "", dayOf(caseResult.started_at), caseResult.case_result_id]);
}

/** A row's place in the list (compareNewestFirst), and the cursor of the page that ends with it: its start, id, trace, tenant and service as listed. */
export function listPosition(caseResult: CaseResult): TraceCursor {
  const observation = caseResult.rag_observation;
  return { startedAtMs: Date.parse(caseResult.started_at), caseResultId: caseResult.case_result_id, traceId: caseResult.trace_id, tenantId: observation.tenant_id ?? "", serviceName: observation.service_name ?? "" };
}

/**
 * Whether `first` is newer than `second`: a higher version (of two writes of this store, or of one id's requests in
 * one write, the later: store/row-version-clock.ts), else (two requests written with one version: two processes'
 * writes in one millisecond) the one the trace list shows first. Not the order of the writes, which the engine's merges do not keep across sorting keys, nor the insert
 * time, which the engine's clock stamps, not the store's (newest-row.ts).
 */
function newer(first: Versioned<CaseResult>, second: Versioned<CaseResult>): boolean {
  if (first.version !== second.version) return first.version > second.version;
  return compareNewestFirst(listPosition(first.row), listPosition(second.row)) < 0;
}

/** Orders a case's rows newest first, as newestRequests picks its newest (and readTrace its request). */
export function compareNewestRequestFirst(first: Versioned<CaseResult>, second: Versioned<CaseResult>): number {
  return newer(first, second) ? -1 : newer(second, first) ? 1 : 0;
}

/** Of the given rows, each Case Result id's newest, in the order the ids were first met. */
export function newestRequests(rows: readonly Versioned<CaseResult>[]): Map<string, CaseResult> {
  const newest = new Map<string, Versioned<CaseResult>>();
  for (const entry of rows) {
    const seen = newest.get(entry.row.case_result_id);
    if (seen === undefined || newer(entry, seen)) newest.set(entry.row.case_result_id, entry);
  }
  return new Map([...newest].map(([id, entry]) => [id, entry.row]));
}

/** Whether a row written with a request (an Evaluation Result, a metric value) was written with `caseResult`'s: the same trace and start. */
export function writtenWith(row: RequestOfRow, caseResult: CaseResult): boolean {
  return row.traceId === caseResult.trace_id && Date.parse(row.startedAt) === Date.parse(caseResult.started_at);
}

/**
 * Whether a metric value is `caseResult`'s row: the same trace and start, and the same tenant and service, which
 * metric_values' sorting key holds as case_results' does — a result rebuilt without a tenant at the same start keeps
 * metric rows of its own beside the newest request's.
 */
export function metricValueOf(row: StoredMetricValue, caseResult: CaseResult): boolean {
  return writtenWith(row, caseResult) && row.tenantId === (caseResult.rag_observation.tenant_id ?? "") && row.serviceName === (caseResult.rag_observation.service_name ?? "");
}
