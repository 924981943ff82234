-- The session rates (sessions resolved, first-contact resolution) read "no data" where no session of the range
-- carries a user event, instead of 0 %; and a request without a session id is no session at all.
--
-- Before, the session rollups (migrations 0016, 0021) held no event counts, so the panels had nothing to probe:
-- an application that records no user events read 0 % sessions resolved, though nothing was observed (the request
-- rates already read "no data" there, from request_rollups' event counts). A probe of the raw rows would have read
-- every request of the range again, which migration 0016 moved these panels away from. And each request without a
-- session id counted as a session of one request (under the key '', per minute), inflating the denominator with
-- "sessions" nobody opened: a session rate now counts sessions with an id only.
--
-- event_requests: per session row, its complete requests carrying a user event of any kind (feedback_kinds not
-- empty, the same test the request rates' probe and evaluators/behaviour/behaviour-evidence.ts apply). It is a
-- count, not a flag, so a session's pieces (its minutes inside a range, its scopes) add up to the session's. A
-- panel reads "no data" when the sum over the sessions of its range and filters is 0 (aggregate-metrics.ts, the
-- session rates' probe) — from the rows it already reads, at no extra cost. Rows of the key '' (requests
-- without a session id) keep their counts for the operator but carry 0 here: no panel reads them any more.
ALTER TABLE {{database}}.session_rollups ADD COLUMN IF NOT EXISTS event_requests UInt64 DEFAULT 0 AFTER followed_up;
ALTER TABLE {{database}}.session_rollups_by_session ADD COLUMN IF NOT EXISTS event_requests UInt64 DEFAULT 0 AFTER followed_up;
ALTER TABLE {{database}}.session_summaries ADD COLUMN IF NOT EXISTS event_requests UInt64 DEFAULT 0 AFTER followed_up;

-- The view that copies session_rollups' rows into session_rollups_by_session names its columns: written again with
-- the new one (migrations run before the collector writes, so no insert falls between the two statements).
DROP VIEW IF EXISTS {{database}}.session_rollups_by_session_writer;

CREATE MATERIALIZED VIEW IF NOT EXISTS {{database}}.session_rollups_by_session_writer TO {{database}}.session_rollups_by_session AS
SELECT minute, tenant_id, service_name, dataset_id, run_id, session_key, requests, resolved, handed_off, followed_up, event_requests,
       sessionless_requests, sessionless_resolved, sessionless_first_contact, version, written_at
FROM {{database}}.session_rollups;

-- Sessions stored before this migration: their minute rows recomputed from the raw rows, as migration 0016's
-- backfill computed them, with the event counts (sessionRollupSelect in dashboards/source/aggregate-metrics.ts
-- computes the same); the view copies them into session_rollups_by_session. Each recomputed row replaces the stored
-- one of its key: its version is above every stored version (a refresh's clock may run ahead of this server's).
INSERT INTO {{database}}.session_rollups (minute, tenant_id, service_name, dataset_id, run_id, session_key, requests, resolved, handed_off, followed_up, event_requests, sessionless_requests, sessionless_resolved, sessionless_first_contact, version)
SELECT toStartOfMinute(started_at) AS minute, tenant_id, service_name, dataset_id, run_id, session_id AS session_key,
       countIf(session_key != '') AS requests,
       if(session_key = '', 0, max(has(feedback_kinds, 'resolved'))) AS resolved,
       if(session_key = '', 0, max(has(feedback_kinds, 'handoff'))) AS handed_off,
       if(session_key = '', 0, max(has(feedback_kinds, 'follow_up'))) AS followed_up,
       countIf(session_key != '' AND notEmpty(feedback_kinds)) AS event_requests,
       countIf(session_key = '') AS sessionless_requests,
       countIf(session_key = '' AND has(feedback_kinds, 'resolved')) AS sessionless_resolved,
       countIf(session_key = '' AND has(feedback_kinds, 'resolved') AND NOT has(feedback_kinds, 'handoff') AND NOT has(feedback_kinds, 'follow_up')) AS sessionless_first_contact,
       greatest(toUInt64(toUnixTimestamp64Milli(now64(3))), (SELECT toUInt64(max(version) + 1) FROM {{database}}.session_rollups)) AS version
FROM {{database}}.case_results FINAL
WHERE partial_trace = 0
GROUP BY minute, tenant_id, service_name, dataset_id, run_id, session_key
SETTINGS do_not_merge_across_partitions_select_final = 1, max_bytes_before_external_group_by = 1073741824;

-- Then their summaries, from those minute rows (sessionSummarySelect in dashboards/source/session-summaries.ts).
INSERT INTO {{database}}.session_summaries (first_minute, last_minute, tenant_id, service_name, dataset_id, run_id, session_key, requests, resolved, handed_off, followed_up, event_requests, scopes, version)
SELECT min(minute) AS first_minute, max(minute) AS last_minute, tenant_id, service_name, dataset_id, run_id, session_key,
       sum(requests) AS requests, max(resolved) AS resolved, max(handed_off) AS handed_off, max(followed_up) AS followed_up,
       sum(event_requests) AS event_requests,
       toUInt32(count() OVER (PARTITION BY session_key)) AS scopes,
       greatest(toUInt64(toUnixTimestamp64Milli(now64(3))), (SELECT toUInt64(max(version) + 1) FROM {{database}}.session_summaries)) AS version
FROM {{database}}.session_rollups_by_session FINAL
WHERE session_key != ''
GROUP BY tenant_id, service_name, dataset_id, run_id, session_key
SETTINGS do_not_merge_across_partitions_select_final = 1, max_bytes_before_external_group_by = 1073741824
