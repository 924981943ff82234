/**
 * A copy-and-swap migration (0007, 0035: a table whose sorting key changes is created anew as `<table>_NNNN`, every
 * row copied, and swapped in by one RENAME, the old table kept as `<table>_before_NNNN`) that a process was killed
 * in the middle of. Its statements are not idempotent, so the next start must see where it stopped:
 * - before the RENAME (killed mid-copy): the staged copies hold part of the rows, and copying again would add every
 *   row a second time; they are dropped, and the migration runs from its start;
 * - after the RENAME, before the migration was recorded: the swap is done, and running it again failed on every
 *   start ("Table …_before_0035 already exists") — a store that never opened again. Only its statements after the
 *   RENAME run, and it is recorded.
 */
import { quoteIdentifier, type ClickHouseConnection } from "./clickhouse-connection.js";

export interface SwapPlan {
  /** The statements still to run (the migration's own statements when it never swapped). */
  statements: readonly string[];
  /** Staged copies dropped because a copy was cut short; empty when none was there. */
  droppedStagedCopies: string[];
  /** Whether the swap had happened before this start. */
  swappedBefore: boolean;
}

const RENAME = /^\s*RENAME\s+TABLE\s+([\s\S]*)$/i;
const PAIR = /^\s*\{\{database\}\}\.([A-Za-z0-9_]+)\s+TO\s+\{\{database\}\}\.([A-Za-z0-9_]+)\s*$/i;

/** What migration `version` appends to the name of a table it replaced and kept: `_before_NNNN`. */
export function replacedTableSuffix(version: number): string {
  return `_before_${String(version).padStart(4, "0")}`;
}

/** The RENAME of a copy-and-swap migration: its index and its pairs (unexpanded names); null for any other migration. */
export function swapRename(statements: readonly string[], version: number): { index: number; pairs: Array<[from: string, to: string]> } | null {
  for (const [index, statement] of statements.entries()) {
    const rename = RENAME.exec(statement.replace(/^(\s*--[^\n]*\n)+/, ""));
    if (rename === null) continue;
    const pairs = rename[1]!.split(",").map((part) => PAIR.exec(part)).filter((match): match is RegExpExecArray => match !== null).map((match): [string, string] => [match[1]!, match[2]!]);
    if (pairs.some(([from, to]) => to === `${from}${replacedTableSuffix(version)}`)) return { index, pairs };
  }
  return null;
}

/** Where an interrupted copy-and-swap migration stands, and what of it is left to run. */
export async function planSwap(connection: ClickHouseConnection, statements: readonly string[], version: number): Promise<SwapPlan> {
  const swap = swapRename(statements, version);
  if (swap === null) return { statements, droppedStagedCopies: [], swappedBefore: false };
  const replaced = swap.pairs.filter(([, to]) => to.endsWith(replacedTableSuffix(version))).map(([, to]) => to);
  const staged = swap.pairs.filter(([, to]) => !to.includes("_before_")).map(([from]) => from);
  const existing = await tablesNamed(connection, [...replaced, ...staged]);
  if (replaced.every((name) => existing.has(name))) return { statements: statements.slice(swap.index + 1), droppedStagedCopies: [], swappedBefore: true };
  const dropped = staged.filter((name) => existing.has(name));
  for (const name of dropped) await connection.client.command({ query: `DROP TABLE IF EXISTS ${quoteIdentifier(connection.database)}.${quoteIdentifier(name)}` });
  return { statements, droppedStagedCopies: dropped, swappedBefore: false };
}

async function tablesNamed(connection: ClickHouseConnection, names: readonly string[]): Promise<Set<string>> {
  const result = await connection.client.query({
    query: "SELECT name FROM system.tables WHERE database = {database:String} AND has({names:Array(String)}, name)",
    query_params: { database: connection.database, names },
    format: "JSONEachRow",
  });
  return new Set((await result.json<{ name: string }>()).map((row) => row.name));
}

