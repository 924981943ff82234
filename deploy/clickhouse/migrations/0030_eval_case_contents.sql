-- A case id and version stored with two contents stays two rows.
--
-- `ragscope dataset push` (and serve --dataset, eval) refuses a case whose
-- (case_id, case_version) is stored with other content. The check reads the
-- table and the insert follows it: on a ClickHouse server two pushes of one
-- id and version with different content at the same moment both pass the
-- check and both insert. With the sorting key (case_id, case_version) the
-- ReplacingMergeTree then kept one of the two at its next merge, whichever
-- it chose, and runs were judged against gold nobody chose; a merge could
-- even come before either push looked again.
--
-- With the content's digest in the sorting key (contracts/eval-case-digest.ts
-- caseContentDigest) a merge collapses only rows of the same content. Each
-- writer reads the key back after its insert and fails when two contents are
-- stored; readers treat such a case as unknown instead of picking one
-- (store/clickhouse/clickhouse-case-store.ts).
--
-- The rows stored before have an empty content_digest: at most one content
-- each, as they were merged by (case_id, case_version). A column added to the
-- sorting key in the same ALTER may not have a default expression: '' is the
-- type's own default.
ALTER TABLE {{database}}.eval_cases
    ADD COLUMN IF NOT EXISTS content_digest String AFTER payload,
    MODIFY ORDER BY (case_id, case_version, content_digest);
