-- The web UI's trace list (issue 13: "trace list and trace detail at 10
-- million traces < 300 ms") carries each request's execution error type in
-- its own table, trace_list (migration 0015), as observability stores keep
-- the columns a list filters on and shows in the list's table itself
-- instead of joining them in per query.
--
-- Before, trace_list held execution_status but not error_type, so the list
-- read case_results twice for it: once per page for the rows' error types,
-- and, in every query of the final-verdict filter, for the requests that did
-- not complete (a review never passes one, migration 0026) — a scan of
-- error_type and execution_status over every Case Result ever stored, to
-- find the few that reviewers passed.
--
-- error_type is what case_results holds (materialized from the payload's
-- execution_error.type, migration 0002), written by the list's materialized
-- view from then on. The rows stored before are filled from case_results,
-- row by row ((case_result_id, version) is one stored row in both tables):
-- every row is 'none', the default, except those whose Case Result row holds
-- another type. Those rows' types are read once into a Join table (held in
-- memory, a few tens of bytes a request that did not complete; its type is
-- String, as joinGetOrNull refuses a LowCardinality) and the UPDATE looks
-- each row up in it. An UPDATE with IN (SELECT … FROM case_results)
-- instead, whose subqueries the engine runs for each part it rewrites, took
-- ~1.5 minutes for each of the first parts of a 10,000,000-request store in
-- 200 parts; this one took 74 s in all (trace-list-filters.bench.ts).
-- The UPDATE is issued after the view writes the column, so it covers every
-- row written without it, and waits until the rows are rewritten
-- (mutations_sync): the list reads them as soon as the store opens. Only
-- the error_type column is rewritten.
--
-- MODIFY QUERY changes the view in place (no moment without it, unlike DROP
-- and CREATE). ClickHouse's documentation required the setting given with it
-- until early 2024 (23.8, the oldest server this schema supports, among
-- those releases); the embedded engine accepts it. Not run here on a server.
-- `{{database}}` is replaced by the configured database name.
ALTER TABLE {{database}}.trace_list ADD COLUMN IF NOT EXISTS error_type LowCardinality(String) DEFAULT 'none' AFTER execution_status;

ALTER TABLE {{database}}.trace_list_writer MODIFY QUERY
SELECT case_result_id, trace_id, run_id, case_id, case_version, dataset_id, service_name, tenant_id, route, execution_status, error_type, quality_status, latency_ms, started_at,
       JSONExtract(payload, 'rag_observation', 'query', 'Nullable(String)') AS query,
       output, JSONType(payload, 'output') = 'String' AS has_output, version, inserted_at
FROM {{database}}.case_results
SETTINGS allow_experimental_alter_materialized_view_structure = 1;

DROP TABLE IF EXISTS {{database}}.trace_list_error_types_0029;

CREATE TABLE {{database}}.trace_list_error_types_0029 ENGINE = Join(ANY, LEFT, case_result_id, version)
AS SELECT case_result_id, version, CAST(error_type, 'String') AS error_type FROM {{database}}.case_results WHERE error_type != 'none';

ALTER TABLE {{database}}.trace_list
UPDATE error_type = joinGet('{{database}}.trace_list_error_types_0029', 'error_type', case_result_id, version)
WHERE isNotNull(joinGetOrNull('{{database}}.trace_list_error_types_0029', 'error_type', case_result_id, version))
SETTINGS mutations_sync = 2;

DROP TABLE {{database}}.trace_list_error_types_0029;
