/**
 * Human labels in ClickHouse (table `human_labels`, migration
 * 0003_human_labels.sql), on a ClickHouse server or embedded chDB through the
 * same client. Rows are keyed by the deterministic label_id with the label time
 * as version, so a relabel — or a retried insert — collapses to the latest
 * label; reads use FINAL.
 */
import type { ClickHouseConnection } from "./clickhouse-connection.js";
import { quoteIdentifier } from "./clickhouse-connection.js";
import type { ClickHouseMetricRollups } from "./metric-rollups.js";
import { OutOfScopeError, type TenantScope } from "../ports/tenant-scope.js";
import { TenantFilter } from "./tenant-filter.js";
import { humanLabel, type HumanLabel } from "../../evaluators/judge/calibration/human-label.js";
import { requestKey, sortLabels, type HumanLabelFilter, type HumanLabelStore } from "../ports/human-label-store.js";

interface HumanLabelRow {
  label_id: string;
  case_result_id: string;
  trace_id: string;
  metric: string;
  labeler_id: string;
  verdict: string;
  value: number | null;
  note: string;
  labeled_at_ms: string | number;
}

export class ClickHouseHumanLabelStore implements HumanLabelStore {
  private readonly table: string;

  private readonly tenants: TenantFilter;

  constructor(
    private readonly connection: ClickHouseConnection,
    scope: TenantScope = "all",
    /** The dashboards' rollups: request_rollups count final verdicts, which a review changes (migration 0014). */
    private readonly rollups?: ClickHouseMetricRollups,
  ) {
    this.table = `${quoteIdentifier(connection.database)}.human_labels`;
    this.tenants = new TenantFilter(quoteIdentifier(connection.database), scope);
  }

  async save(labels: readonly HumanLabel[]): Promise<void> {
    if (labels.length === 0) return;
    if (!this.tenants.unrestricted) {
      // A scoped reader labels only what it can read: another tenant's request (or one not stored) refuses the whole batch.
      const ids = [...new Set(labels.map((label) => label.case_result_id))];
      const result = await this.connection.client.query({
        query: `SELECT DISTINCT case_result_id, trace_id FROM ${quoteIdentifier(this.connection.database)}.case_results WHERE case_result_id IN {ids:Array(String)} AND ${this.tenants.on("case_results")}`,
        query_params: { ids, ...this.tenants.parameters },
        format: "JSONEachRow",
      });
      const rows = await result.json<{ case_result_id: string; trace_id: string }>();
      const readableRequests = new Set(rows.map((row) => requestKey(row)));
      const readableCases = new Set(rows.map((row) => row.case_result_id));
      // A label moved off a request (trace_id "") names only its case.
      const outside = labels.filter((label) => (label.trace_id === "" ? !readableCases.has(label.case_result_id) : !readableRequests.has(requestKey(label)))).length;
      if (outside > 0) throw new OutOfScopeError(outside);
    }
    const values = labels.map((label) => {
      const parsed = humanLabel.parse(label);
      return { ...parsed, labeled_at: new Date(parsed.labeled_at).toISOString(), version: Date.parse(parsed.labeled_at) };
    });
    await this.connection.client.insert({ table: this.table, values, format: "JSONEachRow", clickhouse_settings: { date_time_input_format: "best_effort" } });
    if (this.rollups) await this.noteReviewedRequests([...new Set(labels.map((label) => label.case_result_id))]);
  }

  /**
   * A review changes its request's final verdict, which request_rollups count, without a write to case_results:
   * the request's minute is noted for the next refresh, as a sink notes the minutes it wrote.
   */
  private async noteReviewedRequests(ids: string[]): Promise<void> {
    // Every request of the cases: a label moved from one request of a case to another changes both verdicts.
    const result = await this.connection.client.query({
      query: `SELECT DISTINCT toUnixTimestamp64Milli(started_at) AS started_ms, tenant_id, service_name FROM ${quoteIdentifier(this.connection.database)}.case_results WHERE case_result_id IN {ids:Array(String)}`,
      query_params: { ids },
      format: "JSONEachRow",
    });
    const rows = await result.json<{ started_ms: string | number; tenant_id: string; service_name: string }>();
    this.rollups!.note(rows.map((row) => ({ startedAt: new Date(Number(row.started_ms)).toISOString(), tenantId: row.tenant_id, serviceName: row.service_name })));
  }

  async list(filter: HumanLabelFilter = {}): Promise<HumanLabel[]> {
    const conditions: string[] = [this.tenants.on("human_labels")];
    const parameters: Record<string, unknown> = { ...this.tenants.parameters };
    if (filter.metric !== undefined) {
      conditions.push("metric = {metric:String}");
      parameters.metric = filter.metric;
    }
    if (filter.labelerId !== undefined) {
      conditions.push("labeler_id = {labelerId:String}");
      parameters.labelerId = filter.labelerId;
    }
    if (filter.caseResultIds !== undefined) {
      conditions.push("case_result_id IN {caseResultIds:Array(String)}");
      parameters.caseResultIds = [...filter.caseResultIds];
    }
    const where = `WHERE ${conditions.join(" AND ")}`;
    const result = await this.connection.client.query({
      query: `SELECT label_id, case_result_id, trace_id, metric, labeler_id, verdict, value, note, toUnixTimestamp64Milli(labeled_at) AS labeled_at_ms FROM ${this.table} FINAL ${where}`,
      query_params: parameters,
      format: "JSONEachRow",
    });
    const rows = await result.json<HumanLabelRow>();
    return sortLabels(rows.map((row) => humanLabel.parse({ label_id: row.label_id, case_result_id: row.case_result_id, trace_id: row.trace_id, metric: row.metric, labeler_id: row.labeler_id, verdict: row.verdict, value: row.value === null ? null : Number(row.value), note: row.note, labeled_at: new Date(Number(row.labeled_at_ms)).toISOString() })));
  }
}
