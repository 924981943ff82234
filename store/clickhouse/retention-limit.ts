/**
 * The longest retention a table may have: ClickHouse's DateTime holds
 * seconds up to 2106-02-07 06:28:15 UTC, and a TTL past it wraps around to
 * the 1970s (`toDateTime(now()) + INTERVAL 36500 DAY` is a day of 1990), so
 * a retention meant as "a century" makes every row expire at the next merge
 * — the data is dropped as soon as it is stored.
 *
 * Retention is each table's TTL (`<time> + INTERVAL n UNIT`, README
 * "Retention"), which operators change with `ALTER TABLE … MODIFY TTL` and
 * the migrations copy (kept-retention.ts). Before anything is migrated or
 * stored, every TTL of that shape is checked: one whose end, counted from
 * now, passes 2106 is refused with the table, the longest retention that
 * fits and the statements that fix it. Since the limit is a date, the
 * longest retention shrinks by a day a day; "keep forever" is `REMOVE TTL`.
 */
import type { ClickHouseConnection } from "./clickhouse-connection.js";

/** The last second a ClickHouse DateTime holds (2^32 − 1 seconds after 1970). */
export const LAST_DATE_TIME = new Date((2 ** 32 - 1) * 1000);

const DAY_MS = 86_400_000;

/** `<time> + toInterval<Unit>(<n>)` as the engine writes a TTL in engine_full, each occurrence of a (multi-part) TTL clause. */
const INTERVAL_TERM = /(\S+) \+ toInterval(Second|Minute|Hour|Day|Week|Month|Quarter|Year)\((\d+)\)/g;
const TTL_CLAUSE = /\bTTL (.+?)(?= SETTINGS|$)/;

export type IntervalUnit = "Second" | "Minute" | "Hour" | "Day" | "Week" | "Month" | "Quarter" | "Year";

/** When a retention of `count` × `unit` that starts at `from` ends, by the calendar (months and years as ClickHouse adds them). */
export function retentionEnd(from: Date, unit: IntervalUnit, count: number): Date {
  const end = new Date(from.getTime());
  switch (unit) {
    case "Second":
      return new Date(from.getTime() + count * 1_000);
    case "Minute":
      return new Date(from.getTime() + count * 60_000);
    case "Hour":
      return new Date(from.getTime() + count * 3_600_000);
    case "Day":
      return new Date(from.getTime() + count * DAY_MS);
    case "Week":
      return new Date(from.getTime() + count * 7 * DAY_MS);
    case "Month":
      end.setUTCMonth(end.getUTCMonth() + count);
      return end;
    case "Quarter":
      end.setUTCMonth(end.getUTCMonth() + 3 * count);
      return end;
    case "Year":
      end.setUTCFullYear(end.getUTCFullYear() + count);
      return end;
  }
}

/** The longest retention in days for rows written at `now`: their TTL must end before LAST_DATE_TIME. */
export function maximumRetentionDays(now: Date): number {
  return Math.floor((LAST_DATE_TIME.getTime() - now.getTime()) / DAY_MS);
}

export interface RetentionPastLimit {
  readonly table: string;
  /** The TTL clause as the engine shows it, e.g. `written_at + toIntervalDay(36500)`. */
  readonly ttl: string;
  /** What the interval is added to, e.g. `written_at` or `toDateTime(inserted_at)`. */
  readonly time: string;
  readonly unit: IntervalUnit;
  readonly count: number;
  readonly maximumDays: number;
}

/** Every TTL interval in `engineFull` (a table's engine_full) that, counted from `now`, ends after LAST_DATE_TIME. */
export function retentionsPastLimit(table: string, engineFull: string, now: Date): RetentionPastLimit[] {
  const ttl = TTL_CLAUSE.exec(engineFull)?.[1];
  if (ttl === undefined) return [];
  const found: RetentionPastLimit[] = [];
  for (const match of ttl.matchAll(INTERVAL_TERM)) {
    const unit = match[2] as IntervalUnit;
    const count = Number(match[3]);
    // A count too large for the calendar arithmetic (an invalid date) passes 2106 as well.
    const end = retentionEnd(now, unit, count);
    if (Number.isNaN(end.getTime()) || end.getTime() > LAST_DATE_TIME.getTime()) {
      found.push({ table, ttl, time: match[1]!, unit, count, maximumDays: maximumRetentionDays(now) });
    }
  }
  return found;
}

/** The tables of the connection's database whose retention passes 2106 counted from `now`. */
export async function findRetentionsPastLimit(connection: ClickHouseConnection, now: Date): Promise<RetentionPastLimit[]> {
  const result = await connection.client.query({
    query: "SELECT name, engine_full FROM system.tables WHERE database = {database:String} AND engine_full LIKE '% TTL %' ORDER BY name",
    query_params: { database: connection.database },
    format: "JSONEachRow",
  });
  return (await result.json<{ name: string; engine_full: string }>()).flatMap((row) => retentionsPastLimit(row.name, row.engine_full, now));
}

/** A table's retention passes the last date ClickHouse's DateTime holds: its rows would expire as soon as they are stored. */
export class RetentionPastLimitError extends Error {
  constructor(
    readonly problems: readonly RetentionPastLimit[],
    readonly database: string,
    readonly store: string,
  ) {
    super(problems.map((problem) => describeRetentionPastLimit(problem, database, store)).join("; "));
    this.name = "RetentionPastLimitError";
  }
}

export function describeRetentionPastLimit(problem: RetentionPastLimit, database: string, store: string): string {
  const table = `${database}.${problem.table}`;
  return (
    `the retention of ${table} in ${store} (TTL ${problem.ttl}: ${problem.count} ${problem.unit.toLowerCase()}s) ends after ${LAST_DATE_TIME.toISOString().slice(0, 10)}, ` +
    `the last day ClickHouse's DateTime holds, so the TTL wraps around and every row would expire as soon as it is stored; ` +
    `the longest retention is ${problem.maximumDays} days from today. ` +
    `Set it with ALTER TABLE ${table} MODIFY TTL ${problem.time} + INTERVAL ${problem.maximumDays} DAY (or less), ` +
    `or keep the rows forever with ALTER TABLE ${table} REMOVE TTL (README "Retention"), then start again`
  );
}
