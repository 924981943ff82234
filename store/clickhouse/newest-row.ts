/**
 * Which stored row a query that collapses rows by hand (argMax, instead of FINAL) takes, so that it answers what FINAL
 * and the in-memory store answer, whatever the engine's merges have done.
 *
 * Of the rows of one sorting key, FINAL keeps ReplacingMergeTree's: the highest version, and of equal versions the one
 * written last (the later insert, and of one insert the later row). Equal versions still happen: a version is the
 * millisecond of a write, and while one writer's strictly increase (store/row-version-clock.ts: of two writes, and
 * of one Case Result id's requests in one write, the later has the higher), two processes may write one key in one
 * millisecond, as one writer's one batch did before its requests took versions of their own. `argMax(…, version)` then
 * took either row, each column on its own: the same list answered with one request or the other between runs and
 * merges, a page could pair one request's trace id with the other's start, and the filtered list (which collapses by
 * hand) disagreed with the unfiltered one (which reads FINAL). WRITE_ORDER is FINAL's rule as a value: the version,
 * then the part's first block number (blocks are numbered in insert order; a merge keeps its parts' range and
 * collapses its rows of one key into one, so two rows of one key in different parts were written in the order of their
 * parts), then the row's place in its part (an insert sorts its rows by the sorting key keeping their order, and
 * `optimize_on_insert = 0`, clickhouse-sink.ts, keeps them all). The in-memory store keeps the row upserted last.
 *
 * Of the newest rows of several keys (one Case Result id's requests: sent again on another day or from another service,
 * or rebuilt without a tenant beside its request), no write order survives a merge (a merged part holds them by
 * sorting key), so NEWEST_REQUEST_ORDER is the version, then the list's order (LIST_ORDER, compareNewestFirst): of
 * rows of one version, the request the list shows first (the later start, then the greater trace id, tenant and
 * service), which no two keys share. Two writes of one process never tie (row-version-clock.ts: its later write has
 * the higher version, even while its clock stands still, as a test's or a replay's may), nor do one id's requests in
 * one write (the later has the next version); two processes' writes in one millisecond do. Not the insert time
 * between them: inserted_at is the engine's clock, not the writer's clock the version is, so two such writes tied on it
 * or not by how long the first insert took, and the in-memory store, which counted its inserts instead, answered with
 * the later write where the engine might answer with the other. The in-memory store compares the same way (store/memory/request-rows.ts).
 *
 * Both name the stored columns and virtual columns of the table read: use them in a query that reads the table itself
 * (not a subquery's aliases), with no alias that shadows `version`, `started_at`, `trace_id`,
 * `tenant_id` or `service_name`. `_part` is `<partition id>_<first block>_<last block>_<level>[_<mutation>]`, and a
 * partition id holds no `_` (a number for the toYYYYMM partitions, `all` without a partition key, else a hash).
 */
export const WRITE_ORDER = "(version, toUInt64(splitByChar('_', _part)[2]), _part_offset)";

/** The newest of several requests' rows, each already its key's newest (WRITE_ORDER): see above. */
export const NEWEST_REQUEST_ORDER = "(version, started_at, trace_id, tenant_id, service_name)";

/**
 * A SELECT of each sorting key's newest row (WRITE_ORDER) among the rows of `table` that `where` selects, its
 * `columns` under their own names (a query over it can then use NEWEST_REQUEST_ORDER). `key`: the table's sorting key.
 */
export function newestRowsOfKeys(table: string, key: string, columns: readonly string[], where: string): string {
  return `SELECT ${columns.map((column, index) => `tupleElement(newest, ${index + 1}) AS ${column}`).join(", ")}
    FROM (SELECT argMax((${columns.join(", ")}), ${WRITE_ORDER}) AS newest FROM ${table} WHERE ${where} GROUP BY ${key})`;
}

/** newestRowsOfKeys over case_results (`database` quoted), whose sorting key is the tenant, service, day and id (migration 0007). */
export function newestCaseResultRows(database: string, columns: readonly string[], where: string): string {
  return newestRowsOfKeys(`${database}.case_results`, "tenant_id, service_name, toDate(started_at), case_result_id", columns, where);
}
