-- Online experiments and sessions as columns of case_results, read from the
-- Case Result payload (rag_observation.experiment_id, experiment_variant,
-- session_id, user_id; SDK traceRequest options `experimentId`,
-- `experimentVariant`, `sessionId`, `userId`). MATERIALIZED: computed on
-- insert from the payload the sink already writes, so no writer changes, and
-- computed on read for rows stored before this migration (nothing is
-- rewritten). `ragscope experiment report` and the business-row panels filter
-- on them; the skip index finds one experiment's rows without reading every
-- payload.
-- `{{database}}` is replaced by the configured database name.

ALTER TABLE {{database}}.case_results
    ADD COLUMN IF NOT EXISTS experiment_id LowCardinality(String) MATERIALIZED JSONExtractString(payload, 'rag_observation', 'experiment_id'),
    ADD COLUMN IF NOT EXISTS experiment_variant LowCardinality(String) MATERIALIZED JSONExtractString(payload, 'rag_observation', 'experiment_variant'),
    ADD COLUMN IF NOT EXISTS session_id String MATERIALIZED JSONExtractString(payload, 'rag_observation', 'session_id'),
    ADD COLUMN IF NOT EXISTS user_id String MATERIALIZED JSONExtractString(payload, 'rag_observation', 'user_id');

ALTER TABLE {{database}}.case_results ADD INDEX IF NOT EXISTS experiment_id_index experiment_id TYPE set(100) GRANULARITY 4;
