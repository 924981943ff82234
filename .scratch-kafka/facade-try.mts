import { startClickHouseHttpFacade } from "/work/main/test/integration/kafka/support/clickhouse-http-facade.ts";
import { openClickHouse } from "/work/main/collector/sink/clickhouse-connection.ts";
import { runMigrations } from "/work/main/collector/sink/run-migrations.ts";
import { mkdtempSync } from "node:fs";
const facade = await startClickHouseHttpFacade({ dataPath: mkdtempSync("/tmp/facade-") });
const connection = await openClickHouse({ url: facade.url, username: "default", password: "", database: "facade_db", dataPath: "/unused" });
console.log(await runMigrations(connection));
await connection.client.insert({ table: "facade_db.runs", values: [{ run_id: "r1", dataset_id: "d", dataset_version: "1", started_at: "2026-01-01T00:00:00Z", payload: "{}", version: 1 }], format: "JSONEachRow", clickhouse_settings: { date_time_input_format: "best_effort", insert_deduplication_token: "abc" } });
const result = await connection.client.query({ query: "SELECT run_id, count() AS n FROM facade_db.runs FINAL WHERE run_id = {id:String} GROUP BY run_id", query_params: { id: "r1" }, format: "JSONEachRow" });
console.log(await result.json());
try { await connection.client.query({ query: "SELECT * FROM facade_db.nope", format: "JSONEachRow" }); } catch (e) { console.log("error:", (e as any).code, (e as any).type, (e as any).message); }
console.log(await connection.client.ping());
await facade.stop();
console.log("down ping:", (await connection.client.ping()).success);
await facade.start();
console.log("up ping:", (await connection.client.ping()).success);
await connection.close(); await facade.close();
