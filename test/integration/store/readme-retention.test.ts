/**
 * README "Retention" is what an operator follows to keep request data, personal data among it, no
 * longer than intended: its table must name every table a freshly migrated store has, with the
 * retention that store gives it, and the section must give the statement that shortens each table
 * that expires. Read from a migrated store, not a list kept here, so a migration that adds a table
 * or changes a TTL fails this test until the README says so.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { queryRows, temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

/** The README's "Retention" paragraphs: from their heading to the next bold heading of that part. */
async function retentionSection(): Promise<string> {
  const readme = await readFile(path.join(projectRoot, "README.md"), "utf8");
  const start = readme.indexOf("**Retention.**");
  const end = readme.indexOf("**Metrics without a value.**", start);
  assert.ok(start >= 0 && end > start, "README has a **Retention.** part followed by **Metrics without a value.**");
  return readme.slice(start, end);
}

/** Table name → "400 days" or "never", from the rows of the section's table (`| \`name\` | holds | kept |`). */
function documentedRetentions(section: string): Map<string, string> {
  const rows = [...section.matchAll(/^\| `([a-z_0-9]+)` \|.*\| ([^|]+?) \|$/gm)];
  return new Map(rows.map((row) => [row[1]!, row[2]!]));
}

/** Table name → its retention as the README writes it, for every table that stores rows (views store none). */
async function storeRetentions(store: TemporaryStore): Promise<Map<string, string>> {
  const tables = await queryRows<{ name: string; engine_full: string }>(
    store.connection,
    "SELECT name, engine_full FROM system.tables WHERE database = {database:String} AND engine NOT IN ('MaterializedView', 'View') ORDER BY name",
    { database: store.connection.database },
  );
  return new Map(
    tables.map((table) => {
      const ttl = /\bTTL (.+?)(?= SETTINGS|$)/.exec(table.engine_full)?.[1] ?? null;
      if (ttl === null) return [table.name, "never"];
      const days = /\+ toIntervalDay\((\d+)\)$/.exec(ttl)?.[1];
      return [table.name, days === undefined ? `TTL ${ttl}` : `${days} days`];
    }),
  );
}

describe('README "Retention" against a freshly migrated store', () => {
  let store: TemporaryStore;
  before(async () => {
    store = await temporaryStore();
  });
  after(async () => {
    await store.cleanup();
  });

  test("the table lists every stored table with the retention the migrations give it", async () => {
    const documented = Object.fromEntries([...documentedRetentions(await retentionSection())].sort());
    const stored = Object.fromEntries([...(await storeRetentions(store))].sort());
    assert.deepEqual(documented, stored);
  });

  test("every table that expires has the statement that shortens its retention", async () => {
    const section = await retentionSection();
    const missing = [...(await storeRetentions(store))]
      .filter(([, kept]) => kept !== "never")
      .map(([table]) => table)
      .filter((table) => !section.includes(`ALTER TABLE ragscope.${table} MODIFY TTL`));
    assert.deepEqual(missing, []);
  });
});
