/**
 * `ragscope migrate`: applies the schema migrations that the configured store
 * (a ClickHouse server, or the embedded folder of --data-dir) has not had yet,
 * and says which. Every role and `serve` also applies them when it starts;
 * this command lets an operator upgrade a store on purpose — before starting
 * the new release's collectors against a shared server, or to see what an
 * upgrade does — and exits without serving. Running it again applies nothing.
 * Rollup minutes a migration noted for recomputing (rollup-repairs.ts) are
 * recomputed here too, and the count is said.
 * Exit 0 when the store is up to date, 2 when the store cannot be opened or a
 * migration fails (the message names the migration and the store).
 */
import { openClickHouse, type ClickHouseConnection } from "../../../store/clickhouse/clickhouse-connection.js";
import { ABANDONED_LOCK_PREFIX } from "../../../store/clickhouse/migration-lock.js";
import { runMigrations } from "../../../store/clickhouse/run-migrations.js";
import { ClickHouseMetricRollups } from "../../../store/clickhouse/metric-rollups.js";
import { repairNotedRollups } from "../../../store/clickhouse/rollup-repairs.js";
import { reportInvalidSettings, settingsForCommand, type SettingsRequest } from "./command-settings.js";
import type { FlagValues } from "./config-flags.js";
import { ExitCode } from "./exit-codes.js";

type Output = { log: (line: string) => void; error: (line: string) => void };

export async function migrateCommand(request: SettingsRequest, flags: FlagValues, output: Output): Promise<number> {
  const resolved = await settingsForCommand("migrate", request, { flags });
  if (!resolved.ok) {
    reportInvalidSettings("migrate", resolved.error, output);
    return ExitCode.undecided;
  }
  const connection = await openClickHouse(resolved.value.settings.clickhouse);
  try {
    const { applied, notes, createdFromSchema } = await runMigrations(connection);
    if (applied.length === 0) output.log(`${connection.describe()}: the schema is up to date, no migration applied`);
    else if (createdFromSchema === true) {
      output.log(`${connection.describe()}: created a new store with the schema of the ${applied.length} migrations ${applied[0]} to ${applied.at(-1)}, each recorded as applied`);
    } else for (const name of applied) output.log(`${connection.describe()}: applied ${name}`);
    for (const note of notes) output.log(`${connection.describe()}: ${note}`);
    // Rollup minutes a migration asked to recompute (rollup-repairs.ts), recomputed by the collector's own refresh.
    const rollups = new ClickHouseMetricRollups(connection);
    const repaired = await repairNotedRollups(connection, rollups);
    if (!repaired.ok) {
      output.error(`ragscope migrate: ${repaired.error}`);
      return ExitCode.undecided;
    }
    await rollups.close();
    if (repaired.value.recomputed > 0) output.log(`${connection.describe()}: recomputed the dashboards' rollups of ${repaired.value.recomputed} minute(s) × tenant × service (${repaired.value.reasons.join("; ")})`);
    // Tables a migration replaced are kept, never dropped by ragscope (README "Upgrading a store").
    const kept = await tablesNamed(connection, "_before_[0-9]{4}$");
    if (kept.length > 0) output.log(`tables kept from before an upgrade (drop them once the upgrade is checked): ${kept.join(", ")}`);
    const abandoned = await tablesNamed(connection, `^${ABANDONED_LOCK_PREFIX}`);
    if (abandoned.length > 0) {
      output.log(`migration locks taken over from a process that stopped while it migrated (its comment names it; check that the schema works, then drop them): ${abandoned.join(", ")}`);
    }
  } catch (error) {
    output.error(`ragscope migrate: ${error instanceof Error ? error.message : String(error)}`);
    return ExitCode.undecided;
  } finally {
    await connection.close();
  }
  return ExitCode.ok;
}

/** The store's tables whose names match `pattern` (a regular expression), sorted. */
async function tablesNamed(connection: ClickHouseConnection, pattern: string): Promise<string[]> {
  const result = await connection.client.query({
    query: "SELECT name FROM system.tables WHERE database = {database:String} AND match(name, {pattern:String}) ORDER BY name",
    query_params: { database: connection.database, pattern },
    format: "JSONEachRow",
  });
  return (await result.json<{ name: string }>()).map((row) => row.name);
}
