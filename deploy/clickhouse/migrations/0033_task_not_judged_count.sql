-- "Task success · not judged" counts the complete requests task success leaves out (no verdict, no error, no
-- timeout) exactly, from a count of its own.
--
-- Before, the board computed it as complete_requests - task_judged (request_rollups, migration 0014). task_judged
-- counts every request with a verdict, a partial trace included (a request whose root span never arrived, yet a rule
-- failed it: a question was asked, and seed 004 §六.1's task success counts it), while complete_requests leaves
-- partial traces out: each such request lowered "not judged" by one, and a minute of them alone read below 0.
--
-- task_not_judged: per row, the complete requests (partial_trace = 0) without a verdict, error or timeout —
-- REQUEST_ROLLUP_COUNTS.task_not_judged in dashboards/source/aggregate-metrics.ts, which the rollup refresh computes
-- for new minutes (requestRollupSelect). A partial result without a verdict (one rebuilt from late user events
-- alone, or a partial trace nothing judged) is in neither count: the rollups cannot tell the two apart, and the
-- first is no request.
ALTER TABLE {{database}}.request_rollups ADD COLUMN IF NOT EXISTS task_not_judged UInt64 DEFAULT 0 AFTER task_judged;

-- Rows stored before this migration, copied with the count. For a minute without partial traces, complete_requests
-- - task_judged is exactly the complete requests without a verdict (both count the same requests, the judged ones
-- apart), and so for a minute whose partial results have no verdict (in neither count). least() keeps a minute
-- whose judged partial traces outnumber its unjudged complete requests at 0 rather than wrapping the unsigned
-- count: those minutes are recomputed below. Each copy replaces its row (its version one above the row's, so the
-- rollup catch-up's comparison with the newest insert is unchanged); written_at is kept, so the copy does not
-- restart the row's retention (migration 0020).
INSERT INTO {{database}}.request_rollups (minute, tenant_id, service_name, dataset_id, run_id, experiment_id, experiment_variant, all_requests, complete_requests, thumbs_given, thumbs_down, liked, disliked, copied, handed_off, cited_requests, citation_clicked, rating_count, errors, timeouts, task_passed, task_judged, task_not_judged, passed_verdicts, failed_verdicts, review_required_verdicts, unjudged_verdicts, not_evaluated_verdicts, rating_sum, user_states, version, written_at)
SELECT minute, tenant_id, service_name, dataset_id, run_id, experiment_id, experiment_variant, all_requests, complete_requests, thumbs_given, thumbs_down, liked, disliked, copied, handed_off, cited_requests, citation_clicked, rating_count, errors, timeouts, task_passed, task_judged,
       complete_requests - least(task_judged, complete_requests) AS task_not_judged,
       passed_verdicts, failed_verdicts, review_required_verdicts, unjudged_verdicts, not_evaluated_verdicts, rating_sum, user_states, version + 1 AS version, written_at
FROM {{database}}.request_rollups FINAL
SETTINGS do_not_merge_across_partitions_select_final = 1;

-- The minutes with a partial result, where the difference may be wrong (a partial trace with a verdict, from a rule
-- or from reviewers): noted in rollup_repairs (migration 0024), and the first process that opens the store to write,
-- or `ragscope migrate`, recomputes them through the rollup refresh itself (store/clickhouse/rollup-repairs.ts) —
-- the final verdict's rule stays in one place. Any partial result marks its minute: recomputing a minute whose
-- count was right changes nothing.
INSERT INTO {{database}}.rollup_repairs (minute, tenant_id, service_name, reason)
SELECT DISTINCT toStartOfMinute(started_at) AS minute, tenant_id, service_name, 'task success counts complete requests without a verdict as not judged (migration 0033)' AS reason
FROM {{database}}.case_results
WHERE partial_trace = 1
