-- Human labels for judge calibration (issue 6; seed 004 §九.3, §九.4): a
-- reviewer's verdict on one metric of one Case Result. One row per
-- (case_result_id, metric, labeler_id) — label_id is a hash of the three — and a
-- relabel replaces the earlier row: the version is the label time in ms.
-- `{{database}}` is replaced by the configured database name.

CREATE TABLE IF NOT EXISTS {{database}}.human_labels
(
    label_id String,
    case_result_id String,
    metric LowCardinality(String),
    labeler_id LowCardinality(String),
    verdict LowCardinality(String),
    value Nullable(Float64),
    note String,
    labeled_at DateTime64(3, 'UTC'),
    version UInt64
)
ENGINE = ReplacingMergeTree(version)
ORDER BY label_id;
