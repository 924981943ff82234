/**
 * A TenantScope (store/ports/tenant-scope.ts) as SQL: the condition each
 * table's rows must meet, with the tenants as a query parameter, never as
 * text. case_results, trace_list and trace_list_metrics (copies for the web UI's list), metric_values, metric_rollups, metric_rollups_hourly, request_rollups, session_rollups, session_rollups_by_session, session_summaries, root_cause_rollups, abstention_rollups, stage_rollups and trace_spans carry tenant_id; the other tables are
 * reached through the case results the scope admits (an evaluation or label
 * by its case result, an Eval Case by the cases they answer and only when it
 * names no tenant or one of the scope's: contracts/eval-case-tenant.ts).
 * A run's lineage (`runs`) carries the tenant that recorded it (migration
 * 0027) and is read by that tenant's readers only, never through results
 * that name its run id: any tenant can put any run id on its spans. A run
 * recorded without a tenant ('') is read by readers of every tenant alone.
 * For "all" every condition is `1`.
 */
import type { TenantScope } from "../ports/tenant-scope.js";

export type ScopedTable = "case_results" | "trace_list" | "trace_list_metrics" | "metric_values" | "metric_rollups" | "metric_rollups_hourly" | "request_rollups" | "session_rollups" | "session_rollups_by_session" | "session_summaries" | "root_cause_rollups" | "abstention_rollups" | "stage_rollups" | "trace_spans" | "evaluation_results" | "human_labels" | "runs" | "eval_cases" | "collector_health";

/** The parameter name; a panel or reader query must not use it for anything else. */
export const SCOPE_PARAMETER = "ragscope_scope_tenants";

export class TenantFilter {
  /** Merge into a query's parameters (empty for "all"). */
  readonly parameters: Record<string, unknown>;

  /** `database` is already quoted (quoteIdentifier). */
  constructor(
    private readonly database: string,
    readonly scope: TenantScope,
  ) {
    this.parameters = scope === "all" ? {} : { [SCOPE_PARAMETER]: [...scope] };
  }

  get unrestricted(): boolean {
    return this.scope === "all";
  }

  /** The condition on `table`'s rows (columns unqualified), to AND into its WHERE. */
  on(table: ScopedTable): string {
    if (this.scope === "all") return "1";
    const tenants = `{${SCOPE_PARAMETER}:Array(String)}`;
    const admitted = (columns: string) => `SELECT ${columns} FROM ${this.database}.case_results WHERE tenant_id IN ${tenants}`;
    switch (table) {
      case "case_results":
      case "trace_list":
      case "trace_list_metrics":
      case "metric_values":
      case "metric_rollups":
      case "metric_rollups_hourly":
      case "request_rollups":
      case "session_rollups":
      case "session_rollups_by_session":
      case "session_summaries":
      case "root_cause_rollups":
      case "abstention_rollups":
      case "stage_rollups":
      case "trace_spans":
        return `tenant_id IN ${tenants}`;
      case "evaluation_results":
      case "human_labels":
        return `case_result_id IN (${admitted("case_result_id")})`;
      case "runs":
        // '' is excluded even from a scope that lists it: nothing says whose run a lineage without a tenant was.
        return `tenant_id IN ${tenants} AND tenant_id != ''`;
      case "eval_cases":
        // JSONExtractString reads '' for a tenant that is absent or not a text: such a case names none, as evalCaseTenant has it.
        return `(case_id, case_version) IN (${admitted("case_id, case_version")}) AND JSONExtractString(payload, 'context', 'tenant_id') IN arrayConcat([''], ${tenants})`;
      case "collector_health":
        // The collector's own counters cover every tenant: a tenant reader sees none of them.
        return "0";
    }
  }
}
