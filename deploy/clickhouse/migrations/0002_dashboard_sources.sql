-- What the dashboards (dashboards/) read besides the core tables.
--
-- 1. collector_health: periodic snapshots the collector roles write about
--    themselves, one row per (instance, metric) per snapshot:
--      kind = 'delta': value is the increase since the instance's previous
--             snapshot (spans_received, traces_evaluated, dead_letters,
--             spans_dropped, traces_partial); a restart cannot make a rate
--             negative, and a rate is sum(value) / seconds.
--      kind = 'gauge': value is the level at `ts` (consumer_lag in messages
--             over the instance's partitions, sink_write_ms = slowest sink
--             write since the previous snapshot, open_traces).
--    A retried snapshot insert collapses (same key), queries use FINAL.
-- 2. Stage latencies and the execution error type of case_results, as
--    MATERIALIZED columns computed from the stored Case Result payload
--    (rag_observation.stage_timings, execution_error.type): the sink writes
--    nothing new, and rows stored before this migration get them on read.
-- `{{database}}` is replaced by the configured database name.

CREATE TABLE IF NOT EXISTS {{database}}.collector_health
(
    ts DateTime64(3, 'UTC'),
    instance LowCardinality(String),
    role LowCardinality(String),
    metric LowCardinality(String),
    kind LowCardinality(String),
    value Float64
)
ENGINE = ReplacingMergeTree
ORDER BY (metric, instance, ts)
TTL toDateTime(ts) + INTERVAL 30 DAY
SETTINGS non_replicated_deduplication_window = 1000;

ALTER TABLE {{database}}.case_results
    ADD COLUMN IF NOT EXISTS stage_names Array(LowCardinality(String))
        MATERIALIZED arrayMap(timing -> JSONExtractString(timing, 'stage'), JSONExtractArrayRaw(payload, 'rag_observation', 'stage_timings'));

ALTER TABLE {{database}}.case_results
    ADD COLUMN IF NOT EXISTS stage_durations_ms Array(Float64)
        MATERIALIZED arrayMap(timing -> JSONExtractFloat(timing, 'duration_ms'), JSONExtractArrayRaw(payload, 'rag_observation', 'stage_timings'));

ALTER TABLE {{database}}.case_results
    ADD COLUMN IF NOT EXISTS error_type LowCardinality(String)
        MATERIALIZED JSONExtractString(payload, 'execution_error', 'type');
