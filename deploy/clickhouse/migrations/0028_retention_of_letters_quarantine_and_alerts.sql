-- Dead letters, quarantined results and the alert history expire as the
-- data they hold does: 400 days after a row was written (README
-- "Retention"). Before, these tables were kept forever, and dead letters
-- keep whole message bodies (span data: questions, answers, possibly
-- personal data) that the raw tables had long dropped.
--
-- Each gets written_at (the server's clock when the row was written; rows
-- written before this migration count from the upgrade), so the clock starts
-- when a row is stored, as for every other table, and not at a time the
-- message or the evaluator carried. Rows are dropped one by one when a merge
-- passes their expiry, not a whole part at a time: these tables are not
-- partitioned by month, so a merged part mixes old and new rows and would
-- never be wholly expired.
--
-- Not given a TTL, on purpose:
-- * alert_state: one row per rule, the evaluator's current state. A firing
--   rule's row must outlive any retention, or a restart forgets the alert
--   and fires it again or never resolves it; it is never more than one row
--   a rule.
-- * rollup_repairs: pending recomputations, deleted when the repair is done
--   (store/clickhouse/rollup-repairs.ts); dropping one unrepaired would leave
--   the dashboards' counts of its minutes wrong without a trace.
--
-- These tables had no TTL from the migrations, so an operator who added one
-- keeps it: `{{unless_retention_set:<table>}}` skips the statement for a
-- table that has a TTL already (store/clickhouse/kept-retention.ts;
-- `ragscope migrate` says so).
ALTER TABLE {{database}}.dead_letters ADD COLUMN IF NOT EXISTS written_at DateTime('UTC') DEFAULT now();
ALTER TABLE {{database}}.dead_letters MODIFY TTL written_at + INTERVAL 400 DAY {{unless_retention_set:dead_letters}};
ALTER TABLE {{database}}.quarantined_results ADD COLUMN IF NOT EXISTS written_at DateTime('UTC') DEFAULT now();
ALTER TABLE {{database}}.quarantined_results MODIFY TTL written_at + INTERVAL 400 DAY {{unless_retention_set:quarantined_results}};
ALTER TABLE {{database}}.alerts ADD COLUMN IF NOT EXISTS written_at DateTime('UTC') DEFAULT now();
ALTER TABLE {{database}}.alerts MODIFY TTL written_at + INTERVAL 400 DAY {{unless_retention_set:alerts}}
