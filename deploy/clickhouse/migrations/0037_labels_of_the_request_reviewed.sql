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
-- answer the reviewer could have read then. case_results is read without
-- FINAL: every request still stored, an earlier one of the same day too
-- until a merge collapsed it; only the labelled cases' rows are read. A
-- reviewer's review of a case is of one request, so their labels of a case
-- stay bound only when every one of them binds to the same request: the
-- earlier release let a reviewer label a case over several saves, and one
-- who changed a verdict after the case was sent again had labels made
-- before and after it — bound one by one, a part of their review would land
-- on each request and count as a pass there on its own (a pass is taken only
-- with every metric labelled, over the saves of one case). Such a reviewer's
-- labels of the case, and a label made before any request of its case
-- started, are bound to none (trace_id ''): kept and exported, counted
-- toward no request's review, as a label moved off its request is.
--
-- Each bound label is inserted again with its own id and version; of two
-- rows with one id and one version ReplacingMergeTree keeps the one
-- inserted last, so the copy replaces the label.
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
SELECT labels.label_id, labels.case_result_id, reviews.trace_id, labels.metric, labels.labeler_id, labels.verdict, labels.value, labels.note, labels.labeled_at, labels.version
FROM (SELECT * FROM {{database}}.human_labels FINAL WHERE trace_id = '') AS labels
INNER JOIN (
    -- Per case and reviewer: the one request all their labels bind to, '' when they bind to several or to none.
    SELECT case_result_id, labeler_id, if(uniqExact(bound) = 1, any(bound), '') AS trace_id
    FROM (
        SELECT unbound.label_id AS label_id, any(unbound.case_result_id) AS case_result_id, any(unbound.labeler_id) AS labeler_id,
               argMaxIf(requests.trace_id, requests.started_at, requests.started_at <= unbound.labeled_at) AS bound
        FROM (SELECT label_id, case_result_id, labeler_id, labeled_at FROM {{database}}.human_labels FINAL WHERE trace_id = '') AS unbound
        LEFT JOIN (
            SELECT DISTINCT case_result_id, trace_id, started_at FROM {{database}}.case_results
            WHERE case_result_id IN (SELECT case_result_id FROM {{database}}.human_labels)
        ) AS requests ON requests.case_result_id = unbound.case_result_id
        GROUP BY unbound.label_id
    )
    GROUP BY case_result_id, labeler_id
) AS reviews ON reviews.case_result_id = labels.case_result_id AND reviews.labeler_id = labels.labeler_id
WHERE reviews.trace_id != '';

INSERT INTO {{database}}.rollup_repairs (minute, tenant_id, service_name, reason)
SELECT DISTINCT toStartOfMinute(started_at) AS minute, tenant_id, service_name, 'a human label counts toward the review of the request reviewed only (migration 0037)' AS reason
FROM {{database}}.case_results
WHERE case_result_id IN (SELECT case_result_id FROM {{database}}.human_labels);
