-- 1. The raw spans of each trace, for the web UI's trace detail (issue 16:
-- "the raw spans"). One row per Case Result: the spans as the collector
-- received them (resource, scope, attributes, events, status; times in
-- nanoseconds as text), as a JSON array in start order, bounded in bytes by
-- the collector (contracts/raw-spans.ts: spans past the budget are left out
-- and counted, a long attribute value is cut and marked), so one huge trace
-- cannot fill the store. Read by case_result_id and the request's start
-- (month partition, sorting key); tenant_id for the readers' tenant scope
-- (store/clickhouse/tenant-filter.ts). A re-opened trace's newer row replaces
-- the earlier one (ReplacingMergeTree by version, read with FINAL).
-- Retention as the Case Results' (400 days after insert).
CREATE TABLE IF NOT EXISTS {{database}}.trace_spans
(
    case_result_id String,
    trace_id String,
    tenant_id LowCardinality(String),
    service_name LowCardinality(String),
    started_at DateTime64(3, 'UTC'),
    span_count UInt32,
    stored_span_count UInt32,
    truncated_values UInt32,
    spans String CODEC(ZSTD(3)),
    version UInt64,
    inserted_at DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMM(started_at)
ORDER BY case_result_id
TTL toDateTime(inserted_at) + INTERVAL 400 DAY
SETTINGS ttl_only_drop_parts = 1;

-- 2. The rollups hold what a decision reads (evaluators/aggregate/dataset-shares.ts):
-- the heuristic judge's scores are a measurement, left out of every decision
-- value, as the gate leaves them out. Rollups written before this migration
-- included them; they are recomputed without them (a recomputed minute where
-- only the heuristic judge scored a metric would keep its old row, so the old
-- rows go first).
TRUNCATE TABLE IF EXISTS {{database}}.metric_rollups;

INSERT INTO {{database}}.metric_rollups
SELECT toStartOfMinute(ts) AS minute, metric, tenant_id, service_name, dataset_id, run_id,
       count(value) AS value_count, sum(ifNull(value, 0)) AS value_sum, countIf(value < 1) AS below_one, countIf(value > 0) AS above_zero,
       quantileTDigestStateIf(assumeNotNull(value), value IS NOT NULL) AS value_quantiles,
       toUnixTimestamp64Milli(now64(3)) AS version
FROM {{database}}.metric_values FINAL
WHERE NOT (startsWith(evaluator_id, 'judge.') AND endsWith(evaluator_version, '+heuristic'))
GROUP BY minute, metric, tenant_id, service_name, dataset_id, run_id;

-- 3. The kinds of a request's user events, in time order, as a column: the
-- behaviour rates of the boards (thumbs down, handoff, like, copy, …;
-- dashboards/source/aggregate-metrics.ts) read it instead of parsing every
-- payload of the range (the business layer of the web UI's Quality page took
-- seconds per 40,000 requests that way). Rows stored before this migration
-- compute it from their payload when read, until a merge writes it.
ALTER TABLE {{database}}.case_results
    ADD COLUMN IF NOT EXISTS feedback_kinds Array(LowCardinality(String))
        MATERIALIZED arrayMap(entry -> JSONExtractString(entry, 'kind'), JSONExtractArrayRaw(payload, 'rag_observation', 'feedback'));
