/**
 * One minute's failing requests per root cause as root_cause_rollups hold them (what the dashboards read): the
 * rollup upgrade tests read them before and after a migration that changes what the rollups count.
 */
import type { ClickHouseConnection } from "../../store/clickhouse/clickhouse-connection.js";
import { queryRows } from "./temporary-store.js";

/** `minute` as 'YYYY-MM-DD hh:mm:00' (UTC); the causes with a count, by root cause. */
export async function rootCauseRollupCounts(connection: ClickHouseConnection, minute: string): Promise<Record<string, number>> {
  const rows = await queryRows<{ root_cause: string; failing: string }>(
    connection,
    "SELECT root_cause, sum(failing_requests) AS failing FROM {{database}}.root_cause_rollups FINAL WHERE minute = toDateTime({minute:String}, 'UTC') GROUP BY root_cause HAVING failing > 0 ORDER BY root_cause",
    { minute },
  );
  return Object.fromEntries(rows.map((row) => [row.root_cause, Number(row.failing)]));
}
