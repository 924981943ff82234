/**
 * The store a reading command (`gate`, `report`, `dead-letters`) is pointed at
 * must be one that something was stored in. Opening a store creates it, so a
 * mistyped --data-dir used to leave a new, empty store behind and read it as
 * "no data" everywhere, with exit 0: a typo in CI gave a green, empty report.
 * Such a folder, or a store with no ragscope schema, is an error the user can
 * act on instead (exit 2).
 */
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { openClickHouse, type ClickHouseConfig } from "../../../store/clickhouse/clickhouse-connection.js";
import { readSchemaState } from "../../../store/clickhouse/run-migrations.js";

/** A folder that is not there, under folders that are: a path through a file is the engine's to refuse (store-open-errors.ts). */
function missingFolder(folder: string): boolean {
  if (existsSync(folder)) return false;
  let above = path.dirname(path.resolve(folder));
  while (!existsSync(above)) above = path.dirname(above);
  return statSync(above).isDirectory();
}

/** A folder that exists (a file, or a path under one, is the engine's to refuse: store-open-errors.ts). */
function isFolder(folder: string): boolean {
  try {
    return statSync(folder).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Why the configured store holds nothing a reading command could show — its data folder does not exist, or
 * it has no ragscope schema — as one line naming the setting to fix; null when it is a ragscope store (of this
 * release or an earlier one: a command that migrates brings it up to date). Checked before the store is opened
 * to migrate, so nothing is created where nothing was stored (the embedded folder is not created at all).
 * `sought`: what the command looked for, as the line says it ("no run" for the gate).
 */
export async function storeWithoutData(command: string, clickhouse: ClickHouseConfig, sought = "nothing"): Promise<string | null> {
  if (clickhouse.url === null && missingFolder(clickhouse.dataPath)) {
    return `ragscope ${command}: no store at ${clickhouse.dataPath}: the folder does not exist, so nothing was stored there; point --data-dir (or RAGSCOPE_DATA_DIR) at the folder ragscope serve, eval or dataset push stored into`;
  }
  // A folder the engine never opened has no catalogue (`metadata/`): opening it to ask would write the engine's
  // folders into it (a project folder, a home directory given by mistake).
  if (clickhouse.url === null && isFolder(clickhouse.dataPath) && !existsSync(path.join(clickhouse.dataPath, "metadata"))) {
    return `ragscope ${command}: no store at ${clickhouse.dataPath}: the folder holds no ClickHouse engine data (no metadata/ folder), so nothing was stored there; point --data-dir (or RAGSCOPE_DATA_DIR) at the folder ragscope serve, eval or dataset push stored into`;
  }
  const connection = await openClickHouse(clickhouse);
  try {
    const schema = await readSchemaState(connection);
    if (schema.kind !== "absent") return null;
    const where = clickhouse.url === null ? "--data-dir (or RAGSCOPE_DATA_DIR)" : "RAGSCOPE_CLICKHOUSE_URL and RAGSCOPE_CLICKHOUSE_DATABASE";
    return `ragscope ${command}: no ragscope data in the ${connection.describe()}: it has no ragscope schema, so ${sought} was stored there; point ${where} at the store ragscope serve, eval or dataset push wrote to`;
  } finally {
    await connection.close();
  }
}
