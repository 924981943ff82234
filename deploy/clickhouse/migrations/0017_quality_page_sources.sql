-- The web UI's Quality page (and the Grafana boundary panels) without
-- raw-row joins or payload parsing: at 1,000,000 stored requests the page
-- took 8 s, of which ~3 s of CPU went to the no-answer pairs (the
-- `abstained` and `abstention_correct` metrics of one request, joined by
-- request over metric_values) and ~4 s to reading and parsing up to 20,000
-- Case Result payloads for the behaviour metrics.
--
-- 1. Rollups of the abstention pairs, as metric_rollups (0009) are of the
-- metric values: one row per minute × tenant × service × dataset × run with
-- the counts the three abstention rates are ratios of
-- (dashboards/source/aggregate-metrics.ts ABSTENTION_ROLLUP_COUNTS, the one
-- definition; the refresh's SELECT is abstentionRollupSelect there):
--   true_abstentions  abstained = 1 AND correct = 1
--   unanswerable      abstained = correct   (no-answer accuracy's denominator)
--   refusals          abstained = 1         (correct refusals' denominator)
--   false_refusals    abstained = 1 AND correct = 0
--   answerable        abstained != correct  (false refusals' denominator)
-- counted over the requests that have both metrics (metric_values FINAL, as
-- the raw-row source pairs them). Recomputed for the minutes the
-- sinks wrote to by the collector's rollup refresh
-- (store/clickhouse/metric-rollups.ts) like the other rollups, so a replayed
-- or re-evaluated request counts once; a recomputed minute replaces the
-- earlier one (read with FINAL).
CREATE TABLE IF NOT EXISTS {{database}}.abstention_rollups
(
    minute DateTime('UTC'),
    tenant_id LowCardinality(String),
    service_name LowCardinality(String),
    dataset_id LowCardinality(String),
    run_id LowCardinality(String),
    true_abstentions UInt64,
    unanswerable UInt64,
    refusals UInt64,
    false_refusals UInt64,
    answerable UInt64,
    version UInt64
)
ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMM(minute)
ORDER BY (tenant_id, service_name, minute, dataset_id, run_id)
TTL minute + INTERVAL 400 DAY
SETTINGS ttl_only_drop_parts = 1;

-- Pairs stored before this migration (the same SELECT as abstentionRollupSelect).
INSERT INTO {{database}}.abstention_rollups (minute, tenant_id, service_name, dataset_id, run_id, true_abstentions, unanswerable, refusals, false_refusals, answerable, version)
SELECT toStartOfMinute(ts) AS minute, tenant_id, service_name, dataset_id, run_id,
       countIf(abstained = 1 AND correct = 1) AS true_abstentions,
       countIf(abstained = correct) AS unanswerable,
       countIf(abstained = 1) AS refusals,
       countIf(abstained = 1 AND correct = 0) AS false_refusals,
       countIf(abstained != correct) AS answerable,
       toUnixTimestamp64Milli(now64(3)) AS version
FROM (SELECT case_result_id, ts, service_name, tenant_id, dataset_id, run_id,
             maxIf(value, metric = 'abstained') AS abstained, maxIf(value, metric = 'abstention_correct') AS correct
      FROM {{database}}.metric_values FINAL
      WHERE metric IN ('abstained', 'abstention_correct')
      GROUP BY case_result_id, ts, service_name, tenant_id, dataset_id, run_id)
WHERE abstained IS NOT NULL AND correct IS NOT NULL
GROUP BY minute, tenant_id, service_name, dataset_id, run_id;

-- 2. What the behaviour metrics read of a request (evaluators/behaviour/
-- behaviour-request.ts) as one small JSON object: the session, user and
-- experiment, the question, the start and end as the payload spells them,
-- whether the answer cited something, and the user events — the payload's
-- own JSON text for each (null stays null; an empty string stays an empty
-- string), so the page parses ~200 bytes a request instead of the whole Case
-- Result. Computed on insert; for the rows stored before this migration
-- written by the MATERIALIZE below, a mutation the engine runs in the
-- background (the migration does not wait for it: on a large store it reads
-- every payload once; the embedded engine would wait unless told not to);
-- until it has reached a part, reads compute the column
-- from that part's payloads, the same text.
ALTER TABLE {{database}}.case_results
    ADD COLUMN IF NOT EXISTS behaviour_fields String
        MATERIALIZED concat(
            '{"session_id":', if(JSONHas(payload, 'rag_observation', 'session_id'), JSONExtractRaw(payload, 'rag_observation', 'session_id'), 'null'),
            ',"user_id":', if(JSONHas(payload, 'rag_observation', 'user_id'), JSONExtractRaw(payload, 'rag_observation', 'user_id'), 'null'),
            ',"experiment_id":', if(JSONHas(payload, 'rag_observation', 'experiment_id'), JSONExtractRaw(payload, 'rag_observation', 'experiment_id'), 'null'),
            ',"experiment_variant":', if(JSONHas(payload, 'rag_observation', 'experiment_variant'), JSONExtractRaw(payload, 'rag_observation', 'experiment_variant'), 'null'),
            ',"query":', if(JSONHas(payload, 'rag_observation', 'query'), JSONExtractRaw(payload, 'rag_observation', 'query'), 'null'),
            ',"started_at":', if(JSONHas(payload, 'started_at'), JSONExtractRaw(payload, 'started_at'), 'null'),
            ',"completed_at":', if(JSONHas(payload, 'completed_at'), JSONExtractRaw(payload, 'completed_at'), 'null'),
            ',"cited":', if(JSONLength(payload, 'rag_observation', 'citations') > 0, 'true', 'false'),
            ',"feedback":', if(JSONHas(payload, 'rag_observation', 'feedback'), JSONExtractRaw(payload, 'rag_observation', 'feedback'), '[]'),
            '}')
        CODEC(ZSTD(3));

ALTER TABLE {{database}}.case_results MATERIALIZE COLUMN behaviour_fields SETTINGS mutations_sync = 0;
