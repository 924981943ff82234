-- A request stored twice — a partial trace's result beside the complete one:
-- one Case Result id, trace and start under two sorting keys, the partial one
-- without the tenant its root span carried — is one request under its label
-- on the Grafana Failures board, as on the web UI's Failures page
-- (dashboards/source/root-causes.ts rootCauseRollupSelect). Before this
-- release it was counted twice there:
-- - "Without a root-cause label" read the failing rows (request_rollups,
--   a row per sorting key) less the labelled requests: the request's second
--   row counted as one without a label, where the page counts none;
-- - a rollup refresh between the partial write and the complete one (the
--   usual timing) counted the request under the partial row's tenant, and
--   the later refresh of the complete row's tenant counted it there too,
--   leaving the first count: the label's bar read 2.
--
-- failing_rows: per root_cause_rollups row, the Case Result rows of its
-- label's failing requests whose own final verdict is failed, each under its
-- own row's tenant, service, dataset and run — the unit and grouping of
-- request_rollups' failed_verdicts — so the stat is the failing rows less the
-- labelled requests' failing rows under any filter
-- (dashboards/source/failures-dashboard.ts). A partial row under another
-- tenant is a rollup row of its own, with failing_requests 0.
-- A row stored before this release counts requests stored once (every one
-- but those noted below), each one failing row: its failing_rows is its
-- failing_requests, which the DEFAULT gives it, and gives a row an earlier
-- release's process inserts without the column.
ALTER TABLE {{database}}.root_cause_rollups ADD COLUMN IF NOT EXISTS failing_rows UInt64 DEFAULT failing_requests AFTER failing_requests;

-- The minutes of every request stored under more than one tenant and service,
-- noted with each of its tenants and services, in rollup_repairs (migration
-- 0024): the first process that opens the store to write, or `ragscope
-- migrate`, recomputes them through the rollup refresh itself
-- (store/clickhouse/rollup-repairs.ts), which now recomputes every group
-- holding a row of a request it reads together and deletes the rows it no
-- longer produces (the count the partial row's group kept). Any version of a
-- row marks its minute: recomputing a minute whose counts were right changes
-- nothing.
INSERT INTO {{database}}.rollup_repairs (minute, tenant_id, service_name, reason)
SELECT DISTINCT toStartOfMinute(started_at) AS minute, tenant_id, service_name,
       'a request stored under two tenants or services is counted once in the root-cause rollups (migration 0038)' AS reason
FROM {{database}}.case_results
WHERE (case_result_id, trace_id, started_at) IN (
    SELECT case_result_id, trace_id, started_at FROM {{database}}.case_results
    GROUP BY case_result_id, trace_id, started_at HAVING uniqExact(tenant_id, service_name) > 1)
SETTINGS max_bytes_before_external_group_by = 1073741824;
