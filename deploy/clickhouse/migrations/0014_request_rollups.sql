-- The business, behaviour and experiment panels without reading payloads
-- (issue 13: 8–13 s over 30 days at 134,329 requests, because every panel
-- parsed every request's JSON payload in its range).
--
-- 1. Two more fields of the payload as MATERIALIZED columns (computed on
-- insert; for rows stored before this migration computed from the payload
-- when read, until a merge writes them): whether the answer cited something
-- (the citation-click rate's denominator) and the value of the request's
-- last rating event (user satisfaction), as dashboards/source/aggregate-metrics.ts
-- defines them.
ALTER TABLE {{database}}.case_results
    ADD COLUMN IF NOT EXISTS cited UInt8
        MATERIALIZED JSONLength(payload, 'rag_observation', 'citations') > 0,
    ADD COLUMN IF NOT EXISTS last_rating Nullable(Float64)
        MATERIALIZED toFloat64OrNull(JSONExtractString(arrayElement(arrayFilter(entry -> JSONExtractString(entry, 'kind') = 'rating', JSONExtractArrayRaw(payload, 'rag_observation', 'feedback')), -1), 'value'));

-- 2. Rollups of the requests, as metric_rollups (migration 0009) are of the
-- metric values: one row per minute × tenant × service (and dataset, run and
-- experiment variant, which the boards filter or group by) with the counts
-- the request rates are ratios of. A 30-day panel reads these rows instead
-- of every request of the month.
--
-- Recomputed from `case_results FINAL` by the collector's rollup refresh
-- (store/clickhouse/metric-rollups.ts, the minutes the sinks wrote to, every
-- clickhouse.rollupRefreshMs), so a replayed or re-evaluated request, or one
-- whose user events arrived later (a newer version of its Case Result),
-- counts once, as FINAL counts it; a recomputed minute replaces the earlier
-- one (ReplacingMergeTree by the refresh time; read with FINAL). A
-- materialized view would count every insert of the at-least-once table.
--
-- What the counts are (dashboards/source/aggregate-metrics.ts, the one
-- definition; the refresh's SELECT is requestRollupSelect there):
--   all_requests       every Case Result (error and timeout rates)
--   complete_requests  not rebuilt from a partial trace (behaviour rates)
--   thumbs_given / thumbs_down  the last thumbs event is any / down (thumbs-down rate)
--   liked / disliked / copied / handed_off  complete requests with that event
--   cited_requests / citation_clicked  complete requests that cited something / and had a click
--   rating_sum / rating_count  the last numeric rating of rated complete requests
--   errors / timeouts  as reliability-summary.ts
--   task_passed / task_judged  task success's numerator and denominator (task-success.ts)
--   *_verdicts         requests per final verdict (a human review's verdict
--                      where reviewers agree, else quality_status); saving a
--                      label notes its request's minute for the next refresh
--                      (store/clickhouse/clickhouse-human-label-store.ts)
--   user_states        the distinct users of complete requests (an exact
--                      uniq state, merged at query time)
-- The session rates are not here (a session spans minutes): they read the
-- raw rows' stored columns.
--
-- Retention: a rollup minute is dropped 400 days after the minute (the raw
-- rows' default, README "Retention").
CREATE TABLE IF NOT EXISTS {{database}}.request_rollups
(
    minute DateTime('UTC'),
    tenant_id LowCardinality(String),
    service_name LowCardinality(String),
    dataset_id LowCardinality(String),
    run_id LowCardinality(String),
    experiment_id LowCardinality(String),
    experiment_variant LowCardinality(String),
    all_requests UInt64,
    complete_requests UInt64,
    thumbs_given UInt64,
    thumbs_down UInt64,
    liked UInt64,
    disliked UInt64,
    copied UInt64,
    handed_off UInt64,
    cited_requests UInt64,
    citation_clicked UInt64,
    rating_count UInt64,
    errors UInt64,
    timeouts UInt64,
    task_passed UInt64,
    task_judged UInt64,
    passed_verdicts UInt64,
    failed_verdicts UInt64,
    review_required_verdicts UInt64,
    unjudged_verdicts UInt64,
    not_evaluated_verdicts UInt64,
    rating_sum Float64,
    user_states AggregateFunction(uniqExact, String),
    version UInt64
)
ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMM(minute)
ORDER BY (tenant_id, service_name, minute, dataset_id, run_id, experiment_id, experiment_variant)
TTL minute + INTERVAL 400 DAY
SETTINGS ttl_only_drop_parts = 1;

-- Requests stored before this migration: the rollup of everything there is
-- (the same SELECT as requestRollupSelect).
INSERT INTO {{database}}.request_rollups (minute, tenant_id, service_name, dataset_id, run_id, experiment_id, experiment_variant, all_requests, complete_requests, thumbs_given, thumbs_down, liked, disliked, copied, handed_off, cited_requests, citation_clicked, rating_count, errors, timeouts, task_passed, task_judged, passed_verdicts, failed_verdicts, review_required_verdicts, unjudged_verdicts, not_evaluated_verdicts, rating_sum, user_states, version)
SELECT toStartOfMinute(started_at) AS minute, tenant_id, service_name, dataset_id, run_id, experiment_id, experiment_variant,
       count() AS all_requests,
       countIf(partial_trace = 0) AS complete_requests,
       countIf(arrayElement(arrayFilter(kind -> kind IN ('thumbs_up', 'thumbs_down'), feedback_kinds), -1) != '') AS thumbs_given,
       countIf(arrayElement(arrayFilter(kind -> kind IN ('thumbs_up', 'thumbs_down'), feedback_kinds), -1) = 'thumbs_down') AS thumbs_down,
       countIf(partial_trace = 0 AND arrayElement(arrayFilter(kind -> kind IN ('thumbs_up', 'thumbs_down'), feedback_kinds), -1) = 'thumbs_up') AS liked,
       countIf(partial_trace = 0 AND arrayElement(arrayFilter(kind -> kind IN ('thumbs_up', 'thumbs_down'), feedback_kinds), -1) = 'thumbs_down') AS disliked,
       countIf(partial_trace = 0 AND has(feedback_kinds, 'copy')) AS copied,
       countIf(partial_trace = 0 AND has(feedback_kinds, 'handoff')) AS handed_off,
       countIf(partial_trace = 0 AND cited = 1) AS cited_requests,
       countIf(partial_trace = 0 AND cited = 1 AND has(feedback_kinds, 'citation_click')) AS citation_clicked,
       countIf(partial_trace = 0 AND last_rating IS NOT NULL) AS rating_count,
       countIf((NOT (execution_status = 'timeout' OR error_type = 'timeout') AND (execution_status = 'failed' OR error_type IN ('system_error', 'environment_error')))) AS errors,
       countIf((execution_status = 'timeout' OR error_type = 'timeout')) AS timeouts,
       countIf(multiIf(case_result_id IN (SELECT case_result_id FROM (SELECT case_result_id, labeler_id, max(verdict = 'fail') AS reviewer_failed FROM {{database}}.human_labels FINAL WHERE metric != 'root_cause' GROUP BY case_result_id, labeler_id) GROUP BY case_result_id HAVING max(reviewer_failed) = 0), 'passed', case_result_id IN (SELECT case_result_id FROM (SELECT case_result_id, labeler_id, max(verdict = 'fail') AS reviewer_failed FROM {{database}}.human_labels FINAL WHERE metric != 'root_cause' GROUP BY case_result_id, labeler_id) GROUP BY case_result_id HAVING min(reviewer_failed) = 1), 'failed', quality_status) = 'passed' AND NOT (NOT (execution_status = 'timeout' OR error_type = 'timeout') AND (execution_status = 'failed' OR error_type IN ('system_error', 'environment_error'))) AND NOT (execution_status = 'timeout' OR error_type = 'timeout')) AS task_passed,
       countIf(multiIf(case_result_id IN (SELECT case_result_id FROM (SELECT case_result_id, labeler_id, max(verdict = 'fail') AS reviewer_failed FROM {{database}}.human_labels FINAL WHERE metric != 'root_cause' GROUP BY case_result_id, labeler_id) GROUP BY case_result_id HAVING max(reviewer_failed) = 0), 'passed', case_result_id IN (SELECT case_result_id FROM (SELECT case_result_id, labeler_id, max(verdict = 'fail') AS reviewer_failed FROM {{database}}.human_labels FINAL WHERE metric != 'root_cause' GROUP BY case_result_id, labeler_id) GROUP BY case_result_id HAVING min(reviewer_failed) = 1), 'failed', quality_status) IN ('passed', 'failed', 'review_required') OR (NOT (execution_status = 'timeout' OR error_type = 'timeout') AND (execution_status = 'failed' OR error_type IN ('system_error', 'environment_error'))) OR (execution_status = 'timeout' OR error_type = 'timeout')) AS task_judged,
       countIf(multiIf(case_result_id IN (SELECT case_result_id FROM (SELECT case_result_id, labeler_id, max(verdict = 'fail') AS reviewer_failed FROM {{database}}.human_labels FINAL WHERE metric != 'root_cause' GROUP BY case_result_id, labeler_id) GROUP BY case_result_id HAVING max(reviewer_failed) = 0), 'passed', case_result_id IN (SELECT case_result_id FROM (SELECT case_result_id, labeler_id, max(verdict = 'fail') AS reviewer_failed FROM {{database}}.human_labels FINAL WHERE metric != 'root_cause' GROUP BY case_result_id, labeler_id) GROUP BY case_result_id HAVING min(reviewer_failed) = 1), 'failed', quality_status) = 'passed') AS passed_verdicts,
       countIf(multiIf(case_result_id IN (SELECT case_result_id FROM (SELECT case_result_id, labeler_id, max(verdict = 'fail') AS reviewer_failed FROM {{database}}.human_labels FINAL WHERE metric != 'root_cause' GROUP BY case_result_id, labeler_id) GROUP BY case_result_id HAVING max(reviewer_failed) = 0), 'passed', case_result_id IN (SELECT case_result_id FROM (SELECT case_result_id, labeler_id, max(verdict = 'fail') AS reviewer_failed FROM {{database}}.human_labels FINAL WHERE metric != 'root_cause' GROUP BY case_result_id, labeler_id) GROUP BY case_result_id HAVING min(reviewer_failed) = 1), 'failed', quality_status) = 'failed') AS failed_verdicts,
       countIf(multiIf(case_result_id IN (SELECT case_result_id FROM (SELECT case_result_id, labeler_id, max(verdict = 'fail') AS reviewer_failed FROM {{database}}.human_labels FINAL WHERE metric != 'root_cause' GROUP BY case_result_id, labeler_id) GROUP BY case_result_id HAVING max(reviewer_failed) = 0), 'passed', case_result_id IN (SELECT case_result_id FROM (SELECT case_result_id, labeler_id, max(verdict = 'fail') AS reviewer_failed FROM {{database}}.human_labels FINAL WHERE metric != 'root_cause' GROUP BY case_result_id, labeler_id) GROUP BY case_result_id HAVING min(reviewer_failed) = 1), 'failed', quality_status) = 'review_required') AS review_required_verdicts,
       countIf(multiIf(case_result_id IN (SELECT case_result_id FROM (SELECT case_result_id, labeler_id, max(verdict = 'fail') AS reviewer_failed FROM {{database}}.human_labels FINAL WHERE metric != 'root_cause' GROUP BY case_result_id, labeler_id) GROUP BY case_result_id HAVING max(reviewer_failed) = 0), 'passed', case_result_id IN (SELECT case_result_id FROM (SELECT case_result_id, labeler_id, max(verdict = 'fail') AS reviewer_failed FROM {{database}}.human_labels FINAL WHERE metric != 'root_cause' GROUP BY case_result_id, labeler_id) GROUP BY case_result_id HAVING min(reviewer_failed) = 1), 'failed', quality_status) = 'unjudged') AS unjudged_verdicts,
       countIf(multiIf(case_result_id IN (SELECT case_result_id FROM (SELECT case_result_id, labeler_id, max(verdict = 'fail') AS reviewer_failed FROM {{database}}.human_labels FINAL WHERE metric != 'root_cause' GROUP BY case_result_id, labeler_id) GROUP BY case_result_id HAVING max(reviewer_failed) = 0), 'passed', case_result_id IN (SELECT case_result_id FROM (SELECT case_result_id, labeler_id, max(verdict = 'fail') AS reviewer_failed FROM {{database}}.human_labels FINAL WHERE metric != 'root_cause' GROUP BY case_result_id, labeler_id) GROUP BY case_result_id HAVING min(reviewer_failed) = 1), 'failed', quality_status) = 'not_evaluated') AS not_evaluated_verdicts,
       sumIf(assumeNotNull(last_rating), partial_trace = 0 AND last_rating IS NOT NULL) AS rating_sum,
       uniqExactStateIf(user_id, partial_trace = 0) AS user_states,
       toUnixTimestamp64Milli(now64(3)) AS version
FROM {{database}}.case_results FINAL
GROUP BY minute, tenant_id, service_name, dataset_id, run_id, experiment_id, experiment_variant;
