/**
 * A fresh ClickHouse database for one test file: embedded chDB in a temporary
 * folder by default, or the server in RAGSCOPE_TEST_CLICKHOUSE_URL when set, so
 * the same suite runs against both stores. Each call gets its own database name,
 * like clickhouse-js's tests get unique tables.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { openClickHouse, type ClickHouseConnection } from "../../store/clickhouse/clickhouse-connection.js";
import { runMigrations } from "../../store/clickhouse/run-migrations.js";
import { clickHouseStoreOn, type ClickHouseStore, type ClickHouseStoreOptions } from "../../store/clickhouse/clickhouse-store.js";
import { connectionReadingReviewsPerCase } from "./reviews-per-case.js";

export interface TemporaryStore {
  connection: ClickHouseConnection;
  /** Every port of the ClickHouse adapter on this database. */
  store: ClickHouseStore;
  dataPath: string;
  cleanup(): Promise<void>;
}

/**
 * `beside`: another database in that store's engine (chDB binds one data folder per process,
 * so two stores in one test process share it); its folder stays until that store is cleaned up.
 */
export async function temporaryStore(options: { migrate?: boolean; store?: ClickHouseStoreOptions; beside?: TemporaryStore } = {}): Promise<TemporaryStore> {
  const dataPath = options.beside?.dataPath ?? (await mkdtemp(path.join(os.tmpdir(), "ragscope-chdb-")));
  const database = `test_${randomBytes(6).toString("hex")}`;
  const url = process.env.RAGSCOPE_TEST_CLICKHOUSE_URL ?? null;
  const opened = await openClickHouse({ url, username: process.env.RAGSCOPE_TEST_CLICKHOUSE_USER ?? "default", password: process.env.RAGSCOPE_TEST_CLICKHOUSE_PASSWORD ?? "", database, dataPath });
  // A store left to an earlier release's migrations is read as that release read it until migrated (reviews per case).
  const connection = options.migrate === false ? connectionReadingReviewsPerCase(opened) : opened;
  if (options.migrate !== false) await runMigrations(connection);
  const store = clickHouseStoreOn(connection, options.store);
  return {
    connection,
    store,
    dataPath,
    async cleanup() {
      // A write starts a rollup refresh in the background: let it finish before the database and the connection go
      // (a refresh still running when the engine's session closed kept the next store of the process from opening).
      await store.rollups.close();
      await connection.client.command({ query: `DROP DATABASE IF EXISTS ${database}` });
      await connection.close();
      if (options.beside === undefined) await rm(dataPath, { recursive: true, force: true });
    },
  };
}

export async function queryRows<Row>(connection: ClickHouseConnection, query: string, parameters: Record<string, unknown> = {}): Promise<Row[]> {
  const result = await connection.client.query({ query: query.replaceAll("{{database}}", connection.database), query_params: parameters, format: "JSONEachRow" });
  return result.json<Row>();
}
