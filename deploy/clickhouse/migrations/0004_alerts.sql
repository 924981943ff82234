-- Alert transitions of the collector's alert evaluator (collector/alert/):
-- one row per firing and per resolution, keyed by the deterministic event_id,
-- so a retried or replayed delivery collapses (query with FINAL). A firing and
-- its resolution share alert_id; trace_ids are the traces behind the alert;
-- window_spec is the event's `window` (WINDOW is an SQL keyword).
-- `{{database}}` is replaced by the configured database name.

CREATE TABLE IF NOT EXISTS {{database}}.alerts
(
    event_id String,
    alert_id String,
    rule_id LowCardinality(String),
    metric LowCardinality(String),
    state LowCardinality(String),
    threshold String,
    statistic LowCardinality(String),
    value Float64,
    lower Float64,
    upper Float64,
    confidence Float64,
    sample_count UInt32,
    window_spec String,
    trace_ids Array(String),
    at DateTime64(3, 'UTC'),
    fired_at DateTime64(3, 'UTC'),
    message String,
    payload String CODEC(ZSTD(3)),
    version UInt64
)
ENGINE = ReplacingMergeTree(version)
ORDER BY event_id
SETTINGS non_replicated_deduplication_window = 1000;
