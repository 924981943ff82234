/**
 * The tenants and services holding a row of a request a rollup refresh recomputes, beside the ones it was asked
 * for. A request (a Case Result id's trace and start) can be stored under two sorting keys: a partial trace's result
 * beside the complete one, the partial one without the tenant its root span carried (or under another service).
 * root_cause_rollups counts such a request once, under its newest row's tenant and service
 * (dashboards/source/root-causes.ts rootCauseRollupSelect), so a refresh of the newest row's group alone would count
 * it there while the group its older row was counted under — refreshed when that row was written, before the
 * complete one arrived — kept its count: the Failures board's bars read 2 for one request. Recomputing both groups
 * together moves the count and deletes the row the recompute no longer produces (staleRowsDelete).
 *
 * Both rows start in the same minute (one start), so the refresh's own minutes hold them. Read without FINAL: any
 * version of a row marks its group. The Case Result ids narrow the read through the table's primary key and id
 * index; a refresh whose requests are all stored once finds nothing and recomputes what it was asked to.
 */
import { refreshedRequests } from "./refreshed-requests.js";

/** The SELECT of (tenant_id, service_name) pairs, under a refresh's parameters (metric-rollups.ts refreshParameters). */
export function groupsOfRefreshedRequestsSelect(database: string): string {
  const refreshed = `SELECT case_result_id, trace_id, started_at FROM ${database}.case_results WHERE ${refreshedRequests("started_at")}`;
  return [
    `SELECT DISTINCT tenant_id, service_name FROM ${database}.case_results`,
    `WHERE ${refreshedRequests("started_at", false)}`,
    `  AND case_result_id IN (SELECT case_result_id FROM (${refreshed}))`,
    `  AND (case_result_id, trace_id, started_at) IN (${refreshed})`,
    "  AND NOT (tenant_id IN {tenants:Array(String)} AND service_name IN {services:Array(String)})",
  ].join("\n");
}
