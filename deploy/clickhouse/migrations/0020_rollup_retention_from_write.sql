-- The rollups' retention counts from when a row was written, as the raw
-- rows' does (migration 0007: TTL on inserted_at), instead of from the
-- rollup's minute or hour.
--
-- Before, the two clocks differed: a request replayed or sent late with a
-- start over 400 days old was stored raw and kept, but its rollup rows were
-- dropped as they were written, so every panel that reads the rollups (most
-- of the boards, the web UI's Quality page) showed no data for it while the
-- raw-row panels and the reports did. Now a rollup row carries written_at
-- (the server's clock when the refresh wrote it; rows written before this
-- migration count from the upgrade) and is dropped a whole part at a time
-- (ttl_only_drop_parts) once every row of its part is older than the
-- retention. A refresh that recomputes a minute writes it again, so a
-- minute's rollup lives at least as long as the raw rows it was computed
-- from.
--
-- The interval is each table's own: `{{retention_of:<table>}}` is the
-- interval its TTL has now — 400 days as the migrations created it, or what
-- an operator set with ALTER TABLE … MODIFY TTL (README "Retention"). A table
-- whose TTL an operator removed or wrote otherwise is left as it is
-- (store/clickhouse/kept-retention.ts; `ragscope migrate` says so).
ALTER TABLE {{database}}.metric_rollups ADD COLUMN IF NOT EXISTS written_at DateTime('UTC') DEFAULT now();
ALTER TABLE {{database}}.metric_rollups MODIFY TTL written_at + {{retention_of:metric_rollups}};
ALTER TABLE {{database}}.metric_rollups_hourly ADD COLUMN IF NOT EXISTS written_at DateTime('UTC') DEFAULT now();
ALTER TABLE {{database}}.metric_rollups_hourly MODIFY TTL written_at + {{retention_of:metric_rollups_hourly}};
ALTER TABLE {{database}}.request_rollups ADD COLUMN IF NOT EXISTS written_at DateTime('UTC') DEFAULT now();
ALTER TABLE {{database}}.request_rollups MODIFY TTL written_at + {{retention_of:request_rollups}};
ALTER TABLE {{database}}.session_rollups ADD COLUMN IF NOT EXISTS written_at DateTime('UTC') DEFAULT now();
ALTER TABLE {{database}}.session_rollups MODIFY TTL written_at + {{retention_of:session_rollups}};
ALTER TABLE {{database}}.root_cause_rollups ADD COLUMN IF NOT EXISTS written_at DateTime('UTC') DEFAULT now();
ALTER TABLE {{database}}.root_cause_rollups MODIFY TTL written_at + {{retention_of:root_cause_rollups}};
ALTER TABLE {{database}}.abstention_rollups ADD COLUMN IF NOT EXISTS written_at DateTime('UTC') DEFAULT now();
ALTER TABLE {{database}}.abstention_rollups MODIFY TTL written_at + {{retention_of:abstention_rollups}}
