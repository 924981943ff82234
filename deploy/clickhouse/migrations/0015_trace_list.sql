-- The web UI's trace list (issue 16: "paging that stays fast at 1,000,000
-- traces") reads its own narrow copy of case_results, laid out by time.
--
-- case_results is sorted by tenant, service and day before the id (0007), as
-- the dashboards filter. The list is ordered by start time across all tenants
-- and services: the newest day's rows of case_results lie in one short run per
-- tenant and service, spread over every granule of the month's parts (at
-- 1,000,000 traces, 80 tenant/service pairs, the newest day touched nearly
-- every granule), so even a one-day window read most of the table, with the
-- payload for free text.
--
-- trace_list holds the columns the list filters on and shows (the query
-- extracted from the payload once, on insert), sorted by the day FIRST, then
-- the same columns as case_results. Its sorting key is a permutation of
-- case_results' (tenant, service, day, id), so ReplacingMergeTree collapses
-- exactly the same rows (the same deduplication key, the same version): FINAL
-- on trace_list returns, for every Case Result, the fields of the row FINAL on
-- case_results returns. A window of days is one contiguous range of each part.
--
-- trace_list_metrics does the same for the list's "metric below a threshold"
-- filter: metric_values is sorted by metric, tenant, service and day, so one
-- metric's newest day is again one short run per tenant and service, spread
-- over the metric's granules. Its copy holds the columns that filter needs,
-- sorted by day first, then metric_values' own key (a permutation of it: the
-- same rows collapse, by the same version).
--
-- Written by materialized views on every insert into case_results and
-- metric_values (the sink, late user events, the judge's rewrites, a
-- migration's copy): no writer has to know about them. A future migration that
-- recreates either table by RENAME (as 0007 did) must recreate its view too.
--
-- The rows stored before this migration are copied after the views exist: a
-- row written meanwhile arrives twice, an exact copy FINAL collapses.
-- Retention as the tables they copy (400 days after insert).
-- `{{database}}` is replaced by the configured database name.

CREATE TABLE IF NOT EXISTS {{database}}.trace_list
(
    case_result_id String,
    trace_id String,
    run_id LowCardinality(String),
    case_id String,
    case_version LowCardinality(String),
    dataset_id LowCardinality(String),
    service_name LowCardinality(String),
    tenant_id LowCardinality(String),
    route LowCardinality(String),
    execution_status LowCardinality(String),
    quality_status LowCardinality(String),
    latency_ms Nullable(Float64),
    started_at DateTime64(3, 'UTC'),
    query Nullable(String),
    output String,
    has_output UInt8,
    version UInt64,
    inserted_at DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMM(started_at)
ORDER BY (toDate(started_at), tenant_id, service_name, case_result_id)
TTL toDateTime(inserted_at) + INTERVAL 400 DAY
SETTINGS ttl_only_drop_parts = 1;

CREATE MATERIALIZED VIEW IF NOT EXISTS {{database}}.trace_list_writer TO {{database}}.trace_list AS
SELECT case_result_id, trace_id, run_id, case_id, case_version, dataset_id, service_name, tenant_id, route, execution_status, quality_status, latency_ms, started_at,
       JSONExtract(payload, 'rag_observation', 'query', 'Nullable(String)') AS query,
       output, JSONType(payload, 'output') = 'String' AS has_output, version, inserted_at
FROM {{database}}.case_results;

INSERT INTO {{database}}.trace_list
    (case_result_id, trace_id, run_id, case_id, case_version, dataset_id, service_name, tenant_id, route, execution_status, quality_status, latency_ms, started_at,
     query, output, has_output, version, inserted_at)
SELECT case_result_id, trace_id, run_id, case_id, case_version, dataset_id, service_name, tenant_id, route, execution_status, quality_status, latency_ms, started_at,
       JSONExtract(payload, 'rag_observation', 'query', 'Nullable(String)') AS query,
       output, JSONType(payload, 'output') = 'String' AS has_output, version, inserted_at
FROM {{database}}.case_results
SETTINGS optimize_on_insert = 0;

CREATE TABLE IF NOT EXISTS {{database}}.trace_list_metrics
(
    metric LowCardinality(String),
    case_result_id String,
    evaluator_id LowCardinality(String),
    value Nullable(Float64),
    service_name LowCardinality(String),
    tenant_id LowCardinality(String),
    ts DateTime64(3, 'UTC'),
    version UInt64,
    inserted_at DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMM(ts)
ORDER BY (toDate(ts), metric, tenant_id, service_name, case_result_id, evaluator_id)
TTL toDateTime(inserted_at) + INTERVAL 400 DAY
SETTINGS ttl_only_drop_parts = 1;

CREATE MATERIALIZED VIEW IF NOT EXISTS {{database}}.trace_list_metrics_writer TO {{database}}.trace_list_metrics AS
SELECT metric, case_result_id, evaluator_id, value, service_name, tenant_id, ts, version, inserted_at
FROM {{database}}.metric_values;

INSERT INTO {{database}}.trace_list_metrics (metric, case_result_id, evaluator_id, value, service_name, tenant_id, ts, version, inserted_at)
SELECT metric, case_result_id, evaluator_id, value, service_name, tenant_id, ts, version, inserted_at
FROM {{database}}.metric_values
SETTINGS optimize_on_insert = 0;
