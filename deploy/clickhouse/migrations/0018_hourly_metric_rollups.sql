-- Hourly rollups of the metric values, for long ranges. A 30-day panel over
-- metric_rollups (0009) reads a row per minute × tenant × service × metric:
-- at 13 million requests a month (300 million metric values) that is ~52
-- million rows, where the same panel from hours reads ~870,000.
--
-- metric_rollups_hourly holds, per hour × tenant × service × metric × dataset
-- × run, the sums of that hour's metric_rollups rows (counts and sums added,
-- t-digest states merged). The collector's refresh recomputes an hour from
-- metric_rollups FINAL right after it recomputed the hour's minutes
-- (store/clickhouse/metric-rollups.ts), with the same version, and replaces
-- the earlier row (ReplacingMergeTree, read with FINAL) as a minute does.
--
-- Readers (dashboards/source/aggregate-metrics.ts, SOURCES.metric_rollups)
-- take an hour's row where every minute of the hour is in the range (and, for
-- a panel over time, in one time bucket), and the minute rows of every other
-- hour: the same rows counted once, so means, shares and counts are the ones
-- the minutes give. Percentiles merge hour states instead of minute states:
-- another t-digest estimate within the error documented in 0009.
--
-- `hour_last_minute` is stored beside `hour` so a reader names both ends of
-- the hour as plain columns (Grafana's macros take a column, not an
-- expression); metric_rollups gains the same two columns as aliases.
-- Retention: 400 days after the hour, as the minutes.
-- `{{database}}` is replaced by the configured database name.

ALTER TABLE {{database}}.metric_rollups
    ADD COLUMN IF NOT EXISTS hour DateTime('UTC') ALIAS toStartOfHour(minute),
    ADD COLUMN IF NOT EXISTS hour_last_minute DateTime('UTC') ALIAS toStartOfHour(minute) + INTERVAL 59 MINUTE;

CREATE TABLE IF NOT EXISTS {{database}}.metric_rollups_hourly
(
    hour DateTime('UTC'),
    hour_last_minute DateTime('UTC'),
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
PARTITION BY toYYYYMM(hour)
ORDER BY (metric, tenant_id, service_name, hour, dataset_id, run_id)
TTL hour + INTERVAL 400 DAY
SETTINGS ttl_only_drop_parts = 1;

-- The hours of the minutes stored before this migration (the same SELECT as hourlyRollupSelect).
INSERT INTO {{database}}.metric_rollups_hourly
SELECT toStartOfHour(minute) AS hour, hour + INTERVAL 59 MINUTE AS hour_last_minute, metric, tenant_id, service_name, dataset_id, run_id,
       sum(value_count) AS value_count, sum(value_sum) AS value_sum, sum(below_one) AS below_one, sum(above_zero) AS above_zero,
       quantileTDigestMergeState(value_quantiles) AS value_quantiles,
       toUnixTimestamp64Milli(now64(3)) AS version
FROM {{database}}.metric_rollups FINAL
GROUP BY hour, metric, tenant_id, service_name, dataset_id, run_id;
