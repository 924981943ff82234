-- The tables every trace writes compress their ids, times and numbers with
-- ZSTD(1) instead of the engine's default LZ4.
--
-- Most of a metric value's bytes on disk were its three ids (case result,
-- evaluation result, trace): 43 random hexadecimal characters each, which
-- LZ4 leaves at ~34 bytes since it has no entropy coding, while ZSTD stores
-- hexadecimal at about half. Measured on 4,000 eight-span traces written by
-- `ragscope serve`, each table merged into one part (bytes a row, compressed):
--   metric_values       110 → 40   (ids alone 44)
--   evaluation_results  158 → 103
--   trace_list_metrics   41 → 13
--   case_results        308 → 260, trace_spans 523 → 489
-- about 7.3 → 4.1 KB a trace in these tables. This is what the OpenTelemetry
-- Collector's ClickHouse exporter does for its trace tables (TraceId and
-- SpanId `CODEC(ZSTD(1))`). The payload and raw-span columns keep their
-- ZSTD(3), and LowCardinality columns, dictionary-encoded already, keep the
-- default.
--
-- trace_list (0015) stays on LZ4: every page of the trace list reads it, and
-- with ZSTD its newest page took ~15 ms longer (36 → 50 ms at 300,000
-- traces, ui.bench.ts) to save 44 bytes a trace. The other list queries,
-- the Quality page and the trace detail were within their spread, and
-- writing got no dearer: the engine's CPU for the same inserts (50- and
-- 300-trace batches, alternating) was 9–17 % lower; serve's CPU a span and
-- the UI benchmark's load within their spread; the Kafka evaluator, six
-- pairs, 500–777 against 462–634 µs a span (medians 567 and 550). The
-- dashboards (dashboard-scale.bench.ts, 3 million metric values, kept
-- stores, alternating): slowest panel at 24 h 49–50 against 60–71 ms, at
-- 30 days 158–160 against 144–165 ms; the store 271 against 344 MiB.
--
-- Only the codec changes: types, defaults, computed columns and sorting keys
-- stay as they are, so no query and no number changes, and the ALTER rewrites
-- nothing. New parts are written with the new codec. Parts already on disk
-- keep LZ4 until a merge rewrites them; `OPTIMIZE TABLE … PARTITION … FINAL`
-- rewrites a partition at once (README "Storage").
-- `{{database}}` is replaced by the configured database name.
ALTER TABLE {{database}}.metric_values
    MODIFY COLUMN case_result_id CODEC(ZSTD(1)),
    MODIFY COLUMN evaluation_result_id CODEC(ZSTD(1)),
    MODIFY COLUMN value CODEC(ZSTD(1)),
    MODIFY COLUMN case_id CODEC(ZSTD(1)),
    MODIFY COLUMN trace_id CODEC(ZSTD(1)),
    MODIFY COLUMN ts CODEC(ZSTD(1)),
    MODIFY COLUMN evaluated_at CODEC(ZSTD(1)),
    MODIFY COLUMN version CODEC(ZSTD(1)),
    MODIFY COLUMN inserted_at CODEC(ZSTD(1));
ALTER TABLE {{database}}.evaluation_results
    MODIFY COLUMN evaluation_result_id CODEC(ZSTD(1)),
    MODIFY COLUMN case_result_id CODEC(ZSTD(1)),
    MODIFY COLUMN case_id CODEC(ZSTD(1)),
    MODIFY COLUMN trace_id CODEC(ZSTD(1)),
    MODIFY COLUMN reason CODEC(ZSTD(1)),
    MODIFY COLUMN review_required CODEC(ZSTD(1)),
    MODIFY COLUMN started_at CODEC(ZSTD(1)),
    MODIFY COLUMN evaluated_at CODEC(ZSTD(1)),
    MODIFY COLUMN version CODEC(ZSTD(1)),
    MODIFY COLUMN inserted_at CODEC(ZSTD(1));
ALTER TABLE {{database}}.trace_list_metrics
    MODIFY COLUMN case_result_id CODEC(ZSTD(1)),
    MODIFY COLUMN value CODEC(ZSTD(1)),
    MODIFY COLUMN ts CODEC(ZSTD(1)),
    MODIFY COLUMN version CODEC(ZSTD(1)),
    MODIFY COLUMN inserted_at CODEC(ZSTD(1));
ALTER TABLE {{database}}.case_results
    MODIFY COLUMN case_result_id CODEC(ZSTD(1)),
    MODIFY COLUMN case_id CODEC(ZSTD(1)),
    MODIFY COLUMN trace_id CODEC(ZSTD(1)),
    MODIFY COLUMN partial_trace CODEC(ZSTD(1)),
    MODIFY COLUMN output CODEC(ZSTD(1)),
    MODIFY COLUMN latency_ms CODEC(ZSTD(1)),
    MODIFY COLUMN started_at CODEC(ZSTD(1)),
    MODIFY COLUMN completed_at CODEC(ZSTD(1)),
    MODIFY COLUMN version CODEC(ZSTD(1)),
    MODIFY COLUMN inserted_at CODEC(ZSTD(1)),
    MODIFY COLUMN stage_durations_ms CODEC(ZSTD(1)),
    MODIFY COLUMN session_id CODEC(ZSTD(1)),
    MODIFY COLUMN user_id CODEC(ZSTD(1)),
    MODIFY COLUMN cited CODEC(ZSTD(1)),
    MODIFY COLUMN last_rating CODEC(ZSTD(1));
ALTER TABLE {{database}}.trace_spans
    MODIFY COLUMN case_result_id CODEC(ZSTD(1)),
    MODIFY COLUMN trace_id CODEC(ZSTD(1)),
    MODIFY COLUMN started_at CODEC(ZSTD(1)),
    MODIFY COLUMN span_count CODEC(ZSTD(1)),
    MODIFY COLUMN stored_span_count CODEC(ZSTD(1)),
    MODIFY COLUMN truncated_values CODEC(ZSTD(1)),
    MODIFY COLUMN version CODEC(ZSTD(1)),
    MODIFY COLUMN inserted_at CODEC(ZSTD(1))
