-- A human label is of the answer the reviewer read: human_labels gains the
-- trace id of the request reviewed (evaluators/judge/calibration/
-- human-label.ts), and a label counts toward that request's review only
-- (dashboards/source/aggregate-metrics.ts REVIEWED_PASSED and
-- REVIEWED_FAILED, root-causes.ts caseReviews). Before this release a label
-- belonged to the case: a case sent again (the same day, or later) with
-- another answer showed the earlier answer's "passed (human)", reviewers and
-- all, and the gate counted it as decided by review.
--
-- The labels stored before name no request. Each is bound to the newest
-- request of its case that started at or before the label was made: the
-- answer the review form showed when it was saved (the form shows a case's
-- newest request). The bound copy is inserted with the label's own id and
-- version; of two rows with one id and one version ReplacingMergeTree keeps
-- the one inserted last, so the copy replaces the label. case_results is
-- read without FINAL: every request still stored, an earlier one of the same
-- day too until a merge collapsed it. A label with no request started
-- before it (its case's requests all came later, or none is stored) stays
-- bound to none (trace_id ''): kept and exported, counted toward no
-- request's review.
--
-- The verdicts of every labelled case's requests can change (a request sent
-- after its case was reviewed is no longer reviewed), so their minutes are
-- noted in rollup_repairs (migration 0024), and the first process that opens
-- the store to write, or `ragscope migrate`, recomputes them through the
-- rollup refresh itself (store/clickhouse/rollup-repairs.ts), as migrations
-- 0026, 0031 and 0036 do.
-- `{{database}}` is replaced by the configured database name.
ALTER TABLE {{database}}.human_labels ADD COLUMN IF NOT EXISTS trace_id String DEFAULT '' AFTER case_result_id;

INSERT INTO {{database}}.human_labels (label_id, case_result_id, trace_id, metric, labeler_id, verdict, value, note, labeled_at, version)
SELECT labels.label_id, labels.case_result_id, requests.trace_id, labels.metric, labels.labeler_id, labels.verdict, labels.value, labels.note, labels.labeled_at, labels.version
FROM (SELECT * FROM {{database}}.human_labels FINAL WHERE trace_id = '') AS labels
INNER JOIN (
    SELECT label_id, argMax(requests.trace_id, requests.started_at) AS trace_id
    FROM (SELECT label_id, case_result_id, labeled_at FROM {{database}}.human_labels FINAL WHERE trace_id = '') AS unbound
    INNER JOIN (SELECT DISTINCT case_result_id, trace_id, started_at FROM {{database}}.case_results) AS requests ON requests.case_result_id = unbound.case_result_id
    WHERE requests.started_at <= unbound.labeled_at
    GROUP BY label_id
) AS requests ON requests.label_id = labels.label_id;

INSERT INTO {{database}}.rollup_repairs (minute, tenant_id, service_name, reason)
SELECT DISTINCT toStartOfMinute(started_at) AS minute, tenant_id, service_name, 'a human label counts toward the review of the request reviewed only (migration 0037)' AS reason
FROM {{database}}.case_results
WHERE case_result_id IN (SELECT case_result_id FROM {{database}}.human_labels);
