/**
 * A new embedded store is created from deploy/clickhouse/new-store-schema.sql, the schema the migrations leave
 * (store/clickhouse/new-store-schema.ts), rather than by running its migrations one after the other. Shown here on
 * the real engine:
 * - the committed file is what the migrations leave today (a migration added without `npm run new-store-schema`
 *   fails this test, saying so);
 * - a store created from it has the tables, columns, codecs, indexes, keys, TTLs and views of one the migrations
 *   created, and records every migration with its checksum, so the next release's migrations apply on top;
 * - the file is used only when it was generated from exactly the migrations about to run: a migration added or edited
 *   since, or a database holding tables of its own, runs the migrations as before;
 * - a creation cut off before the migrations were recorded is cleared and done again at the next start.
 */
import assert from "node:assert/strict";
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { ClickHouseConnection } from "../../../store/clickhouse/clickhouse-connection.js";
import { newStoreSchemaFile, newStoreSchemaText } from "../../../store/clickhouse/new-store-schema.js";
import { migrationsFolder, readMigrations, runMigrations } from "../../../store/clickhouse/run-migrations.js";
import { queryRows, temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";

/** Everything of a database's schema a query or an insert depends on, its own name replaced, and its migrations' record. */
async function schemaOf(connection: ClickHouseConnection, leaveOut: readonly string[] = []) {
  const named = (text: string) => text.replaceAll(`${connection.database}.`, "<database>.");
  const parameters = { database: connection.database, leaveOut };
  const tables = await queryRows<{ name: string; engine: string; create_table_query: string; sorting_key: string; partition_key: string; primary_key: string }>(
    connection,
    "SELECT name, engine, create_table_query, sorting_key, partition_key, primary_key FROM system.tables WHERE database = {database:String} AND name NOT IN {leaveOut:Array(String)} ORDER BY name",
    parameters,
  );
  const columns = await queryRows(
    connection,
    "SELECT table, name, type, position, default_kind, default_expression, compression_codec, comment FROM system.columns WHERE database = {database:String} AND table NOT IN {leaveOut:Array(String)} ORDER BY table, position",
    parameters,
  );
  const indexes = await queryRows(connection, "SELECT table, name, type_full, expr, granularity FROM system.data_skipping_indices WHERE database = {database:String} ORDER BY table, name", parameters);
  const migrations = await queryRows(connection, "SELECT version, name, checksum FROM {{database}}.schema_migrations FINAL ORDER BY version");
  return { tables: tables.map((table) => ({ ...table, create_table_query: named(table.create_table_query) })), columns, indexes, migrations };
}

describe("a new embedded store, created from the schema the migrations leave", () => {
  let migrated: TemporaryStore;
  let folder: string;
  before(async () => {
    // The store as a release before this file created every store: each migration run in turn.
    migrated = await temporaryStore({ migrate: false });
    const outcome = await runMigrations(migrated.connection, undefined, { newStoreSchema: false });
    assert.equal(outcome.createdFromSchema, undefined);
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-new-store-schema-"));
  });
  after(async () => {
    await migrated?.cleanup();
    await rm(folder, { recursive: true, force: true });
  });

  test("the committed schema file is the one today's migrations leave", async () => {
    const expected = await newStoreSchemaText(migrated.connection, await readMigrations());
    assert.ok(expected === (await readFile(newStoreSchemaFile, "utf8")), "deploy/clickhouse/new-store-schema.sql is not what the migrations leave: run `npm run new-store-schema` and commit the file");
  });

  test("a new store is created from it: the same schema as the migrations', every migration recorded with its checksum, none pending after", async (context) => {
    const created = await temporaryStore({ migrate: false, beside: migrated });
    context.after(() => created.cleanup());
    const outcome = await runMigrations(created.connection);
    if (!created.connection.embedded) {
      // A ClickHouse server runs the hand-written migrations (the file is the embedded engine's rendering).
      assert.equal(outcome.createdFromSchema, undefined);
      return;
    }
    assert.equal(outcome.createdFromSchema, true);
    assert.deepEqual(outcome.applied, (await readMigrations()).map((migration) => migration.name));
    assert.deepEqual(await schemaOf(created.connection), await schemaOf(migrated.connection));
    assert.deepEqual((await runMigrations(created.connection)).applied, [], "nothing pending on the next start");
  });

  test("a migration the file was not generated from — one added, or one edited — runs the migrations instead, as before", async (context) => {
    const added = path.join(folder, "added");
    await cp(migrationsFolder, added, { recursive: true });
    await writeFile(path.join(added, "0999_extra_table.sql"), "CREATE TABLE IF NOT EXISTS {{database}}.extra (value UInt8) ENGINE = MergeTree ORDER BY value;\n");
    const edited = path.join(folder, "edited");
    await cp(migrationsFolder, edited, { recursive: true });
    const [first] = (await readMigrations()).map((migration) => `${migration.name}.sql`);
    await writeFile(path.join(edited, first!), `-- a comment added after the file was generated\n${await readFile(path.join(edited, first!), "utf8")}`);
    for (const [migrations, extra] of [[added, ["extra"]], [edited, []]] as const) {
      const store = await temporaryStore({ migrate: false, beside: migrated });
      context.after(() => store.cleanup());
      const outcome = await runMigrations(store.connection, migrations);
      assert.equal(outcome.createdFromSchema, undefined, migrations);
      assert.equal(outcome.applied.length, (await readMigrations(migrations)).length);
      const schema = await schemaOf(store.connection, extra);
      assert.deepEqual({ ...schema, migrations: [] }, { ...(await schemaOf(migrated.connection)), migrations: [] }, migrations);
    }
  });

  test("a creation cut off before the migrations were recorded: the next start clears its empty tables and creates the store", async (context) => {
    if (!migrated.connection.embedded) return context.skip("the file is for the embedded engine only");
    const store = await temporaryStore({ migrate: false, beside: migrated });
    context.after(() => store.cleanup());
    // What a process stopped halfway left: the record's table (runMigrations creates it first; no migration given
    // here, so nothing else) and half the tables.
    const none = path.join(folder, "no-migrations");
    await mkdir(none);
    assert.deepEqual((await runMigrations(store.connection, none)).applied, []);
    const statements = (await readFile(newStoreSchemaFile, "utf8")).split("\n").filter((line) => line.startsWith("CREATE "));
    for (const statement of statements.slice(0, Math.floor(statements.length / 2))) await store.connection.client.command({ query: statement.replaceAll("{{database}}", store.connection.database).replace(/;$/, "") });
    const outcome = await runMigrations(store.connection);
    assert.equal(outcome.createdFromSchema, true);
    assert.deepEqual(await schemaOf(store.connection), await schemaOf(migrated.connection));
  });

  test("a database holding a table of its own: the migrations run as before, and its table and rows are kept", async (context) => {
    const store = await temporaryStore({ migrate: false, beside: migrated });
    context.after(() => store.cleanup());
    await store.connection.client.command({ query: `CREATE TABLE ${store.connection.database}.notes (text String) ENGINE = MergeTree ORDER BY text` });
    await store.connection.client.command({ query: `INSERT INTO ${store.connection.database}.notes VALUES ('kept')` });
    const outcome = await runMigrations(store.connection);
    assert.equal(outcome.createdFromSchema, undefined);
    assert.deepEqual(await queryRows(store.connection, "SELECT text FROM {{database}}.notes"), [{ text: "kept" }]);
    assert.deepEqual(await schemaOf(store.connection, ["notes"]), await schemaOf(migrated.connection));
  });
});
