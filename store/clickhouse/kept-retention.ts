/**
 * A migration that changes a table's TTL keeps the retention an operator set.
 * README "Retention" tells operators to shorten (or lengthen) a table's
 * retention with `ALTER TABLE … MODIFY TTL <column> + INTERVAL n UNIT` and
 * promises that later migrations never reset it. So a migration statement
 * does not spell its interval: it writes `{{retention_of:<table>}}`, and the
 * runner puts in the interval the table has now (`toIntervalDay(400)` as the
 * migrations created it, `toIntervalDay(90)` as an operator changed it).
 *
 * A table whose TTL is not `<column> + <interval>` — removed (kept forever)
 * or an expression of the operator's own — is left as it is: the statement
 * is skipped and the runner says so.
 *
 * A migration that gives a first TTL to a table the migrations created
 * without one writes `{{unless_retention_set:<table>}}` in its statement
 * instead: there no TTL means "never had one", not "removed", so the
 * statement runs (the marker becomes nothing), and a table that already has
 * a TTL (one an operator added) keeps it: the statement is skipped and the
 * runner says so.
 */
import type { ClickHouseConnection } from "./clickhouse-connection.js";
import { quoteIdentifier } from "./clickhouse-connection.js";

const PLACEHOLDER = /\{\{retention_of:([A-Za-z_][A-Za-z0-9_]*)\}\}/g;
const FIRST_RETENTION_MARKER = /\{\{unless_retention_set:([A-Za-z_][A-Za-z0-9_]*)\}\}/g;
/** Any TTL clause in a table's engine_full. */
const ANY_TTL = /\bTTL (.+?)(?= SETTINGS|$)/;
/**
 * The TTL clause of a table's engine_full as the engine normalises `<column> + INTERVAL n UNIT`; the column may be
 * converted to DateTime (`toDateTime(inserted_at)`, as the tables that grow with traffic count from insertion).
 */
const SIMPLE_TTL = /\bTTL (\w+|toDateTime\(\w+\)) \+ (toInterval(?:Second|Minute|Hour|Day|Week|Month|Quarter|Year)\(\d+\))(?= SETTINGS|$)/;

export type RetentionExpansion = { ok: true; statement: string } | { ok: false; note: string };

/** The statement with each `{{retention_of:<table>}}` replaced by that table's current TTL interval and each `{{unless_retention_set:<table>}}` removed; a note when a table's retention is its operator's own. */
export async function expandRetention(connection: ClickHouseConnection, statement: string): Promise<RetentionExpansion> {
  let expanded = statement;
  for (const [marker, table] of new Map([...statement.matchAll(FIRST_RETENTION_MARKER)].map((match) => [match[0], match[1]!]))) {
    const own = ANY_TTL.exec(await engineOf(connection, table))?.[1];
    if (own !== undefined) return { ok: false, note: `kept the retention of ${table} as an operator set it (TTL ${own}); see README "Retention"` };
    expanded = expanded.replaceAll(marker, "");
  }
  // Each table once, however often the statement names it (replaceAll puts its interval in every place).
  for (const [placeholder, table] of new Map([...statement.matchAll(PLACEHOLDER)].map((match) => [match[0], match[1]!]))) {
    const engine = await engineOf(connection, table);
    const ttl = SIMPLE_TTL.exec(engine);
    if (ttl === null) {
      const own = ANY_TTL.exec(engine)?.[1];
      return { ok: false, note: `kept the retention of ${table} as it is (${own === undefined ? "no TTL: kept forever" : `TTL ${own}`}); to count it from when rows are written, see README "Retention"` };
    }
    expanded = expanded.replaceAll(placeholder, ttl[2]!);
  }
  return { ok: true, statement: expanded };
}

async function engineOf(connection: ClickHouseConnection, table: string): Promise<string> {
  const result = await connection.client.query({
    query: "SELECT engine_full FROM system.tables WHERE database = {database:String} AND name = {table:String}",
    query_params: { database: connection.database, table: quoteIdentifier(table) },
    format: "JSONEachRow",
  });
  const [row] = await result.json<{ engine_full: string }>();
  if (row === undefined) throw new Error(`a migration names the retention of ${table}, which ${connection.describe()} does not have`);
  return row.engine_full;
}
