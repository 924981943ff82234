-- The alert evaluator's state per rule (collector/alert/alert-evaluator.ts):
-- whether an alert is firing, its alert_id and since when. Saved on every
-- transition and read back when the evaluator starts, so a restart neither
-- fires an alert that is already firing nor forgets one. One row per rule,
-- the latest updated_at winning (query with FINAL).
-- `{{database}}` is replaced by the configured database name.

CREATE TABLE IF NOT EXISTS {{database}}.alert_state
(
    rule_id String,
    state LowCardinality(String),
    alert_id String,
    fired_at Nullable(DateTime64(3, 'UTC')),
    updated_at DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(updated_at)
ORDER BY rule_id;
