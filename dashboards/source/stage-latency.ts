/**
 * The stage latency panels of the RAG quality board and the rollups they read
 * (stage_rollups, migration 0019): per minute × tenant × service × dataset ×
 * run × stage, the stage's span count, the sum of its durations and a t-digest
 * state of them, recomputed from `case_results FINAL` by the collector's
 * rollup refresh (store/clickhouse/metric-rollups.ts). A 30-day panel reads
 * these rows instead of unnesting every request's stage timings.
 */
import { dashboardScope } from "./sql-scope.js";

/** The columns of stage_rollups in the order stageRollupSelect computes them. */
export const STAGE_ROLLUP_COLUMNS = ["minute", "tenant_id", "service_name", "dataset_id", "run_id", "stage", "spans", "duration_sum", "duration_quantiles", "version"] as const;

/**
 * The SELECT computing stage_rollups rows from the stage timings of the case_results FINAL rows meeting `where`
 * (migration 0019's backfill spells out the same). `{version:UInt64}` is a parameter.
 */
export function stageRollupSelect(database: string, where: string): string {
  return [
    "SELECT toStartOfMinute(started_at) AS minute, tenant_id, service_name, dataset_id, run_id, stage,",
    "       count() AS spans, sum(duration_ms) AS duration_sum, quantileTDigestState(duration_ms) AS duration_quantiles,",
    "       {version:UInt64} AS version",
    `FROM ${database}.case_results FINAL`,
    "ARRAY JOIN stage_names AS stage, stage_durations_ms AS duration_ms",
    `WHERE (${where})`,
    "GROUP BY minute, tenant_id, service_name, dataset_id, run_id, stage",
  ].join("\n");
}

/** The rollup rows of the board's range and filters (whole minutes: a row is in the range when its minute starts in it). */
const STAGE_ROWS = `stage_rollups FINAL WHERE ${dashboardScope("minute")}`;

/**
 * A stage duration percentile merged from the minutes' t-digest states: the
 * same estimate as the request latency percentiles (migration 0009), within
 * about 1 % of the ranks of the exact nearest-rank value; Float64 like the
 * other numbers of the board.
 */
function percentileColumn(percentile: number): string {
  return `toFloat64(quantileTDigestMerge(${percentile / 100})(duration_quantiles))`;
}

/** P95 of each stage per time bucket, one series per stage. */
export function stageLatencyOverTimeSql(): string {
  return [`SELECT $__timeInterval(minute) AS time, stage AS series, ${percentileColumn(95)} AS Value`, `FROM ${STAGE_ROWS}`, "GROUP BY time, series", "ORDER BY time"].join("\n");
}

/**
 * Per stage over the range: spans, mean and P50 / P95 / P99. The three percentiles come from one merge of the
 * states (quantilesTDigestMerge): a merge per percentile took about twice the CPU for the same numbers.
 */
export function stageLatencyTableSql(): string {
  return [
    `SELECT stage AS "Stage", spans AS "Spans", duration_sum / spans AS "Mean", toFloat64(percentiles[1]) AS "P50", toFloat64(percentiles[2]) AS "P95", toFloat64(percentiles[3]) AS "P99"`,
    `FROM (SELECT stage, sum(spans) AS spans, sum(duration_sum) AS duration_sum, quantilesTDigestMerge(0.5, 0.95, 0.99)(duration_quantiles) AS percentiles FROM ${STAGE_ROWS} GROUP BY stage)`,
    `ORDER BY "P95" DESC`,
  ].join("\n");
}
