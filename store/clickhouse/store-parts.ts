/**
 * How the store sits on disk, table by table, for /metrics: active parts,
 * the most any one partition holds, rows and bytes on disk. An operator
 * running the store for months needs these before anything fails: the
 * engine slows inserts into a partition that holds more than
 * `parts_to_delay_insert` active parts and refuses them past
 * `parts_to_throw_insert` ("too many parts", the usual way a ClickHouse
 * ingest path breaks when merges fall behind), and bytes and rows show the
 * retention (TTL) at work. Read from `system.parts` (active parts only:
 * parts merged away and not yet deleted hold no rows a query reads), for
 * every MergeTree table of the store's database — an empty table with 0,
 * and a table an upgrade kept from before it (`<table>_before_<NNNN>`) too,
 * since it holds disk until it is dropped. The same statements on the
 * embedded engine and a ClickHouse server.
 */
import type { ClickHouseConnection } from "./clickhouse-connection.js";

export interface TableParts {
  table: string;
  activeParts: number;
  /** Active parts of the table's partition with the most of them (0 for an empty table). */
  largestPartitionParts: number;
  rows: number;
  bytesOnDisk: number;
}

export interface StoreParts {
  tables: TableParts[];
  /** The engine's `parts_to_delay_insert` (MergeTree default); null where the engine does not say. */
  partsToDelayInsert: number | null;
  /** The engine's `parts_to_throw_insert` (MergeTree default); null where the engine does not say. */
  partsToThrowInsert: number | null;
}

interface TableRow {
  table: string;
  active_parts: string | number;
  largest_partition_parts: string | number;
  rows: string | number;
  bytes_on_disk: string | number;
}

export async function readStoreParts(connection: Pick<ClickHouseConnection, "client" | "database">): Promise<StoreParts> {
  const tables = await query<TableRow>(
    connection,
    `SELECT name AS table, ifNull(parts.active_parts, 0) AS active_parts, ifNull(parts.largest_partition_parts, 0) AS largest_partition_parts,
            ifNull(parts.rows, 0) AS rows, ifNull(parts.bytes_on_disk, 0) AS bytes_on_disk
     FROM system.tables AS tables
     LEFT JOIN (
       SELECT table, sum(partition_parts) AS active_parts, max(partition_parts) AS largest_partition_parts, sum(partition_rows) AS rows, sum(partition_bytes) AS bytes_on_disk
       FROM (SELECT table, partition_id, count() AS partition_parts, sum(rows) AS partition_rows, sum(bytes_on_disk) AS partition_bytes
             FROM system.parts WHERE database = {database:String} AND active GROUP BY table, partition_id)
       GROUP BY table
     ) AS parts ON parts.table = tables.name
     WHERE tables.database = {database:String} AND tables.engine LIKE '%MergeTree'
     ORDER BY table
     SETTINGS join_use_nulls = 1`,
  );
  const limits = await query<{ name: string; value: string }>(connection, "SELECT name, value FROM system.merge_tree_settings WHERE name IN ('parts_to_delay_insert', 'parts_to_throw_insert')");
  const limit = (name: string) => {
    const value = Number(limits.find((row) => row.name === name)?.value);
    return Number.isFinite(value) && value > 0 ? value : null;
  };
  return {
    tables: tables.map((row) => ({
      table: row.table,
      activeParts: Number(row.active_parts),
      largestPartitionParts: Number(row.largest_partition_parts),
      rows: Number(row.rows),
      bytesOnDisk: Number(row.bytes_on_disk),
    })),
    partsToDelayInsert: limit("parts_to_delay_insert"),
    partsToThrowInsert: limit("parts_to_throw_insert"),
  };
}

async function query<Row>(connection: Pick<ClickHouseConnection, "client" | "database">, statement: string): Promise<Row[]> {
  const result = await connection.client.query({ query: statement, query_params: { database: connection.database }, format: "JSONEachRow" });
  return result.json<Row>();
}
