-- Time and tenants in the storage layout of the three tables that grow with
-- traffic (case_results, evaluation_results, metric_values), as the
-- ClickHouse-backed observability systems lay theirs out:
--
-- * PARTITION BY month of the REQUEST's start (started_at / ts), never of the
--   insert time: every copy of a row (a replay, a re-evaluation, a judge
--   verdict rewritten later) carries the same request start, so it lands in
--   the same partition, where ReplacingMergeTree collapses it (FINAL and
--   merges only collapse rows within one partition).
-- * ORDER BY tenant, service and day before the id: a dashboard's time range
--   and tenant/service filters skip the granules of other days and tenants
--   instead of reading the metric's rows for all time. The id stays last, so
--   the sorting key (= the deduplication key) of one row is still one row:
--   tenant, service and request start are fixed by the trace. A result
--   rebuilt from a PARTIAL trace may lack the root span (another start, or no
--   tenant); it then does not collapse with the complete result of the same
--   trace and both stay visible until the partial row expires; the complete
--   result is the one with the higher version either way.
-- * TTL: rows leave whole parts (ttl_only_drop_parts) once they were STORED
--   longer ago than the retention, 400 days by default (a year plus a month
--   to compare with). Counted from insertion, not from the request's time, so
--   a trace replayed or sent late with old timestamps is never dropped as soon
--   as it is accepted. Change it per table with
--   ALTER TABLE <table> MODIFY TTL toDateTime(inserted_at) + INTERVAL <n> DAY
--   (README "Retention"); a later migration never resets it.
-- * Skip indexes on the ids that readers look up directly (a run's summary by
--   run_id, a trace's detail by trace_id, the judge's rewrite by
--   case_result_id).
--
-- Sorting and partition keys cannot be altered in place: each table is
-- created anew, filled from the old one (INSERT … SELECT copies every stored row,
-- older versions and replayed copies included — optimize_on_insert = 0 keeps
-- the engine from collapsing them in the copied block — so what FINAL
-- returns is unchanged) and swapped in by
-- one RENAME. The old tables stay as *_before_0007 until an operator drops
-- them (README "Upgrading a store"): nothing is deleted by a migration.
-- Stop writers (collectors) while this runs on a shared server; the embedded
-- store migrates before it accepts data.
-- `{{database}}` is replaced by the configured database name.

CREATE TABLE IF NOT EXISTS {{database}}.case_results_0007
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
    inserted_at DateTime64(3, 'UTC') DEFAULT now64(3),
    stage_names Array(LowCardinality(String))
        MATERIALIZED arrayMap(timing -> JSONExtractString(timing, 'stage'), JSONExtractArrayRaw(payload, 'rag_observation', 'stage_timings')),
    stage_durations_ms Array(Float64)
        MATERIALIZED arrayMap(timing -> JSONExtractFloat(timing, 'duration_ms'), JSONExtractArrayRaw(payload, 'rag_observation', 'stage_timings')),
    error_type LowCardinality(String)
        MATERIALIZED JSONExtractString(payload, 'execution_error', 'type'),
    INDEX run_id_index run_id TYPE set(100) GRANULARITY 4,
    INDEX trace_id_index trace_id TYPE bloom_filter(0.01) GRANULARITY 4,
    INDEX case_result_id_index case_result_id TYPE bloom_filter(0.01) GRANULARITY 4
)
ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMM(started_at)
ORDER BY (tenant_id, service_name, toDate(started_at), case_result_id)
TTL toDateTime(inserted_at) + INTERVAL 400 DAY
SETTINGS non_replicated_deduplication_window = 1000, ttl_only_drop_parts = 1;

INSERT INTO {{database}}.case_results_0007
    (case_result_id, run_id, case_id, case_version, dataset_id, trace_id, service_name, tenant_id, route, execution_status, quality_status,
     partial_trace, output, latency_ms, started_at, completed_at, payload, version, inserted_at)
SELECT case_result_id, run_id, case_id, case_version, dataset_id, trace_id, service_name, tenant_id, route, execution_status, quality_status,
       partial_trace, output, latency_ms, started_at, completed_at, payload, version, inserted_at
FROM {{database}}.case_results
SETTINGS optimize_on_insert = 0;

CREATE TABLE IF NOT EXISTS {{database}}.evaluation_results_0007
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
    version UInt64,
    inserted_at DateTime64(3, 'UTC') DEFAULT now64(3),
    INDEX run_id_index run_id TYPE set(100) GRANULARITY 4,
    INDEX trace_id_index trace_id TYPE bloom_filter(0.01) GRANULARITY 4,
    INDEX case_result_id_index case_result_id TYPE bloom_filter(0.01) GRANULARITY 4
)
ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMM(started_at)
ORDER BY (evaluator_id, toDate(started_at), evaluation_result_id)
TTL toDateTime(inserted_at) + INTERVAL 400 DAY
SETTINGS non_replicated_deduplication_window = 1000, ttl_only_drop_parts = 1;

INSERT INTO {{database}}.evaluation_results_0007 (evaluation_result_id, case_result_id, run_id, case_id, trace_id, evaluator_id, evaluator_version, outcome, reason, review_required,
       error_type, started_at, evaluated_at, payload, version)
SELECT evaluation_result_id, case_result_id, run_id, case_id, trace_id, evaluator_id, evaluator_version, outcome, reason, review_required,
       error_type, started_at, evaluated_at, payload, version
FROM {{database}}.evaluation_results
SETTINGS optimize_on_insert = 0;

CREATE TABLE IF NOT EXISTS {{database}}.metric_values_0007
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
    version UInt64,
    inserted_at DateTime64(3, 'UTC') DEFAULT now64(3),
    INDEX run_id_index run_id TYPE set(100) GRANULARITY 4,
    INDEX trace_id_index trace_id TYPE bloom_filter(0.01) GRANULARITY 4
)
ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMM(ts)
ORDER BY (metric, tenant_id, service_name, toDate(ts), case_result_id, evaluator_id)
TTL toDateTime(inserted_at) + INTERVAL 400 DAY
SETTINGS non_replicated_deduplication_window = 1000, ttl_only_drop_parts = 1;

INSERT INTO {{database}}.metric_values_0007 (metric, case_result_id, evaluator_id, evaluator_version, evaluation_result_id, value, outcome, run_id, case_id, case_version,
       dataset_id, trace_id, service_name, tenant_id, route, ts, evaluated_at, version)
SELECT metric, case_result_id, evaluator_id, evaluator_version, evaluation_result_id, value, outcome, run_id, case_id, case_version,
       dataset_id, trace_id, service_name, tenant_id, route, ts, evaluated_at, version
FROM {{database}}.metric_values
SETTINGS optimize_on_insert = 0;

RENAME TABLE
    {{database}}.case_results TO {{database}}.case_results_before_0007,
    {{database}}.case_results_0007 TO {{database}}.case_results,
    {{database}}.evaluation_results TO {{database}}.evaluation_results_before_0007,
    {{database}}.evaluation_results_0007 TO {{database}}.evaluation_results,
    {{database}}.metric_values TO {{database}}.metric_values_before_0007,
    {{database}}.metric_values_0007 TO {{database}}.metric_values;
