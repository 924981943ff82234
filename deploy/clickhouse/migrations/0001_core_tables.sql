-- ragscope core tables. Every table is a ReplacingMergeTree keyed by a
-- deterministic id with a version column: at-least-once delivery writes some
-- rows twice, and queries collapse them with FINAL (or argMax by version).
-- `{{database}}` is replaced by the configured database name.

CREATE TABLE IF NOT EXISTS {{database}}.case_results
(
    case_result_id String,
    run_id LowCardinality(String),
    case_id String,
    case_version LowCardinality(String),
    dataset_id LowCardinality(String),
    trace_id String,
    service_name LowCardinality(String),
    tenant_id LowCardinality(String),
    route LowCardinality(String),
    execution_status LowCardinality(String),
    quality_status LowCardinality(String),
    partial_trace UInt8,
    output String,
    latency_ms Nullable(Float64),
    started_at DateTime64(3, 'UTC'),
    completed_at Nullable(DateTime64(3, 'UTC')),
    payload String CODEC(ZSTD(3)),
    version UInt64,
    inserted_at DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = ReplacingMergeTree(version)
ORDER BY case_result_id
SETTINGS non_replicated_deduplication_window = 1000;

CREATE TABLE IF NOT EXISTS {{database}}.evaluation_results
(
    evaluation_result_id String,
    case_result_id String,
    run_id LowCardinality(String),
    case_id String,
    trace_id String,
    evaluator_id LowCardinality(String),
    evaluator_version LowCardinality(String),
    outcome LowCardinality(String),
    reason String,
    review_required UInt8,
    error_type LowCardinality(String),
    started_at DateTime64(3, 'UTC'),
    evaluated_at DateTime64(3, 'UTC'),
    payload String CODEC(ZSTD(3)),
    version UInt64
)
ENGINE = ReplacingMergeTree(version)
ORDER BY evaluation_result_id
SETTINGS non_replicated_deduplication_window = 1000;

-- One row per metric value, the table dashboards and alerts read.
-- `ts` is when the request happened (the trace's start), `value` is NULL when
-- the metric was not applicable.
CREATE TABLE IF NOT EXISTS {{database}}.metric_values
(
    metric LowCardinality(String),
    case_result_id String,
    evaluator_id LowCardinality(String),
    evaluator_version LowCardinality(String),
    evaluation_result_id String,
    value Nullable(Float64),
    outcome LowCardinality(String),
    run_id LowCardinality(String),
    case_id String,
    case_version LowCardinality(String),
    dataset_id LowCardinality(String),
    trace_id String,
    service_name LowCardinality(String),
    tenant_id LowCardinality(String),
    route LowCardinality(String),
    ts DateTime64(3, 'UTC'),
    evaluated_at DateTime64(3, 'UTC'),
    version UInt64
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (metric, case_result_id, evaluator_id)
SETTINGS non_replicated_deduplication_window = 1000;

-- Eval Cases as loaded from dataset files: the evaluator looks a trace's case
-- up here by (case_id, case_version).
CREATE TABLE IF NOT EXISTS {{database}}.eval_cases
(
    case_id String,
    case_version String,
    dataset_id LowCardinality(String),
    dataset_version LowCardinality(String),
    payload String CODEC(ZSTD(3)),
    version UInt64
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (case_id, case_version);

CREATE TABLE IF NOT EXISTS {{database}}.runs
(
    run_id String,
    dataset_id LowCardinality(String),
    dataset_version LowCardinality(String),
    started_at DateTime64(3, 'UTC'),
    payload String CODEC(ZSTD(3)),
    version UInt64
)
ENGINE = ReplacingMergeTree(version)
ORDER BY run_id;
