/**
 * The session rates' rows over a range, from session_summaries (migration
 * 0021) where a session lies inside the range and from its minute rows where
 * it crosses the range's start or end — the same rows, one per session, as
 * grouping every minute row of the range by session (migration 0016), without
 * that grouping for the sessions inside.
 *
 * A session's summary is per scope (tenant × service × dataset × run), so a
 * panel's filters select a session's requests of the chosen scopes, as the raw
 * rows' filters do. A session counts with its requests inside the range only:
 * - one scope row, inside the range (first and last minute in it), and the
 *   session has no other scope (`scopes = 1`): the summary is the session's row;
 * - inside the range, but the session has other scopes: its scope rows are
 *   grouped by session (few sessions span scopes);
 * - crossing the range's start or end: its minute rows inside the range
 *   (session_rollups_by_session, found by session and scope through its
 *   sorting key) are grouped with the rest of the session.
 * Requests without a session id belong to no session and are not read (their
 * per-minute counts under the key '' stay in the minute rows). Every row carries
 * its session's requests with a user event inside the range (event_requests,
 * migration 0025): the session rates read "no data" where none of the range has one.
 */
import type { RangeReading } from "./aggregate-metrics.js";
import type { Scope } from "./sql-scope.js";

/** The columns of session_summaries in the order sessionSummarySelect computes them. */
export const SESSION_SUMMARY_COLUMNS = ["first_minute", "last_minute", "tenant_id", "service_name", "dataset_id", "run_id", "session_key", "requests", "resolved", "handed_off", "followed_up", "event_requests", "scopes", "version"] as const;

/** A session's columns, one after another: the columns a scope names and the session key. */
const SESSION_SCOPE = "session_key, tenant_id, service_name, dataset_id, run_id";

/** The counts and flags a session row carries, summed or folded over its pieces. */
const SESSION_FIELDS = "requests, resolved, handed_off, followed_up, event_requests";

/**
 * The SELECT computing session_summaries rows from session_rollups_by_session FINAL rows meeting `where` (whole
 * sessions, less the minute rows a refresh found stale): each session's first and last minute, requests and
 * flags per scope, its requests with a user event (`eventCounts`: a store before migration 0025 has no column for
 * them), and how many scopes it has. `{version:UInt64}` is a parameter. Migration 0025's backfill spells out the
 * same (0021's, before the event counts).
 */
export function sessionSummarySelect(database: string, where: string, eventCounts = true): string {
  return [
    "SELECT min(minute) AS first_minute, max(minute) AS last_minute, tenant_id, service_name, dataset_id, run_id, session_key,",
    "       sum(requests) AS requests, max(resolved) AS resolved, max(handed_off) AS handed_off, max(followed_up) AS followed_up,",
    ...(eventCounts ? ["       sum(event_requests) AS event_requests,"] : []),
    "       toUInt32(count() OVER (PARTITION BY session_key)) AS scopes,",
    // Not `AS version`: an alias shadows the column of that name in WHERE, and `where` may ask for the rows' version.
    "       {version:UInt64} AS summary_version",
    `FROM ${database}.session_rollups_by_session FINAL`,
    `WHERE session_key != '' AND (${where})`,
    "GROUP BY tenant_id, service_name, dataset_id, run_id, session_key",
  ].join("\n");
}

/**
 * The sessions crossing the range's start are found by the last_minute minmax index (they began any time before).
 * FINAL's exact mode would widen the granules it finds to every granule sharing their sorting-key range — nearly
 * all of them (279 ms against 35 at 3,214,500 summaries, 24 hours) — in case a newer version of a summary sits in a
 * granule the index skipped. Such a version ends before the range: that session has no minute row in the range
 * (session_rollups_by_session, whose stale rows the refresh deletes), so the older version found instead adds no
 * row; a newer version the index keeps is the one FINAL keeps.
 */
const CROSSING_BY_INDEX = "SETTINGS use_skip_indexes_if_final_exact_mode = 0";

/** A session of one request resolved at first contact, over the session's folded fields. */
function firstContact(requests: string, resolved: string, handedOff: string, followedUp: string): string {
  return `toUInt8(${requests} = 1 AND ${resolved} = 1 AND ${handedOff} = 0 AND ${followedUp} = 0)`;
}

/**
 * One row per session of the range (`session_minute`, its first minute in the range; `sessions`, its weight;
 * `resolved_sessions`; `first_contact_sessions`; `event_requests`, its requests in the range with a user event), as
 * SOURCES.session_rollups defines them, over the summaries.
 */
export function sessionRowsOverRange(scope: Scope, range: Required<Pick<RangeReading, "inRange" | "filters" | "overlaps">>): string {
  const inside = `${scope("first_minute")} AND ${range.inRange("last_minute")}`;
  const crossing = `${range.filters} AND ${range.overlaps("first_minute", "last_minute")} AND NOT (${range.inRange("first_minute")} AND ${range.inRange("last_minute")})`;
  return (
    `(SELECT first_minute AS session_minute, 1 AS sessions, resolved AS resolved_sessions, ${firstContact("requests", "resolved", "handed_off", "followed_up")} AS first_contact_sessions, event_requests ` +
    `FROM session_summaries FINAL WHERE ${inside} AND scopes = 1 ` +
    `UNION ALL SELECT min(piece_minute) AS session_minute, 1 AS sessions, max(resolved) AS resolved_sessions, ` +
    `${firstContact("sum(requests)", "max(resolved)", "max(handed_off)", "max(followed_up)")} AS first_contact_sessions, sum(event_requests) AS event_requests ` +
    `FROM (SELECT session_key, first_minute AS piece_minute, ${SESSION_FIELDS} FROM session_summaries FINAL WHERE ${inside} AND scopes > 1 ` +
    `UNION ALL SELECT session_key, minute AS piece_minute, ${SESSION_FIELDS} FROM session_rollups_by_session FINAL WHERE ${scope("minute")} ` +
    `AND (${SESSION_SCOPE}) IN (SELECT ${SESSION_SCOPE} FROM session_summaries FINAL WHERE ${crossing} ${CROSSING_BY_INDEX})) ` +
    `GROUP BY session_key)`
  );
}
