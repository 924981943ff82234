/**
 * `FINAL` that collapses rows within each partition only
 * (`do_not_merge_across_partitions_select_final = 1`), so a time-filtered
 * query reads only the granules of its range.
 *
 * Without it the embedded engine's FINAL read every row of metric_values to
 * recompute one minute of rollups (334,251 rows read for 25 rows of one
 * minute on a store of 300,000 values; 9,673 with it, the granules of that
 * day): the rollups' refresh cost grew with the whole store instead of the
 * minutes written.
 *
 * It is exact for every partitioned table of the store: each one's partition
 * (the month of the request's start, of the rollup's minute) is a function of
 * a column of its sorting key (the day of that start, the minute), so two rows
 * with the same sorting key — the copies FINAL collapses — are always in the
 * same partition (migrations 0007 and 0009). The other tables have one
 * partition, where the setting changes nothing.
 */
export const FINAL_WITHIN_PARTITIONS = { do_not_merge_across_partitions_select_final: 1 } as const;

/** The statement with these settings for it alone (a SETTINGS clause, never a session SET, which the embedded engine would keep for every later query). */
export function withStatementSettings(sql: string, settings: Readonly<Record<string, number>>): string {
  const entries = Object.entries(settings);
  for (const [name, value] of entries) {
    if (!/^[a-z_]+$/.test(name) || !Number.isSafeInteger(value)) throw new Error(`a statement setting must be a name and a whole number, got ${name} = ${value}`);
  }
  if (entries.length === 0) return sql;
  const list = entries.map(([name, value]) => `${name} = ${value}`).join(", ");
  const statement = sql.replace(/[\s;]+$/, "");
  // A statement that ends in its own SETTINGS clause gets these added to it; anything else a clause of its own.
  return /\bSETTINGS\s+\w+\s*=\s*[\w.']+(?:\s*,\s*\w+\s*=\s*[\w.']+)*$/i.test(statement) ? `${statement}, ${list}` : `${statement}\nSETTINGS ${list}`;
}
