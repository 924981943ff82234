-- Per-tenant read access for Grafana on a ClickHouse server (SECURITY.md
-- "Tenants"): one read-only user per tenant whose rows are restricted by row
-- policies, for the data source of that tenant's Grafana organisation
-- (deploy/grafana/tenants/). Written for tenant "acme" in database
-- "ragscope"; copy it per tenant and replace acme, the password and, for a
-- second tenant, add its user to the ALL EXCEPT lists.
--
-- The conditions are the ones the store applies to a tenant reader of the web
-- UI and `ragscope report --tenant` (store/clickhouse/tenant-filter.ts); a test
-- checks this file covers every table the dashboards read.
--
-- NOT RUN BY THE TESTS: the embedded engine (chDB) refuses CREATE USER and
-- CREATE ROW POLICY, and no ClickHouse server that supports them can be
-- installed here (SECURITY.md says what was tried). Run it as an admin
-- (access_management = 1) and check it (bottom of this file) before handing
-- a tenant its Grafana.

CREATE USER IF NOT EXISTS grafana_acme IDENTIFIED WITH sha256_password BY 'change-me' SETTINGS readonly = 1;
GRANT SELECT ON ragscope.case_results TO grafana_acme;
GRANT SELECT ON ragscope.metric_values TO grafana_acme;
GRANT SELECT ON ragscope.metric_rollups TO grafana_acme;
GRANT SELECT ON ragscope.metric_rollups_hourly TO grafana_acme;
GRANT SELECT ON ragscope.request_rollups TO grafana_acme;
GRANT SELECT ON ragscope.session_rollups TO grafana_acme;
GRANT SELECT ON ragscope.session_rollups_by_session TO grafana_acme;
GRANT SELECT ON ragscope.session_summaries TO grafana_acme;
GRANT SELECT ON ragscope.root_cause_rollups TO grafana_acme;
GRANT SELECT ON ragscope.abstention_rollups TO grafana_acme;
GRANT SELECT ON ragscope.stage_rollups TO grafana_acme;
GRANT SELECT ON ragscope.evaluation_results TO grafana_acme;
GRANT SELECT ON ragscope.human_labels TO grafana_acme;
GRANT SELECT ON ragscope.runs TO grafana_acme;
GRANT SELECT ON ragscope.eval_cases TO grafana_acme;
-- collector_health is not granted: its counters cover every tenant (the Collector health dashboard stays the operator's).

-- Tables that carry the tenant.
CREATE ROW POLICY IF NOT EXISTS tenant_acme ON ragscope.case_results, ragscope.metric_values, ragscope.metric_rollups, ragscope.metric_rollups_hourly, ragscope.request_rollups, ragscope.session_rollups, ragscope.session_rollups_by_session, ragscope.session_summaries, ragscope.root_cause_rollups, ragscope.abstention_rollups, ragscope.stage_rollups USING tenant_id = 'acme' TO grafana_acme;
-- Tables reached through the tenant's case results. The subquery reads case_results as grafana_acme, so through the policy above.
CREATE ROW POLICY IF NOT EXISTS tenant_acme ON ragscope.evaluation_results USING case_result_id IN (SELECT case_result_id FROM ragscope.case_results) TO grafana_acme;
-- Reviewers' labels decide the final verdict the dashboards count (FINAL_VERDICT).
CREATE ROW POLICY IF NOT EXISTS tenant_acme ON ragscope.human_labels USING case_result_id IN (SELECT case_result_id FROM ragscope.case_results) TO grafana_acme;
-- An Eval Case the tenant's case results answer, unless the case names another tenant (context.tenant_id,
-- contracts/eval-case-tenant.ts): a tenant picks the case ids its spans carry, so the ids alone admit nothing of
-- another tenant's gold data. A case that names no tenant is every tenant's.
CREATE ROW POLICY IF NOT EXISTS tenant_acme ON ragscope.eval_cases USING (case_id, case_version) IN (SELECT case_id, case_version FROM ragscope.case_results) AND JSONExtractString(payload, 'context', 'tenant_id') IN ('', 'acme') TO grafana_acme;
-- A run's lineage by the tenant that recorded it (migration 0027), never through case results naming its run id
-- (any tenant can put any run id on its spans). Lineage recorded without a tenant (tenant_id '': every run stored
-- before 0027, `ragscope eval` without --tenant) is the operator's alone.
CREATE ROW POLICY IF NOT EXISTS tenant_acme ON ragscope.runs USING tenant_id = 'acme' TO grafana_acme;

-- Once a table has a row policy, users without one see none of its rows: the
-- collectors' user (ragscope) and the operator's Grafana user keep every row.
CREATE ROW POLICY IF NOT EXISTS everyone_else ON ragscope.case_results, ragscope.metric_values, ragscope.metric_rollups, ragscope.metric_rollups_hourly, ragscope.request_rollups, ragscope.session_rollups, ragscope.session_rollups_by_session, ragscope.session_summaries, ragscope.root_cause_rollups, ragscope.abstention_rollups, ragscope.stage_rollups, ragscope.evaluation_results, ragscope.human_labels, ragscope.runs, ragscope.eval_cases USING 1 TO ALL EXCEPT grafana_acme;

-- Check, logged in as grafana_acme: each must return 0.
--   SELECT count() FROM ragscope.case_results WHERE tenant_id != 'acme';
--   SELECT count() FROM ragscope.evaluation_results WHERE case_result_id NOT IN (SELECT case_result_id FROM ragscope.case_results WHERE tenant_id = 'acme');
--   SELECT count() FROM ragscope.runs WHERE tenant_id != 'acme';
--   SELECT count() FROM ragscope.eval_cases WHERE JSONExtractString(payload, 'context', 'tenant_id') NOT IN ('', 'acme');
