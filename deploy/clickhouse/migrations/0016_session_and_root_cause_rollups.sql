-- The session rates and the Failures board without reading every request of
-- the range (issue 13). After migration 0014 these were the panels left on
-- raw rows: first-contact resolution and sessions resolved (business rates,
-- business over time, user behaviour over the range and over time) grouped
-- every request of the range by its session over `case_results FINAL`, and
-- the Failures board's root causes and failure rate read every
-- `evaluation_results` and `case_results` row of the range.
--
-- 1. session_rollups: per minute × tenant × service × dataset × run × SESSION
-- ID, the session's complete requests in that minute and whether any of them
-- was marked resolved, handed off or followed up; and, under the session key
-- '', the minute's complete requests WITHOUT a session id, counted (all,
-- resolved, resolved without handoff or follow-up). A request without a
-- session id is a session of its own (aggregate-metrics.ts SOURCES.sessions
-- keys it 'trace:<trace id>'): one request, in one minute, so its minute's
-- counts add up exactly over any range and need no row each.
--
-- Why per session and minute, not one row per session, and not per-minute
-- counts: a session rate counts each session ONCE over the requests of the
-- range (and of the chosen services, tenants, datasets and runs) — a
-- session that spans the range's start counts with its requests inside the
-- range only, placed at its first request inside it. Per-minute counts
-- cannot add up to that (a session spanning two minutes would count twice;
-- "sessions with exactly one request" is no sum of minutes), and one row
-- per session (keyed by its first minute or day) would count a session that
-- spans a range boundary with requests outside the range, or not at all.
-- Rows per session and minute are re-grouped by session at query time (the
-- panel's GROUP BY session_key over the rows of the range): the same
-- numbers as the raw rows for every range of whole minutes, which is how
-- every rollup-read panel places rows in time (migrations 0009, 0014), and
-- the time-series buckets (whole minutes) place a session at the minute of
-- its first request in the range, the bucket its first request falls in.
-- The table holds at most one row per complete request with a session id
-- (fewer where sessions send several requests a minute) and one per minute
-- for the requests without one; what a panel saves is the wide
-- `case_results FINAL` read (its sorting key, version and the columns of
-- the condition, over the month's parts) for five narrow columns. What it
-- does not do: make a session rate's cost independent of the number of
-- sessions with an id in the range — an exact count of distinct sessions
-- needs each session's key; a sketch (uniq states) would make them
-- approximate. One assumption, as everywhere the store collapses rows: two
-- complete requests without a session id never share a trace (a trace is
-- one request; its Case Result id is derived from it), else the raw rows
-- would count them as one session and the counts as two.
--
-- 2. root_cause_rollups: per minute × tenant × service × dataset × run ×
-- root-cause label, the failing requests the root-cause evaluator labelled
-- (evaluator_id `root_cause`, reason `<LABEL>: …`; the request's tenant,
-- service, dataset and run from its case_results row, which
-- evaluation_results does not carry). The board's "Root causes over time"
-- and "Root causes" read it; its "Failure rate" reads request_rollups'
-- passed_verdicts and failed_verdicts (migration 0014, the same final
-- verdict). The failing-case and review-queue tables (the latest 500 rows)
-- and the one-trace panels stay on raw rows: they are the drill-down.
-- A request stored under two sorting keys (a partial trace's result beside
-- the complete one, migration 0007) is attributed to its newest version's
-- tenant, service, dataset and run.
--
-- Both are recomputed from `case_results FINAL` (and `evaluation_results
-- FINAL`) by the collector's rollup refresh for the minutes the sinks wrote
-- (store/clickhouse/metric-rollups.ts), as metric_rollups and
-- request_rollups are: a recomputed minute replaces the earlier rows of the
-- same key (ReplacingMergeTree by the refresh time, read with FINAL), and a
-- key the recompute no longer produces (a re-evaluated request whose
-- session, run, dataset or label changed) is deleted by the refresh. The
-- SELECTs are sessionRollupSelect and rootCauseRollupSelect in
-- dashboards/source/aggregate-metrics.ts; the backfill below spells them
-- out. Gates and alerts never read these tables.
--
-- Retention: a rollup minute is dropped 400 days after the minute (the raw
-- rows' default, README "Retention").
CREATE TABLE IF NOT EXISTS {{database}}.session_rollups
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
    version UInt64
)
ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMM(minute)
ORDER BY (tenant_id, service_name, minute, dataset_id, run_id, session_key)
TTL minute + INTERVAL 400 DAY
SETTINGS ttl_only_drop_parts = 1;

CREATE TABLE IF NOT EXISTS {{database}}.root_cause_rollups
(
    minute DateTime('UTC'),
    tenant_id LowCardinality(String),
    service_name LowCardinality(String),
    dataset_id LowCardinality(String),
    run_id LowCardinality(String),
    root_cause LowCardinality(String),
    failing_requests UInt64,
    version UInt64
)
ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMM(minute)
ORDER BY (tenant_id, service_name, minute, dataset_id, run_id, root_cause)
TTL minute + INTERVAL 400 DAY
SETTINGS ttl_only_drop_parts = 1;

-- Requests stored before this migration: the rollups of everything there is.
-- The store's every request is grouped (and, for the root causes, joined to
-- its evaluations) once: the grouping spills to disk past 1 GiB and the join
-- merges sorted blocks instead of holding every request in memory, so a
-- large store's upgrade takes longer rather than the machine's memory.
-- FINAL collapses within partitions (exact: each table's partition is the
-- month of a sorting-key column, final-within-partitions.ts).
INSERT INTO {{database}}.session_rollups (minute, tenant_id, service_name, dataset_id, run_id, session_key, requests, resolved, handed_off, followed_up, sessionless_requests, sessionless_resolved, sessionless_first_contact, version)
SELECT toStartOfMinute(started_at) AS minute, tenant_id, service_name, dataset_id, run_id, session_id AS session_key,
       countIf(session_key != '') AS requests,
       if(session_key = '', 0, max(has(feedback_kinds, 'resolved'))) AS resolved,
       if(session_key = '', 0, max(has(feedback_kinds, 'handoff'))) AS handed_off,
       if(session_key = '', 0, max(has(feedback_kinds, 'follow_up'))) AS followed_up,
       countIf(session_key = '') AS sessionless_requests,
       countIf(session_key = '' AND has(feedback_kinds, 'resolved')) AS sessionless_resolved,
       countIf(session_key = '' AND has(feedback_kinds, 'resolved') AND NOT has(feedback_kinds, 'handoff') AND NOT has(feedback_kinds, 'follow_up')) AS sessionless_first_contact,
       toUnixTimestamp64Milli(now64(3)) AS version
FROM {{database}}.case_results FINAL
WHERE partial_trace = 0
GROUP BY minute, tenant_id, service_name, dataset_id, run_id, session_key
SETTINGS do_not_merge_across_partitions_select_final = 1, max_bytes_before_external_group_by = 1073741824;

INSERT INTO {{database}}.root_cause_rollups (minute, tenant_id, service_name, dataset_id, run_id, root_cause, failing_requests, version)
SELECT toStartOfMinute(causes.started_at) AS minute, requests.request_tenant AS tenant_id, requests.request_service AS service_name,
       requests.request_dataset AS dataset_id, requests.request_run AS run_id, causes.root_cause AS root_cause,
       count() AS failing_requests,
       toUnixTimestamp64Milli(now64(3)) AS version
FROM (SELECT case_result_id, started_at, extract(reason, '^([A-Z][A-Z_]*)') AS root_cause
      FROM {{database}}.evaluation_results FINAL
      WHERE evaluator_id = 'root_cause' AND match(reason, '^[A-Z][A-Z_]*:')) AS causes
INNER JOIN (SELECT case_result_id, argMax(tenant_id, version) AS request_tenant, argMax(service_name, version) AS request_service,
                   argMax(dataset_id, version) AS request_dataset, argMax(run_id, version) AS request_run
            FROM {{database}}.case_results FINAL
            GROUP BY case_result_id) AS requests ON requests.case_result_id = causes.case_result_id
GROUP BY minute, tenant_id, service_name, dataset_id, run_id, root_cause
SETTINGS do_not_merge_across_partitions_select_final = 1, max_bytes_before_external_group_by = 1073741824, join_algorithm = 'partial_merge';
