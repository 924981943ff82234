-- The trace list's free-text filter (issue 13: "UI/report trace list at 10 million traces < 300 ms") reads each
-- request's answer and question lower-cased once, when the row is written, instead of lower-casing both on every
-- search.
--
-- The filter matches the text anywhere in the answer or the question, letters of any case (a substring: "refund" also
-- finds "refunds", so a whole-word text index cannot answer it). Before, each search ran lowerUTF8 over both columns
-- of every row of the windows it read, then LIKE. On 10,000,000 rows of the benchmark's texts (test/bench/
-- trace-list-filters.bench.ts), the same count over the same rows: lowerUTF8 and LIKE 218–230 ms, LIKE over the
-- columns below 119–145 ms; lower-casing was about half of a search that matches nothing, the filter slowest to
-- answer, as it reads every window back to the oldest day.
--
-- output_lower and query_lower are MATERIALIZED: the engine computes them on every insert into trace_list (the list's
-- materialized view, trace_list_writer of migrations 0015 and 0029, writes the other columns and needs no change), and
-- `SELECT *` leaves them out. A NULL query (the payload had none) is '' here: the filter read it as '' before too.
-- They cost the disk what the two texts cost (on the benchmark's texts ~128 MB more per 10,000,000 rows, LZ4, as
-- trace_list's other columns: every page of the list reads it) and the writer ~1 µs a request.
--
-- The rows stored before this migration are materialised by a mutation that writes the two new columns of each
-- part (mutations_sync: the list reads them as soon as the store opens). Until a part holds them, the engine would
-- compute them on read from output and query, with the same results and the old cost.
-- `{{database}}` is replaced by the configured database name.
ALTER TABLE {{database}}.trace_list
    ADD COLUMN IF NOT EXISTS output_lower String MATERIALIZED lowerUTF8(output) AFTER has_output,
    ADD COLUMN IF NOT EXISTS query_lower String MATERIALIZED lowerUTF8(ifNull(query, '')) AFTER output_lower;

ALTER TABLE {{database}}.trace_list MATERIALIZE COLUMN output_lower SETTINGS mutations_sync = 2;

ALTER TABLE {{database}}.trace_list MATERIALIZE COLUMN query_lower SETTINGS mutations_sync = 2;
