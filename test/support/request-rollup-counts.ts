/**
 * One minute's request counts two ways: as request_rollups hold them (what the
 * dashboards read) and as this release's rule counts them over case_results
 * FINAL (REQUEST_ROLLUP_COUNTS). The rollup upgrade tests compare the two
 * before and after a migration that changes how a verdict is counted.
 */
import { REQUEST_ROLLUP_COUNTS } from "../../dashboards/source/aggregate-metrics.js";
import { qualifyTables } from "../../report/qualify-tables.js";
import type { ClickHouseConnection } from "../../store/clickhouse/clickhouse-connection.js";
import { queryRows } from "./temporary-store.js";

export interface MinuteCounts {
  rolledUp: Record<string, number>;
  raw: Record<string, number>;
}

/**
 * `minute` as 'YYYY-MM-DD hh:mm:00' (UTC); `counted` names columns of request_rollups (keys of REQUEST_ROLLUP_COUNTS).
 * `rule` rewrites the raw count's statement: on a store of an earlier release, its way of reading the reviews
 * (reviews-per-case.ts), which this release's statement cannot read there.
 */
export async function minuteCounts(connection: ClickHouseConnection, minute: string, counted: readonly (keyof typeof REQUEST_ROLLUP_COUNTS)[], rule = (statement: string) => statement): Promise<MinuteCounts> {
  const [rolledUp] = await queryRows<Record<string, string>>(connection, `SELECT ${counted.map((name) => `sum(${name}) AS ${name}`).join(", ")} FROM {{database}}.request_rollups FINAL WHERE minute = toDateTime({minute:String}, 'UTC')`, { minute });
  const [raw] = await queryRows<Record<string, string>>(
    connection,
    qualifyTables(rule(`SELECT ${counted.map((name) => (REQUEST_ROLLUP_COUNTS[name] === "1" ? `count() AS ${name}` : `countIf(${REQUEST_ROLLUP_COUNTS[name]}) AS ${name}`)).join(", ")} FROM case_results FINAL WHERE toStartOfMinute(started_at) = toDateTime({minute:String}, 'UTC')`), connection.database),
    { minute },
  );
  const numbers = (row: Record<string, string> | undefined) => Object.fromEntries(Object.entries(row ?? {}).map(([name, value]) => [name, Number(value)]));
  return { rolledUp: numbers(rolledUp), raw: numbers(raw) };
}
