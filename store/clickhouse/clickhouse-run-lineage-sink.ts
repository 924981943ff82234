/** Records a run's lineage (contracts/run-lineage.ts) in the `runs` table, under its tenant (migration 0027). */
import { runLineage, type RunLineage } from "../../contracts/run-lineage.js";
import { NO_TENANT, type RunLineageInput, type RunLineageSink } from "../ports/run-lineage-sink.js";
import { quoteIdentifier, type ClickHouseConnection } from "./clickhouse-connection.js";
import { RowVersionClock } from "../row-version-clock.js";

export class ClickHouseRunLineageSink implements RunLineageSink {
  constructor(
    private readonly connection: ClickHouseConnection,
    /**
     * The store's row versions (row-version-clock.ts): of one process's records of a run id, the later is read — the
     * same tenant's (one key, where the engine's write order would do too), and another tenant's, which a reader of
     * every tenant reads by version (run-record-read-order.ts) and which the clock alone tied within one millisecond
     * (the greater tenant won) or put behind an earlier record when it stepped back.
     */
    private readonly versions: RowVersionClock = new RowVersionClock(),
  ) {}

  async record(lineage: RunLineageInput, tenantId: string = NO_TENANT): Promise<RunLineage> {
    const run = runLineage.parse(lineage);
    await this.connection.client.insert({
      table: `${quoteIdentifier(this.connection.database)}.runs`,
      values: [{ run_id: run.run_id, tenant_id: tenantId, dataset_id: run.dataset_id ?? "", dataset_version: run.dataset_version ?? "", started_at: run.started_at, payload: JSON.stringify(run), version: this.versions.next() }],
      format: "JSONEachRow",
      clickhouse_settings: { date_time_input_format: "best_effort" },
    });
    return run;
  }
}
