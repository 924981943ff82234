/**
 * What a Kafka test reads back from ClickHouse to judge "exactly once in
 * effect": collapsed counts (FINAL, what dashboards see) next to raw row
 * counts (what at-least-once delivery actually wrote), the output_tokens
 * metric's count and sum, and any metric key still present twice after FINAL.
 */
import type { ClickHouseConnection } from "../../../../store/clickhouse/clickhouse-connection.js";
import { queryRows } from "../../../support/temporary-store.js";

export interface StoredResults {
  caseResults: number;
  caseResultRows: number;
  distinctTraceIds: number;
  partialTraces: number;
  outputTokens: { count: number; sum: number };
  metricValueRows: number;
  metricValuesFinal: number;
  /** (metric, case_result_id, evaluator_id) keys that FINAL still returns more than once. */
  duplicatedMetricKeys: number;
}

const number = (value: unknown) => Number(value ?? 0);

export async function readStoredResults(connection: ClickHouseConnection): Promise<StoredResults> {
  const [cases] = await queryRows<Record<string, string>>(
    connection,
    "SELECT count() AS final, uniqExact(trace_id) AS traces, countIf(partial_trace = 1) AS partial FROM {{database}}.case_results FINAL",
  );
  const [raw] = await queryRows<Record<string, string>>(connection, "SELECT count() AS rows FROM {{database}}.case_results");
  const [tokens] = await queryRows<Record<string, string>>(
    connection,
    "SELECT count() AS count, sum(value) AS sum FROM {{database}}.metric_values FINAL WHERE metric = 'output_tokens'",
  );
  const [metrics] = await queryRows<Record<string, string>>(connection, "SELECT count() AS final FROM {{database}}.metric_values FINAL");
  const [metricRows] = await queryRows<Record<string, string>>(connection, "SELECT count() AS rows FROM {{database}}.metric_values");
  const [duplicates] = await queryRows<Record<string, string>>(
    connection,
    "SELECT count() AS keys FROM (SELECT metric, case_result_id, evaluator_id, count() AS copies FROM {{database}}.metric_values FINAL GROUP BY metric, case_result_id, evaluator_id HAVING copies > 1)",
  );
  return {
    caseResults: number(cases?.final),
    caseResultRows: number(raw?.rows),
    distinctTraceIds: number(cases?.traces),
    partialTraces: number(cases?.partial),
    outputTokens: { count: number(tokens?.count), sum: number(tokens?.sum) },
    metricValueRows: number(metricRows?.rows),
    metricValuesFinal: number(metrics?.final),
    duplicatedMetricKeys: number(duplicates?.keys),
  };
}

export async function countCaseResults(connection: ClickHouseConnection): Promise<number> {
  const [row] = await queryRows<{ total: string }>(connection, "SELECT count() AS total FROM {{database}}.case_results FINAL");
  return Number(row?.total ?? 0);
}

export async function storedTraceIds(connection: ClickHouseConnection): Promise<Set<string>> {
  const rows = await queryRows<{ trace_id: string }>(connection, "SELECT DISTINCT trace_id FROM {{database}}.case_results FINAL");
  return new Set(rows.map((row) => row.trace_id));
}
