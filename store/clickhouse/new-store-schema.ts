/**
 * A new embedded store is created from the schema the migrations leave,
 * rather than by running every migration one after the other.
 *
 * The migrations are the schema's history: on a new store most of their
 * statements (117 at 0037) alter tables that were created a moment before and copy
 * rows that do not exist, about 1.5–2 s of the embedded engine's time on
 * every first start (`ragscope eval` into a new folder, each test's store).
 * deploy/clickhouse/new-store-schema.sql holds the CREATE statements of the
 * tables and views they leave, as this engine writes them (system.tables'
 * create_table_query), which create the same schema in ~0.2 s.
 *
 * It is generated from the migrations (`npm run new-store-schema`,
 * write-new-store-schema.ts) and names each migration with its checksum. It
 * is used only when those are exactly the migrations about to run: a
 * migration added or edited without generating it again leaves it unused
 * (the migrations run, as before), and a test compares it with the
 * migrations' schema. Only for the embedded engine: it is that engine's own
 * rendering of the schema, and a ClickHouse server, whose version the
 * operator picks, runs the hand-written migrations.
 */
import { readFile } from "node:fs/promises";
import { packageFiles } from "../../collector/wiring/config/package-files.js";
import type { ClickHouseConnection } from "./clickhouse-connection.js";
import { quoteIdentifier } from "./clickhouse-connection.js";
import type { Migration } from "./run-migrations.js";

export const newStoreSchemaFile = packageFiles.newStoreSchema;

const DATABASE_PLACEHOLDER = "{{database}}";
const MIGRATION_LINE = /^-- migration (\d{4}_[\w-]+) ([0-9a-f]{64})$/;

interface NewStoreSchema {
  migrations: { name: string; checksum: string }[];
  /** One statement a line, tables before the views that write into them; the database as {{database}}. */
  statements: string[];
}

function parseNewStoreSchema(text: string): NewStoreSchema {
  const migrations: NewStoreSchema["migrations"] = [];
  const statements: string[] = [];
  for (const line of text.split("\n")) {
    const migration = MIGRATION_LINE.exec(line);
    if (migration !== null) migrations.push({ name: migration[1]!, checksum: migration[2]! });
    else if (line.trim() !== "" && !line.startsWith("--")) statements.push(line.replace(/;\s*$/, ""));
  }
  return { migrations, statements };
}

/** True when the schema was generated from exactly these migrations, in this order, as they are now. */
function generatedFrom(schema: NewStoreSchema, migrations: readonly Migration[]): boolean {
  return schema.migrations.length === migrations.length && schema.migrations.every((listed, index) => listed.name === migrations[index]!.name && listed.checksum === migrations[index]!.checksum);
}

/**
 * Creates the schema `migrations` leave in a store where none of them ran, and records them as applied; false when it
 * cannot (not the embedded engine, no schema file or one generated from other migrations, or tables in the database
 * that a new store's creation did not leave), and the migrations are to run instead.
 */
export async function createNewStore(connection: ClickHouseConnection, migrations: readonly Migration[]): Promise<boolean> {
  if (!connection.embedded || migrations.length === 0) return false;
  const text = await readFile(newStoreSchemaFile, "utf8").catch(() => null);
  if (text === null) return false;
  const schema = parseNewStoreSchema(text);
  if (!generatedFrom(schema, migrations)) return false;
  if (!(await clearLeftovers(connection, schema))) return false;
  const database = quoteIdentifier(connection.database);
  for (const statement of schema.statements) await connection.client.command({ query: statement.replaceAll(DATABASE_PLACEHOLDER, database) });
  // Recorded last, all at once: a creation cut off before this line leaves tables and no record, which the next start
  // clears (clearLeftovers) and creates again.
  await connection.client.insert({
    table: `${database}.schema_migrations`,
    values: migrations.map((migration) => ({ version: migration.version, name: migration.name, checksum: migration.checksum })),
    format: "JSONEachRow",
  });
  return true;
}

/**
 * True when the database holds nothing but the migrations' record, after dropping what a cut-off creation left: tables
 * and views the schema creates, all empty. Any other table (or one with rows) is someone's data: false, and the
 * migrations, which create only what is missing, run as they always did.
 */
async function clearLeftovers(connection: ClickHouseConnection, schema: NewStoreSchema): Promise<boolean> {
  const result = await connection.client.query({
    query: "SELECT name, engine, total_rows FROM system.tables WHERE database = {database:String} AND name != 'schema_migrations'",
    query_params: { database: connection.database },
    format: "JSONEachRow",
  });
  const present = await result.json<{ name: string; engine: string; total_rows: string | number | null }>();
  if (present.length === 0) return true;
  const created = new Set(schema.statements.map((statement) => /^CREATE (?:MATERIALIZED VIEW|TABLE) \{\{database\}\}\.(\w+)/.exec(statement)?.[1]));
  if (present.some((table) => !created.has(table.name) || Number(table.total_rows ?? 0) !== 0)) return false;
  // Views first: a materialized view depends on the tables it reads and writes.
  const database = quoteIdentifier(connection.database);
  for (const table of [...present].sort((left, right) => Number(right.engine === "MaterializedView") - Number(left.engine === "MaterializedView"))) {
    await connection.client.command({ query: `DROP ${table.engine === "MaterializedView" ? "VIEW" : "TABLE"} IF EXISTS ${database}.${quoteIdentifier(table.name)}` });
  }
  return true;
}

/**
 * The schema file's text for a store the migrations created (`connection`, where `migrations` all ran): a header, the
 * migrations with their checksums, then each table's CREATE statement and each view's, the database's name replaced.
 */
export async function newStoreSchemaText(connection: ClickHouseConnection, migrations: readonly Migration[]): Promise<string> {
  const result = await connection.client.query({
    // Tables before views, each group by name: a view's source and target tables exist when it is created.
    query: "SELECT name, engine, create_table_query FROM system.tables WHERE database = {database:String} AND name != 'schema_migrations' ORDER BY engine = 'MaterializedView', name",
    query_params: { database: connection.database },
    format: "JSONEachRow",
  });
  const tables = await result.json<{ name: string; engine: string; create_table_query: string }>();
  const qualified = `${quoteIdentifier(connection.database)}.`;
  const statements = tables.map((table) => {
    if (table.create_table_query.includes("\n")) throw new Error(`the CREATE statement of ${table.name} spans lines; the schema file holds one a line`);
    const statement = table.create_table_query.replaceAll(qualified, `${DATABASE_PLACEHOLDER}.`);
    if (statement.includes(connection.database)) throw new Error(`the CREATE statement of ${table.name} names the database ${connection.database} elsewhere than before a table's name; generate the schema in a database of another name`);
    return `${statement};`;
  });
  return [
    "-- The tables and views the migrations in migrations/ leave, created at once in a new embedded store",
    "-- (store/clickhouse/new-store-schema.ts). Generated by `npm run new-store-schema` from the migrations below",
    "-- and used only while they are exactly these: after adding a migration, generate it again. Do not edit.",
    ...migrations.map((migration) => `-- migration ${migration.name} ${migration.checksum}`),
    ...statements,
    "",
  ].join("\n");
}
