-- Case Results the store refused as bad data (a value a column's type or a
-- constraint rejects), kept here with the engine's error instead of stalling
-- the pipeline (collector/evaluate/evaluation-worker.ts). `payload` is the
-- whole evaluation (Case Result and evaluation results) as JSON, so it can be
-- inspected, fixed and written again. Keyed by case_result_id: a replay that
-- quarantines the same result again collapses (query with FINAL).
-- `{{database}}` is replaced by the configured database name.

CREATE TABLE IF NOT EXISTS {{database}}.quarantined_results
(
    case_result_id String,
    trace_id String,
    run_id String,
    case_id String,
    error String,
    payload String CODEC(ZSTD(3)),
    quarantined_at DateTime64(3, 'UTC'),
    version UInt64
)
ENGINE = ReplacingMergeTree(version)
ORDER BY case_result_id;
