/**
 * Human labels in ClickHouse (table `human_labels`, migration
 * 0003_human_labels.sql), on a ClickHouse server or embedded chDB through the
 * same client. Rows are keyed by the deterministic label_id with the label time
 * as version, so a relabel — or a retried insert — collapses to the latest
 * label; reads use FINAL.
 */
import type { ClickHouseConnection } from "./clickhouse-connection.js";
import { quoteIdentifier } from "./clickhouse-connection.js";
import { humanLabel, type HumanLabel } from "../../evaluators/judge/calibration/human-label.js";
import { sortLabels, type HumanLabelFilter, type HumanLabelStore } from "../ports/human-label-store.js";

interface HumanLabelRow {
  label_id: string;
  case_result_id: string;
  metric: string;
  labeler_id: string;
  verdict: string;
  value: number | null;
  note: string;
  labeled_at_ms: string | number;
}

export class ClickHouseHumanLabelStore implements HumanLabelStore {
  private readonly table: string;

  constructor(private readonly connection: ClickHouseConnection) {
    this.table = `${quoteIdentifier(connection.database)}.human_labels`;
  }

  async save(labels: readonly HumanLabel[]): Promise<void> {
    if (labels.length === 0) return;
    const values = labels.map((label) => {
      const parsed = humanLabel.parse(label);
      return { ...parsed, labeled_at: new Date(parsed.labeled_at).toISOString(), version: Date.parse(parsed.labeled_at) };
    });
    await this.connection.client.insert({ table: this.table, values, format: "JSONEachRow", clickhouse_settings: { date_time_input_format: "best_effort" } });
  }

  async list(filter: HumanLabelFilter = {}): Promise<HumanLabel[]> {
    const conditions: string[] = [];
    const parameters: Record<string, unknown> = {};
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
    const where = conditions.length === 0 ? "" : `WHERE ${conditions.join(" AND ")}`;
    const result = await this.connection.client.query({
      query: `SELECT label_id, case_result_id, metric, labeler_id, verdict, value, note, toUnixTimestamp64Milli(labeled_at) AS labeled_at_ms FROM ${this.table} FINAL ${where}`,
      query_params: parameters,
      format: "JSONEachRow",
    });
    const rows = await result.json<HumanLabelRow>();
    return sortLabels(rows.map((row) => humanLabel.parse({ label_id: row.label_id, case_result_id: row.case_result_id, metric: row.metric, labeler_id: row.labeler_id, verdict: row.verdict, value: row.value === null ? null : Number(row.value), note: row.note, labeled_at: new Date(Number(row.labeled_at_ms)).toISOString() })));
  }
}
