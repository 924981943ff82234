/**
 * One `@clickhouse/client` for both stores. Embedded (the default), chDB — the
 * ClickHouse engine in-process — is plugged in through `chdb/connection`, with
 * its data under a local folder; given a URL, the same client talks to a
 * ClickHouse server over HTTP. Every query and migration is the same SQL.
 */
import { mkdir } from "node:fs/promises";
import { createClient, type ClickHouseClient } from "@clickhouse/client";
import { lockHolder, StoreLockedError } from "./store-locked-error.js";
import { clickHouseErrorCode } from "./clickhouse-error-code.js";

export interface ClickHouseConfig {
  /** ClickHouse server URL (http://host:8123); absent = embedded chDB. */
  url: string | null;
  username: string;
  password: string;
  database: string;
  /** Folder for chDB's data when embedded. */
  dataPath: string;
  /** Least time between two refreshes of the dashboards' rollups, ms (metric-rollups.ts); read by openClickHouseStore. */
  rollupRefreshMs?: number;
  /** Memory bound of each dashboard query, MiB, 0 = none (query-memory-bound.ts); read by openClickHouseStore. */
  queryMemoryMb?: number;
}

export interface ClickHouseConnection {
  client: ClickHouseClient;
  database: string;
  embedded: boolean;
  describe(): string;
  close(): Promise<void>;
}

/** chDB binds one data folder per process; share the connection per folder. */
const embeddedConnections = new Map<string, { connection: ClickHouseConnection; users: number }>();

export async function openClickHouse(config: ClickHouseConfig): Promise<ClickHouseConnection> {
  if (config.url !== null) {
    const client = createClient({
      url: config.url,
      username: config.username,
      password: config.password,
      clickhouse_settings: { wait_end_of_query: 1 },
    });
    await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${quoteIdentifier(config.database)}` });
    return { client, database: config.database, embedded: false, describe: () => `ClickHouse server ${config.url}, database ${config.database}`, close: () => client.close() };
  }
  const existing = embeddedConnections.get(config.dataPath);
  if (existing) {
    existing.users += 1;
    await existing.connection.client.command({ query: `CREATE DATABASE IF NOT EXISTS ${quoteIdentifier(config.database)}` });
    return sharedHandle(config, existing);
  }
  await mkdir(config.dataPath, { recursive: true });
  // Loaded lazily: the native engine is only needed in embedded mode.
  const { createChdbConnection } = await import("chdb/connection");
  let chdbConnection: ReturnType<typeof createChdbConnection>;
  try {
    chdbConnection = createChdbConnection({ path: config.dataPath });
  } catch (error) {
    // Another process holding the folder is the one failure a user meets here; say which process it is.
    const holder = clickHouseErrorCode(error) === "CHDB_CONNECTION" ? lockHolder(config.dataPath) : null;
    if (holder !== null) throw new StoreLockedError(config.dataPath, holder, { cause: error });
    throw error;
  }
  const client = createClient({ connection: chdbConnection } as Parameters<typeof createClient>[0]);
  await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${quoteIdentifier(config.database)}` });
  const entry = {
    users: 1,
    connection: { client, database: config.database, embedded: true, describe: () => `embedded ClickHouse engine (chDB) in ${config.dataPath}`, close: async () => {} } as ClickHouseConnection,
  };
  embeddedConnections.set(config.dataPath, entry);
  return sharedHandle(config, entry);
}

function sharedHandle(config: ClickHouseConfig, entry: { connection: ClickHouseConnection; users: number }): ClickHouseConnection {
  let closed = false;
  return {
    client: entry.connection.client,
    database: config.database,
    embedded: true,
    describe: () => `embedded ClickHouse engine (chDB) in ${config.dataPath}, database ${config.database}`,
    async close() {
      if (closed) return;
      closed = true;
      entry.users -= 1;
      if (entry.users === 0) {
        embeddedConnections.delete(config.dataPath);
        await entry.connection.client.close();
      }
    },
  };
}

/** Database and table names come from configuration: allow only plain identifiers. */
export function quoteIdentifier(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`invalid ClickHouse identifier "${name}": use letters, digits and underscores, starting with a letter`);
  return name;
}
