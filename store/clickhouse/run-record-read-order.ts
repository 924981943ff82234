/**
 * Which of several records of one run id a reader reads (RunReader.readRun, and the runs list beside it), as a
 * tuple of the `runs` table's columns whose greatest value wins (argMax, ORDER BY … DESC).
 *
 * Two tenants may record the same run id (migration 0027), and a reader of several tenants — the operator's `gate`
 * and `report` without --tenant — may read both. Its order: the record without a tenant first (only a writer of
 * every tenant writes it); then a record that says the run has not finished (running, interrupted); then the newest.
 * Before the second rule the newest record won, so tenant acme, recording its own lineage of globex's run id with
 * `"completion": {"status": "complete"}` after globex's eval was interrupted, made the operator's gate decide on
 * globex's partial run (test/security/run-lineage-writes.test.ts). A record that a run is unfinished is the one
 * that stops a decision, so it is never outranked by another tenant's: at worst another tenant's record stops the
 * operator's gate, which then names the run's tenant with --tenant, the way to gate one tenant's run.
 *
 * Used inside aggregates (argMax): a query must not alias anything `payload`, or the order would read the alias.
 */
export const RUN_RECORD_READ_ORDER = "(tenant_id = '', JSONExtractString(payload, 'completion', 'status') IN ('running', 'interrupted'), version, tenant_id)";
