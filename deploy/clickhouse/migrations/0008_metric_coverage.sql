-- Fewer rows per trace: metric_values holds a row for a metric only when it
-- has a value. About half of a trace's metrics do not apply to it (no gold
-- evidence, no judge, no citations …); their NULL rows were about half of
-- all rows written. What a panel or the run summary needs of them — how many
-- cases a metric did not apply to — is kept on the Evaluation Result instead:
-- `not_applicable_metrics` lists the metrics of that result without a value,
-- so coverage is `evaluation_results FINAL ARRAY JOIN not_applicable_metrics`.
--
-- The collector writes the column. Rows stored before this migration get it
-- from their payload (the DEFAULT expression is computed when such a part is
-- read, and stored when it is merged): the same list, as metric_values of
-- the payload with a JSON null. Their NULL rows in metric_values stay and
-- are ignored by every reader (readers take values from metric_values with
-- `value IS NOT NULL`, and not-applicable counts from this column only), so
-- no number changes (test/integration/store/schema-upgrade.test.ts).
--
-- A re-evaluation that turns a value into "not applicable" (late spans
-- re-opened the trace; a judge re-run that failed) writes a NULL row for the
-- metric with a newer version, which hides the earlier value under FINAL
-- (store/clickhouse/result-rows.ts).
-- `{{database}}` is replaced by the configured database name.

ALTER TABLE {{database}}.evaluation_results
    ADD COLUMN IF NOT EXISTS not_applicable_metrics Array(LowCardinality(String))
        DEFAULT arrayFilter(name -> JSONType(payload, 'metric_values', name) = 'Null', JSONExtractKeys(payload, 'metric_values'));
