/**
 * A store of an earlier release, as the upgrade tests build one: the
 * migrations up to that release's last, copied apart so runMigrations applies
 * only those, and this release's `ragscope migrate` run on the folder as a
 * user runs it (bin/ragscope.js as a subprocess, with no store settings from
 * the environment).
 */
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { cp } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { migrationsFolder } from "../../store/clickhouse/run-migrations.js";

const ragscope = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../bin/ragscope.js");

/** Copies the migrations numbered up to `lastMigration` into `folder` (the other files too) and returns it. */
export async function migrationsThrough(lastMigration: number, folder: string): Promise<string> {
  await cp(migrationsFolder, folder, { recursive: true, filter: (source) => !/\/\d{4}_/.test(source) || Number(path.basename(source).slice(0, 4)) <= lastMigration });
  return folder;
}

/** `ragscope migrate --data-dir dataDir`, run from `cwd`: its exit status and output. */
export function migrateEmbedded(dataDir: string, cwd: string): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [ragscope, "migrate", "--data-dir", dataDir], { encoding: "utf8", cwd, env: { ...process.env, RAGSCOPE_CLICKHOUSE_URL: "", RAGSCOPE_DATA_DIR: "", RAGSCOPE_CONFIG: "" } });
}
