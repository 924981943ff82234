-- A human review decides a case's final verdict only once two reviewers
-- agree (evaluators/reviewed-verdict.ts REVIEWERS_PER_CASE; seed 004 §九.4
-- 双人独立标注). Before this release one reviewer's labels decided it, and
-- request_rollups (migration 0014) hold the verdict counts the refresh
-- computed with that rule: a minute with a labelled request may count a
-- pass that one reviewer gave alone.
--
-- 1. Where a rollup minute must be recomputed because its definition
-- changed: one row per minute × tenant × service. The collector's rollup
-- refresh (store/clickhouse/metric-rollups.ts) recomputes the rows of these
-- minutes when a store opens to write, or on `ragscope migrate`
-- (store/clickhouse/rollup-repairs.ts), exactly as it recomputes a minute a
-- write touched, and then deletes them here: the recompute is the refresh's
-- own statements, not a copy of them. A repair that fails keeps its rows
-- for the next start.
CREATE TABLE IF NOT EXISTS {{database}}.rollup_repairs
(
    minute DateTime('UTC'),
    tenant_id String,
    service_name String,
    reason LowCardinality(String),
    noted_at DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = MergeTree
ORDER BY (minute, tenant_id, service_name);

-- 2. The minutes of every request with a human label (its verdict counts may
-- have come from one reviewer). Labels' versions included: any label marks
-- its request, and recomputing a minute whose counts were right changes
-- nothing.
INSERT INTO {{database}}.rollup_repairs (minute, tenant_id, service_name, reason)
SELECT DISTINCT toStartOfMinute(started_at) AS minute, tenant_id, service_name, 'a review needs two agreeing reviewers (migration 0024)' AS reason
FROM {{database}}.case_results
WHERE case_result_id IN (SELECT case_result_id FROM {{database}}.human_labels);
