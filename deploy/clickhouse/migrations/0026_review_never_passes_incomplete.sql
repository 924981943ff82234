-- A human review never passes a request that did not complete
-- (evaluators/reviewed-verdict.ts): two reviewers who agree on a pass of a
-- request whose task threw, errored or timed out leave it failed, as the
-- automatic verdict has it (evaluators/case-verdict.ts). Before this release
-- their pass was the request's final verdict, and request_rollups (migration
-- 0014) hold the verdict counts the refresh computed with that rule: a minute
-- with such a request counts it passed, not failed.
--
-- The minutes of every request that did not complete and has a human label
-- are noted in rollup_repairs (migration 0024), and the first process that
-- opens the store to write, or `ragscope migrate`, recomputes them through
-- the rollup refresh itself (store/clickhouse/rollup-repairs.ts). Any label
-- and any version of the request marks its minute: recomputing a minute
-- whose counts were right changes nothing. "Did not complete" is the test
-- of reliability-summary.ts (aggregate-metrics.ts DID_NOT_COMPLETE).
INSERT INTO {{database}}.rollup_repairs (minute, tenant_id, service_name, reason)
SELECT DISTINCT toStartOfMinute(started_at) AS minute, tenant_id, service_name, 'a review never passes a request that did not complete (migration 0026)' AS reason
FROM {{database}}.case_results
WHERE (execution_status IN ('failed', 'timeout') OR error_type IN ('system_error', 'environment_error', 'timeout'))
  AND case_result_id IN (SELECT case_result_id FROM {{database}}.human_labels);
