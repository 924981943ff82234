EXPLAIN indexes = 1 SELECT argMax(payload, version) AS payload FROM ragscope.case_results WHERE case_result_id = 'cr_00009992' GROUP BY case_result_id;
SELECT argMax(payload, version) AS payload, toUnixTimestamp64Milli(argMax(started_at, version)) FROM ragscope.case_results WHERE case_result_id = 'cr_00009992' GROUP BY case_result_id FORMAT Null;
EXPLAIN indexes = 1 SELECT argMax(payload, version) AS payload FROM ragscope.evaluation_results WHERE case_result_id = 'cr_00009992' AND started_at = toDateTime64('2026-06-01 02:46:32', 3, 'UTC') GROUP BY evaluator_id, evaluation_result_id;
SELECT argMax(payload, version) AS payload FROM ragscope.evaluation_results WHERE case_result_id = 'cr_00009992' AND started_at = toDateTime64('2026-06-01 02:46:32', 3, 'UTC') GROUP BY evaluator_id, evaluation_result_id FORMAT Null;
SELECT spans FROM ragscope.trace_spans FINAL WHERE case_result_id = 'cr_00009992' AND started_at = toDateTime64('2026-06-01 02:46:32', 3, 'UTC') LIMIT 1 FORMAT Null
