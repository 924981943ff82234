SELECT metric, any(evaluator_id) AS evaluator_id, avgOrNull(value) AS mean, count(value) AS applicable, countIf(value IS NULL) AS not_applicable
FROM {{database}}.metric_values FINAL WHERE run_id = {runId:String}
GROUP BY metric ORDER BY evaluator_id, metric
