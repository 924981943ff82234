-- The RAG quality board's stage latency panels without reading every stage
-- timing of the range: over 30 days at 30,000,000 metric values (1.3 million
-- requests) the table took ~900 ms of CPU, every request's stage arrays
-- unnested from case_results FINAL; at the 300,000,000-value target that is
-- ~9 CPU seconds a panel.
--
-- Rollups of the stage timings (rag_observation.stage_timings, the columns
-- stage_names and stage_durations_ms), as metric_rollups (0009) are of the
-- metric values: one row per minute × tenant × service × dataset × run ×
-- stage with the stage's span count, the sum of its durations and a t-digest
-- state of them. The panels show the count, the mean (sum / count) and
-- percentiles merged from the states: the same t-digest as before, now
-- merged from per-minute states, within about 1 % of the ranks of the exact
-- nearest-rank value (the documented error of the request latency panels).
--
-- Recomputed from `case_results FINAL` by the collector's rollup refresh
-- (store/clickhouse/metric-rollups.ts) for the minutes the sinks wrote, as the
-- other rollups are: a replayed or re-evaluated request counts once, a
-- recomputed minute replaces the earlier rows of its key (ReplacingMergeTree
-- by the refresh time, read with FINAL), and a key the recompute no longer
-- produces (a request re-evaluated under another dataset or run) is deleted.
-- The SELECT is stageRollupSelect in dashboards/source/stage-latency.ts; the
-- backfill below spells it out.
--
-- Retention: a row is dropped 400 days after it was written (written_at), as
-- the raw rows and, from migration 0020, the other rollups (README
-- "Retention").
CREATE TABLE IF NOT EXISTS {{database}}.stage_rollups
(
    minute DateTime('UTC'),
    tenant_id LowCardinality(String),
    service_name LowCardinality(String),
    dataset_id LowCardinality(String),
    run_id LowCardinality(String),
    stage LowCardinality(String),
    spans UInt64,
    duration_sum Float64,
    duration_quantiles AggregateFunction(quantileTDigest, Float64),
    version UInt64,
    written_at DateTime('UTC') DEFAULT now()
)
ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMM(minute)
ORDER BY (tenant_id, service_name, minute, dataset_id, run_id, stage)
TTL written_at + INTERVAL 400 DAY
SETTINGS ttl_only_drop_parts = 1;

-- Requests stored before this migration: the rollups of every stage timing
-- there is. FINAL collapses within partitions (exact: case_results'
-- partition is the month of started_at, a sorting-key column,
-- final-within-partitions.ts).
INSERT INTO {{database}}.stage_rollups (minute, tenant_id, service_name, dataset_id, run_id, stage, spans, duration_sum, duration_quantiles, version)
SELECT toStartOfMinute(started_at) AS minute, tenant_id, service_name, dataset_id, run_id, stage,
       count() AS spans, sum(duration_ms) AS duration_sum, quantileTDigestState(duration_ms) AS duration_quantiles,
       toUnixTimestamp64Milli(now64(3)) AS version
FROM {{database}}.case_results FINAL
ARRAY JOIN stage_names AS stage, stage_durations_ms AS duration_ms
GROUP BY minute, tenant_id, service_name, dataset_id, run_id, stage
SETTINGS do_not_merge_across_partitions_select_final = 1, max_bytes_before_external_group_by = 1073741824;
