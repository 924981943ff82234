/**
 * The embedded store's folder, when the start about to open it will create it.
 * A start that then fails (a broker not reachable, a port in use, a topic
 * missing) removes that folder again: a mistyped flag must not leave a new,
 * empty store of a few megabytes behind, which the next start with the right
 * flag would then take for the user's data. A folder that existed before the
 * start is never removed, whatever it holds; neither is a ClickHouse server's
 * database.
 */
import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import type { ClickHouseConfig } from "../../../store/clickhouse/clickhouse-connection.js";

export interface StoreFolderOfStart {
  /** After the store is closed: removes the folder if this start created it. */
  removeIfCreated(): Promise<void>;
}

export function storeFolderOfStart(clickhouse: Readonly<ClickHouseConfig>): StoreFolderOfStart {
  const createdByStart = clickhouse.url === null && !existsSync(clickhouse.dataPath);
  return {
    async removeIfCreated() {
      if (createdByStart) await rm(clickhouse.dataPath, { recursive: true, force: true });
    },
  };
}
