-- Rollups for the dashboards' range panels: one row per minute × tenant ×
-- service × metric (and dataset and run, which the boards filter by too) with
-- what the panels compute — count, sum (means are sum / count), how many
-- values are below 1 and above 0 (the hallucination and permission-leak
-- shares) and a t-digest quantile state (percentiles). A 30-day panel reads
-- 30 × 1,440 rows per series instead of every metric value. The raw rows stay
-- for drill-down, the runs board and the alert rules.
--
-- Why a refresh from FINAL and not a materialized view: a materialized view
-- sees every INSERT into metric_values, and that table is at least once —
-- a replayed batch, a re-evaluated trace, a NULL row hiding an earlier value
-- are all new inserts that FINAL collapses, so a view would count them twice
-- (the upgrade test's duplicated rows showed it). Instead the collector
-- recomputes the minutes it wrote to from `metric_values FINAL`
-- (store/clickhouse/metric-rollups.ts: after writes, at most once per refresh
-- interval, and once more when it stops). A recomputed minute replaces the
-- earlier one, so the table is a ReplacingMergeTree keyed by the minute's
-- group, versioned by the refresh time — an AggregatingMergeTree would merge
-- a recomputed minute's states INTO the earlier ones and double them.
-- Queries read it with FINAL.
--
-- Percentiles from the t-digest are approximate (ClickHouse
-- quantileTDigest: relative rank error about 1 %, smaller on small sets);
-- gates on runs and the alert rules keep exact nearest-rank percentiles over
-- the raw rows.
--
-- Retention: a rollup minute is dropped 400 days after the minute (the raw
-- rows' default, README "Retention").
-- `{{database}}` is replaced by the configured database name.

CREATE TABLE IF NOT EXISTS {{database}}.metric_rollups
(
    minute DateTime('UTC'),
    metric LowCardinality(String),
    tenant_id LowCardinality(String),
    service_name LowCardinality(String),
    dataset_id LowCardinality(String),
    run_id LowCardinality(String),
    value_count UInt64,
    value_sum Float64,
    below_one UInt64,
    above_zero UInt64,
    value_quantiles AggregateFunction(quantileTDigest, Float64),
    version UInt64
)
ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMM(minute)
ORDER BY (metric, tenant_id, service_name, minute, dataset_id, run_id)
TTL minute + INTERVAL 400 DAY
SETTINGS ttl_only_drop_parts = 1;

-- Rows stored before this migration: the rollup of everything there is.
INSERT INTO {{database}}.metric_rollups
SELECT toStartOfMinute(ts) AS minute, metric, tenant_id, service_name, dataset_id, run_id,
       count(value) AS value_count, sum(ifNull(value, 0)) AS value_sum, countIf(value < 1) AS below_one, countIf(value > 0) AS above_zero,
       quantileTDigestStateIf(assumeNotNull(value), value IS NOT NULL) AS value_quantiles,
       toUnixTimestamp64Milli(now64(3)) AS version
FROM {{database}}.metric_values FINAL
GROUP BY minute, metric, tenant_id, service_name, dataset_id, run_id;
