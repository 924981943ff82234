-- The root cause reviewers agree on is the case's root cause
-- (dashboards/source/root-causes.ts attributedRootCauses): root_cause_rollups
-- count the requests whose final verdict is failed under the cause two
-- agreeing reviewers chose, else the root-cause evaluator's. Before this
-- release they counted every request the evaluator labelled, whatever the
-- reviewers then decided: a case two reviewers failed with HALLUCINATION
-- that the evaluator had left to review counted nowhere, one the evaluator
-- labelled RETRIEVAL_MISS stayed there when both reviewers chose another
-- cause, and one the reviewers passed still counted as failing.
--
-- Only the minutes of requests with a human label can count otherwise (a
-- request nobody reviewed has the evaluator's cause and its automatic
-- verdict, as before). They are noted in rollup_repairs (migration 0024), and
-- the first process that opens the store to write, or `ragscope migrate`,
-- recomputes them through the rollup refresh itself
-- (store/clickhouse/rollup-repairs.ts), as migration 0026 does.
INSERT INTO {{database}}.rollup_repairs (minute, tenant_id, service_name, reason)
SELECT DISTINCT toStartOfMinute(started_at) AS minute, tenant_id, service_name, 'root causes reviewers agree on are counted in the root-cause rollups (migration 0031)' AS reason
FROM {{database}}.case_results
WHERE case_result_id IN (SELECT case_result_id FROM {{database}}.human_labels);
