-- root_cause_rollups count failing requests (dashboards/source/root-causes.ts
-- rootCauseRollupSelect): each stored request, a Case Result id's trace and
-- start, under its own minute, tenant and service, and under the root cause
-- written with it (else the one its case's reviewers agreed on). Before this
-- release a refresh grouped the rows of its minutes by case_result_id: a case
-- sent again (its id stored with another trace, start and service, e.g. a
-- harness retrying after midnight UTC or from a renamed service) whose
-- requests' minutes one refresh recomputed together counted once, at its
-- first start, under its newest row's tenant and service — a service that may
-- have sent nothing then — while refreshes of each minute apart counted both.
--
-- Only the minutes of such cases can count otherwise. For each, every minute
-- of its rows is noted with every tenant and service of its rows (the earlier
-- release's row may sit under any of them), in rollup_repairs (migration
-- 0024); the first process that opens the store to write, or `ragscope
-- migrate`, recomputes them through the rollup refresh itself
-- (store/clickhouse/rollup-repairs.ts), which deletes the rows it no longer
-- produces. Any version of a row marks its minute: recomputing a minute whose
-- counts were right changes nothing.
INSERT INTO {{database}}.rollup_repairs (minute, tenant_id, service_name, reason)
SELECT DISTINCT toStartOfMinute(requests.started_at) AS minute, keys.tenant_id AS tenant_id, keys.service_name AS service_name,
       'each request of a case sent again is counted in the root-cause rollups (migration 0032)' AS reason
FROM (SELECT case_result_id, started_at FROM {{database}}.case_results
      WHERE case_result_id IN (SELECT case_result_id FROM {{database}}.case_results GROUP BY case_result_id HAVING uniqExact(trace_id, started_at) > 1)) AS requests
INNER JOIN (SELECT DISTINCT case_result_id, tenant_id, service_name FROM {{database}}.case_results
            WHERE case_result_id IN (SELECT case_result_id FROM {{database}}.case_results GROUP BY case_result_id HAVING uniqExact(trace_id, started_at) > 1)) AS keys
  ON keys.case_result_id = requests.case_result_id
SETTINGS max_bytes_before_external_group_by = 1073741824;
