/**
 * The condition on a row's time (a request's started_at, or metric_values'
 * ts) that selects the minutes, tenants and services a rollup refresh
 * recomputes (metric-rollups.ts refreshParameters). Every rollup's refresh
 * reads its source through it; `scoped` false leaves out tenant and service,
 * for a source that has neither (evaluation_results).
 */
export function refreshedRequests(timeColumn: string, scoped = true): string {
  const minutes = `${timeColumn} >= fromUnixTimestamp64Milli({from:Int64}) AND ${timeColumn} < fromUnixTimestamp64Milli({to:Int64}) AND toUnixTimestamp(toStartOfMinute(${timeColumn})) IN {minutes:Array(UInt32)}`;
  return scoped ? `${minutes} AND tenant_id IN {tenants:Array(String)} AND service_name IN {services:Array(String)}` : minutes;
}
