-- The session rates without grouping every session of the range at read
-- time (issue 13). Since migration 0016 the four session panels (business
-- rates and over time, user behaviour over the range and over time) read
-- session_rollups — a row per session and minute — and grouped the range's
-- rows by session: at 300,000,900 metric values (12.9 million requests,
-- 13.5 million session_rollups rows) 8.6–10.2 s over 30 days, 1.0–1.2 s
-- over 24 hours, against targets of 3 s and 1 s.
--
-- A session rate counts each session once over its requests inside the range
-- (and the chosen services, tenants, datasets and runs), placed at its first
-- request in the range (migration 0016 explains why no per-minute count adds
-- up to that). Most sessions lie wholly inside the range: for them the
-- answer is the session's own summary, whatever the range. So:
--
-- 1. session_summaries: per session AND scope (tenant × service × dataset ×
-- run), the session's first and last minute, its complete requests, whether
-- any was resolved, handed off or followed up, and `scopes`: how many scopes
-- the session has in all. A panel reads a session whose scope rows are all
-- inside the range from these rows alone — and a session of one scope
-- (`scopes = 1`, nearly all) without any grouping. A session crossing the
-- range's start or end is read from its minute rows inside the range, found
-- by its key (2.), and grouped: the same numbers as the minute rows for every
-- range of whole minutes (dashboards/source/aggregate-metrics.ts,
-- SOURCES.session_rollups; test/integration/store/session-summaries.test.ts).
--
-- 2. session_rollups_by_session: session_rollups' rows sorted by session. A
-- summary is recomputed from all of its session's minute rows, wherever they
-- are in time (a session can last days): sorted by time, finding them would
-- read the whole table. The same sort puts the minutes' counts of requests
-- without a session id (key '') together, so a panel reads those without
-- reading every session's minute rows of the range under FINAL (1.3 s of
-- the 30-day panels at 300,000,900 values). A materialized view copies every
-- row inserted into session_rollups; the refresh deletes the stale rows of
-- both tables alike (a lightweight DELETE reaches no view).
--
-- Both are kept by the collector's rollup refresh
-- (store/clickhouse/metric-rollups.ts): after recomputing a range's minutes,
-- it recomputes the summaries of every session with a row in those minutes
-- (before the stale ones are deleted, so a session that lost a request is
-- recomputed too) and deletes a summary the recompute no longer produced (a
-- session that moved to another first minute's month, left a scope, or
-- vanished), as it deletes stale rollup keys.
--
-- Retention: from when a row was written, as the other rollups (migration
-- 0020; README "Retention"), with the interval session_rollups has now — what
-- an operator set on it, or 400 days (a session_rollups whose TTL was removed
-- or written otherwise leaves these at 400 days, and `ragscope migrate` says
-- so). Gates and alerts never read these tables.
CREATE TABLE IF NOT EXISTS {{database}}.session_rollups_by_session
(
    minute DateTime('UTC'),
    tenant_id LowCardinality(String),
    service_name LowCardinality(String),
    dataset_id LowCardinality(String),
    run_id LowCardinality(String),
    session_key String,
    requests UInt64,
    resolved UInt8,
    handed_off UInt8,
    followed_up UInt8,
    sessionless_requests UInt64,
    sessionless_resolved UInt64,
    sessionless_first_contact UInt64,
    version UInt64,
    written_at DateTime('UTC') DEFAULT now()
)
ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMM(minute)
ORDER BY (session_key, tenant_id, service_name, dataset_id, run_id, minute)
TTL written_at + INTERVAL 400 DAY
SETTINGS ttl_only_drop_parts = 1;

CREATE MATERIALIZED VIEW IF NOT EXISTS {{database}}.session_rollups_by_session_writer TO {{database}}.session_rollups_by_session AS
SELECT minute, tenant_id, service_name, dataset_id, run_id, session_key, requests, resolved, handed_off, followed_up,
       sessionless_requests, sessionless_resolved, sessionless_first_contact, version, written_at
FROM {{database}}.session_rollups;

CREATE TABLE IF NOT EXISTS {{database}}.session_summaries
(
    first_minute DateTime('UTC'),
    last_minute DateTime('UTC'),
    tenant_id LowCardinality(String),
    service_name LowCardinality(String),
    dataset_id LowCardinality(String),
    run_id LowCardinality(String),
    session_key String,
    requests UInt64,
    resolved UInt8,
    handed_off UInt8,
    followed_up UInt8,
    scopes UInt32,
    version UInt64,
    written_at DateTime('UTC') DEFAULT now(),
    -- A panel finds the sessions crossing its range's start by their last minute; sessions are short, so a
    -- granule's last minutes lie close to its first minutes and the index skips the months before.
    INDEX last_minute_range last_minute TYPE minmax GRANULARITY 1
)
ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMM(first_minute)
ORDER BY (tenant_id, service_name, first_minute, dataset_id, run_id, session_key)
TTL written_at + INTERVAL 400 DAY
SETTINGS ttl_only_drop_parts = 1;

ALTER TABLE {{database}}.session_rollups_by_session MODIFY TTL written_at + {{retention_of:session_rollups}};
ALTER TABLE {{database}}.session_summaries MODIFY TTL written_at + {{retention_of:session_rollups}};

-- Sessions stored before this migration: their minute rows sorted by session, then their summaries
-- (sessionSummarySelect in dashboards/source/session-summaries.ts computes the same).
INSERT INTO {{database}}.session_rollups_by_session (minute, tenant_id, service_name, dataset_id, run_id, session_key, requests, resolved, handed_off, followed_up, sessionless_requests, sessionless_resolved, sessionless_first_contact, version, written_at)
SELECT minute, tenant_id, service_name, dataset_id, run_id, session_key, requests, resolved, handed_off, followed_up, sessionless_requests, sessionless_resolved, sessionless_first_contact, version, written_at
FROM {{database}}.session_rollups FINAL
SETTINGS do_not_merge_across_partitions_select_final = 1;

INSERT INTO {{database}}.session_summaries (first_minute, last_minute, tenant_id, service_name, dataset_id, run_id, session_key, requests, resolved, handed_off, followed_up, scopes, version)
SELECT min(minute) AS first_minute, max(minute) AS last_minute, tenant_id, service_name, dataset_id, run_id, session_key,
       sum(requests) AS requests, max(resolved) AS resolved, max(handed_off) AS handed_off, max(followed_up) AS followed_up,
       toUInt32(count() OVER (PARTITION BY session_key)) AS scopes,
       toUnixTimestamp64Milli(now64(3)) AS version
FROM {{database}}.session_rollups_by_session FINAL
WHERE session_key != ''
GROUP BY tenant_id, service_name, dataset_id, run_id, session_key
SETTINGS do_not_merge_across_partitions_select_final = 1, max_bytes_before_external_group_by = 1073741824
