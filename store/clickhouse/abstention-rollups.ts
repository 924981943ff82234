/**
 * The refresh of `abstention_rollups` (migration 0017): the abstention pairs
 * of the minutes a refresh recomputes (store/clickhouse/metric-rollups.ts),
 * counted as dashboards/source/aggregate-metrics.ts defines them. The pairs
 * are metric_values rows, so the minutes, tenants and services are those of
 * metric_values' `ts`, as for metric_rollups.
 */
import { ABSTENTION_ROLLUP_COUNTS, ABSTENTION_ROLLUP_GROUP, abstentionRollupSelect } from "../../dashboards/source/aggregate-metrics.js";
import { FINAL_WITHIN_PARTITIONS, withStatementSettings } from "./final-within-partitions.js";
import { refreshedRequests } from "./refreshed-requests.js";

/** The columns of abstention_rollups in the order abstentionRollupSelect computes them. */
export const ABSTENTION_ROLLUP_COLUMNS = ["minute", ...ABSTENTION_ROLLUP_GROUP, ...Object.keys(ABSTENTION_ROLLUP_COUNTS), "version"].join(", ");

/** What a refresh reads for a range of minutes (metric-rollups.ts refreshParameters); FINAL within partitions reads the minutes' days only. */
export function abstentionRefreshSelect(database: string): string {
  return withStatementSettings(
    abstentionRollupSelect(
      database,
      refreshedRequests("ts"),
    ),
    FINAL_WITHIN_PARTITIONS,
  );
}

/** Every stored pair (a rebuild after a bulk load or a repair). */
export function abstentionRebuildSelect(database: string): string {
  return abstentionRollupSelect(database, "1");
}
