/** Records a run's lineage (contracts/run-lineage.ts) in the `runs` table, under its tenant (migration 0027). */
import { runLineage, type RunLineage } from "../../contracts/run-lineage.js";
import { NO_TENANT, type RunLineageInput, type RunLineageSink } from "../ports/run-lineage-sink.js";
import { quoteIdentifier, type ClickHouseConnection } from "./clickhouse-connection.js";

export class ClickHouseRunLineageSink implements RunLineageSink {
  constructor(
    private readonly connection: ClickHouseConnection,
    private readonly now: () => number = Date.now,
  ) {}

  async record(lineage: RunLineageInput, tenantId: string = NO_TENANT): Promise<RunLineage> {
    const run = runLineage.parse(lineage);
    await this.connection.client.insert({
      table: `${quoteIdentifier(this.connection.database)}.runs`,
      values: [{ run_id: run.run_id, tenant_id: tenantId, dataset_id: run.dataset_id ?? "", dataset_version: run.dataset_version ?? "", started_at: run.started_at, payload: JSON.stringify(run), version: this.now() }],
      format: "JSONEachRow",
      clickhouse_settings: { date_time_input_format: "best_effort" },
    });
    return run;
  }
}
