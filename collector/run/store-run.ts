/** Records a run's lineage (contracts/run-lineage.ts) in the `runs` table. */
import { runLineage, type RunLineage } from "../../contracts/run-lineage.js";
import type { ClickHouseConnection } from "../sink/clickhouse-connection.js";
import { quoteIdentifier } from "../sink/clickhouse-connection.js";

export async function storeRun(connection: ClickHouseConnection, lineage: Partial<RunLineage> & Pick<RunLineage, "run_id" | "started_at">): Promise<RunLineage> {
  const run = runLineage.parse(lineage);
  await connection.client.insert({
    table: `${quoteIdentifier(connection.database)}.runs`,
    values: [{ run_id: run.run_id, dataset_id: run.dataset_id ?? "", dataset_version: run.dataset_version ?? "", started_at: run.started_at, payload: JSON.stringify(run), version: Date.now() }],
    format: "JSONEachRow",
    clickhouse_settings: { date_time_input_format: "best_effort" },
  });
  return run;
}
