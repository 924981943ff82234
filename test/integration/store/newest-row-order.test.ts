/**
 * The readers that collapse rows by hand (argMax) take the row FINAL keeps: store/clickhouse/newest-row.ts's
 * WRITE_ORDER against the real engine's FINAL, the reference, on rows of tied versions spread over parts as the
 * collector leaves them before merges catch up.
 *
 * A ReplacingMergeTree table laid out as the stores' are (a month partition, a sorting key starting with the day),
 * written by twelve inserts of 2,000 rows each over 900 keys with two versions (so most keys hold several rows of
 * their highest version: in one insert, and in several), merges stopped, and the first seven parts merged once in
 * the middle (a merged part beside newer unmerged ones). The rows' values are fixed (hashes of the row number and
 * insert), not random. Expected: for every key, the row `argMax(…, WRITE_ORDER)` gives is the one FINAL returns; and,
 * so that the check could fail, `argMax(…, version)` (the readers' pick before) gives another row for some keys.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { WRITE_ORDER } from "../../../store/clickhouse/newest-row.js";
import { queryRows, temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";

let store: TemporaryStore;

before(async () => {
  store = await temporaryStore({ migrate: false });
});

after(async () => {
  await store.cleanup();
});

test("argMax by WRITE_ORDER takes, of every key, the row FINAL keeps, over tied versions in merged and unmerged parts", async () => {
  const command = (query: string) => store.connection.client.command({ query: query.replaceAll("{{database}}", store.connection.database) });
  await command("CREATE DATABASE IF NOT EXISTS {{database}}");
  await command("CREATE TABLE {{database}}.tied (day Date, key UInt32, payload String, version UInt64) ENGINE = ReplacingMergeTree(version) PARTITION BY toYYYYMM(day) ORDER BY (day, key)");
  await command("SYSTEM STOP MERGES {{database}}.tied");
  for (let insert = 0; insert < 12; insert += 1) {
    // optimize_on_insert = 0 as the sink writes (clickhouse-sink.ts): an insert keeps every row of a key.
    await command(
      `INSERT INTO {{database}}.tied SELECT toDate('2026-07-01') + cityHash64(number, ${insert}, 1) % 3, cityHash64(number, ${insert}, 2) % 300, concat('insert ${insert} row ', toString(number)), 1 + cityHash64(number, ${insert}, 3) % 2
       FROM numbers(2000) SETTINGS optimize_on_insert = 0`,
    );
    if (insert === 6) {
      await command("SYSTEM START MERGES {{database}}.tied");
      await command("OPTIMIZE TABLE {{database}}.tied PARTITION 202607");
      await command("SYSTEM STOP MERGES {{database}}.tied");
    }
  }
  const parts = await queryRows<{ name: string }>(store.connection, "SELECT name FROM system.parts WHERE database = {database:String} AND table = 'tied' AND active", { database: store.connection.database });
  assert.ok(parts.length >= 6, `a merged part beside unmerged ones: ${parts.map((part) => part.name).join(", ")}`);

  type Kept = { day: string; key: number; payload: string };
  const final = await queryRows<Kept>(store.connection, "SELECT day, key, payload FROM {{database}}.tied FINAL ORDER BY day, key");
  const byWriteOrder = await queryRows<Kept>(store.connection, `SELECT day, key, argMax(payload, ${WRITE_ORDER}) AS payload FROM {{database}}.tied GROUP BY day, key ORDER BY day, key`);
  const byVersion = await queryRows<Kept>(store.connection, "SELECT day, key, argMax(payload, version) AS payload FROM {{database}}.tied GROUP BY day, key ORDER BY day, key");
  assert.equal(final.length, 900);
  assert.deepEqual(byWriteOrder, final);
  assert.ok(byVersion.some((row, index) => row.payload !== final[index]!.payload), "argMax by version alone takes another row than FINAL for some key");
});
