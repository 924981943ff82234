/**
 * Opens the store a collector role starts on, and its online stage, so that a
 * start that then fails (a broker not reachable, a port in use, a topic
 * missing) can undo it: the store is closed and, when this start created the
 * embedded store's folder, the folder is removed again. A mistyped flag must
 * not leave a new, empty store of a few megabytes behind, which the next start
 * with the right flag would take for the user's data. A folder that existed
 * before the start is never removed, whatever it holds; neither is a
 * ClickHouse server's database.
 */
import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import type { OnlineStage } from "../online/online-stage.js";
import { openClickHouseStore, type ClickHouseStore } from "../../../store/clickhouse/clickhouse-store.js";
import type { ClickHouseConfig } from "../../../store/clickhouse/clickhouse-connection.js";
import type { Store } from "../../../store/ports/store.js";
import type { StoreOpeningProgressListener } from "../../../store/clickhouse/store-opening-progress.js";

export interface StoreOfStart {
  store: ClickHouseStore;
  online: OnlineStage | null;
  /** After a failed start, once the parts that use the store are stopped: closes it, and removes its folder if this start created it. */
  closeAfterFailedStart(): Promise<void>;
}

/** `onProgress`: where the store's opening stands (its migrations), for the process's /readyz. */
export async function openStoreOfStart(clickhouse: Readonly<ClickHouseConfig>, online?: (store: Store) => Promise<OnlineStage>, onProgress?: StoreOpeningProgressListener): Promise<StoreOfStart> {
  const createdByStart = clickhouse.url === null && !existsSync(clickhouse.dataPath);
  const store = await openClickHouseStore(clickhouse, onProgress === undefined ? {} : { onProgress });
  const closeAfterFailedStart = async () => {
    await store.close();
    if (createdByStart) await rm(clickhouse.dataPath, { recursive: true, force: true });
  };
  if (online === undefined) return { store, online: null, closeAfterFailedStart };
  const stage = await online(store).catch(async (error: unknown) => {
    await closeAfterFailedStart();
    throw error;
  });
  return { store, online: stage, closeAfterFailedStart };
}
