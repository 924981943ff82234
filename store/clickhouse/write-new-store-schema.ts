/**
 * `npm run new-store-schema`: writes deploy/clickhouse/new-store-schema.sql,
 * the schema the migrations leave (new-store-schema.ts), after running every
 * migration in a new embedded store in a temporary folder. Run it after
 * adding a migration; a test fails until the file matches the migrations.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { openClickHouse } from "./clickhouse-connection.js";
import { newStoreSchemaFile, newStoreSchemaText } from "./new-store-schema.js";
import { readMigrations, runMigrations } from "./run-migrations.js";

/** A name no statement holds otherwise, so that replacing it before each table's name replaces nothing else. */
const GENERATION_DATABASE = "new_store_schema_generation";

const folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-new-store-schema-"));
try {
  const connection = await openClickHouse({ url: null, username: "default", password: "", database: GENERATION_DATABASE, dataPath: folder });
  try {
    await runMigrations(connection, undefined, { newStoreSchema: false });
    await writeFile(newStoreSchemaFile, await newStoreSchemaText(connection, await readMigrations()));
    console.log(`wrote ${newStoreSchemaFile}`);
  } finally {
    await connection.close();
  }
} finally {
  await rm(folder, { recursive: true, force: true });
}
