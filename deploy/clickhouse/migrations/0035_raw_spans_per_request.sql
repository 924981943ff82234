-- The raw spans of each REQUEST, not of each Case Result id. A case sent again
-- is a request of its own (another trace), and the Case Results keep one row
-- per request: case_results is sorted by (tenant_id, service_name,
-- toDate(started_at), case_result_id) since 0007, so the same case from two
-- services, or on two days, is two rows, each linked from the trace list.
-- trace_spans was sorted by case_result_id alone (0013): within a month the
-- second request's spans replaced the first's (ReplacingMergeTree keeps one
-- row per sorting key), and the first request's trace detail said it had no
-- raw spans. Sorted as case_results now, the key of one row is one request,
-- and a request's newer version (a re-opened trace, a late span) still
-- replaces its own older one.
--
-- The sorting key cannot be altered in place (as 0007): the table is created
-- anew, every stored row copied (every version: optimize_on_insert = 0 keeps
-- the engine from collapsing the copied block, so the rows not yet merged
-- away come back as the requests they were), and swapped in by one RENAME.
-- The old table stays as trace_spans_before_0035 when it holds rows, until
-- an operator drops it (README "Upgrading a store").
--
-- The retention is the old table's: created without a TTL, the new table
-- takes the interval the old one has now ({{retention_of:trace_spans}}, 400
-- days unless an operator changed it). An old table without a simple TTL
-- (kept forever, or an expression of the operator's own) leaves the new one
-- without a TTL, and the runner says so: a migration never drops rows an
-- operator kept.
-- `{{database}}` is replaced by the configured database name.

CREATE TABLE IF NOT EXISTS {{database}}.trace_spans_0035
(
    case_result_id String CODEC(ZSTD(1)),
    trace_id String CODEC(ZSTD(1)),
    tenant_id LowCardinality(String),
    service_name LowCardinality(String),
    started_at DateTime64(3, 'UTC') CODEC(ZSTD(1)),
    span_count UInt32 CODEC(ZSTD(1)),
    stored_span_count UInt32 CODEC(ZSTD(1)),
    truncated_values UInt32 CODEC(ZSTD(1)),
    spans String CODEC(ZSTD(3)),
    version UInt64 CODEC(ZSTD(1)),
    inserted_at DateTime64(3, 'UTC') DEFAULT now64(3) CODEC(ZSTD(1))
)
ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMM(started_at)
ORDER BY (tenant_id, service_name, toDate(started_at), case_result_id)
SETTINGS ttl_only_drop_parts = 1;

INSERT INTO {{database}}.trace_spans_0035 (case_result_id, trace_id, tenant_id, service_name, started_at, span_count, stored_span_count, truncated_values, spans, version, inserted_at)
SELECT case_result_id, trace_id, tenant_id, service_name, started_at, span_count, stored_span_count, truncated_values, spans, version, inserted_at
FROM {{database}}.trace_spans
SETTINGS optimize_on_insert = 0;

ALTER TABLE {{database}}.trace_spans_0035 MODIFY TTL toDateTime(inserted_at) + {{retention_of:trace_spans}};

RENAME TABLE
    {{database}}.trace_spans TO {{database}}.trace_spans_before_0035,
    {{database}}.trace_spans_0035 TO {{database}}.trace_spans;
