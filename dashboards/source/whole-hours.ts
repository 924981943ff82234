/**
 * Reading a rollup with an hourly table beside its minutes (metric_rollups
 * and metric_rollups_hourly, migration 0018; stage_rollups and
 * stage_rollups_hourly, 0019): an hour's row where every minute of the hour
 * is in the range — its first and its last minute are (`hour`,
 * `hour_last_minute`: plain columns, since Grafana's macros take a column,
 * not an expression) — and, when the reader groups by time, its buckets are
 * whole hours (a length in whole hours: buckets start at multiples of their
 * length from the epoch, so an hour never straddles two); the minute rows of
 * every other hour. The minute table has `hour` and `hour_last_minute` as
 * aliases, so one condition tells the two apart and each minute is counted
 * once: sums and counts are the minutes', and a 30-day range reads ~720 rows
 * per key instead of 43,200. The condition names only the time columns and a
 * constant, so the engine prunes the minute rows of the whole hours by the
 * sorting key instead of reading and dropping them.
 */
import type { Scope } from "./sql-scope.js";

/**
 * What a reader tells a rollup so that it may read whole hours where they give the minutes' numbers: its time
 * range alone, as a condition on a time column, and, when it groups by time, its buckets' length in seconds as SQL.
 */
export interface HourlyReading {
  /** `$__timeFilter(column)` on the boards: the scope's time condition without its other filters. */
  inRange(timeColumn: string): string;
  /** `$__interval_s` on the boards; absent over the range (no buckets). */
  bucketSeconds?: string;
}

export interface HourlyRollup {
  /** The minute table (with the `hour` and `hour_last_minute` aliases). */
  minutes: string;
  /** Its hourly table. */
  hours: string;
  /** The columns both tables have, besides their time. */
  columns: string;
}

/**
 * The rollup's rows of a scope (and `filter`, a condition on the shared columns, or null) as one row set with a
 * `minute` column: whole hours from the hourly table and the other minutes with `hours`, the minute rows without.
 */
export function minutesAndWholeHours(rollup: HourlyRollup, scope: Scope, filter: string | null, hours?: HourlyReading): string {
  const and = filter === null ? "" : ` AND ${filter}`;
  if (hours === undefined) return `${rollup.minutes} FINAL WHERE ${scope("minute")}${and}`;
  const wholeHour = `${hours.inRange("hour")} AND ${hours.inRange("hour_last_minute")}${hours.bucketSeconds === undefined ? "" : ` AND ${hours.bucketSeconds} % 3600 = 0`}`;
  return (
    `(SELECT hour AS minute, ${rollup.columns} FROM ${rollup.hours} FINAL WHERE ${scope("hour")} AND ${wholeHour}${and} ` +
    `UNION ALL SELECT minute, ${rollup.columns} FROM ${rollup.minutes} FINAL WHERE ${scope("minute")}${and} AND NOT (${wholeHour}))`
  );
}
