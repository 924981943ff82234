-- The anonymous reviewer of the web UI without tokens ("local": whoever uses
-- it on loopback, whose identity nothing proves) no longer counts toward the
-- two agreeing reviewers who decide a case, nor blocks them
-- (evaluators/reviewed-verdict.ts ANONYMOUS_REVIEWER; dashboards/source/
-- aggregate-metrics.ts COUNTED_REVIEWER). Before this release one person
-- could make "two reviewers agree" alone, labelling a case once with a token
-- and once without: request_rollups counted its verdict as reviewed, and
-- root_cause_rollups counted it under the cause so chosen.
--
-- Only the minutes of requests the anonymous reviewer labelled can count
-- otherwise. They are noted in rollup_repairs (migration 0024), and the first
-- process that opens the store to write, or `ragscope migrate`, recomputes
-- them through the rollup refresh itself (store/clickhouse/rollup-repairs.ts),
-- as migrations 0026 and 0031 do.
INSERT INTO {{database}}.rollup_repairs (minute, tenant_id, service_name, reason)
SELECT DISTINCT toStartOfMinute(started_at) AS minute, tenant_id, service_name, 'the anonymous reviewer (the UI without tokens) counts toward no review (migration 0036)' AS reason
FROM {{database}}.case_results
WHERE case_result_id IN (SELECT case_result_id FROM {{database}}.human_labels WHERE labeler_id = 'local');
