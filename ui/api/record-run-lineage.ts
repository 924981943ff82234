/**
 * `PUT /api/runs/<run id>/lineage`: records a run's lineage
 * (contracts/run-lineage.ts) in the collector's store, for `ragscope eval
 * --endpoint`, whose cases are stored by a collector running elsewhere: it
 * records the run as running before its first case and as complete or
 * interrupted at its end, so `gate` and `report` over that store see the
 * versions the run used and refuse a run that did not finish
 * (experiments/run-completion.ts), as they do for an embedded run.
 *
 * Written through the read API rather than the OTLP receiver: the read API is
 * where the store is (a Kafka deployment's receiver has none), where the eval
 * already authenticates to read its results back, and where the lineage is
 * read (/runs).
 *
 * The run is recorded as one tenant's (migration 0027), which its readers
 * alone read: a token limited to one tenant records it as that tenant's (it
 * may name only that one, `?tenant=`); a token of several tenants names which
 * of its tenants with `?tenant=`; a token of every tenant (the operator's, a
 * `reviewer:*` tenant token, the tokenless loopback UI) may name any tenant,
 * and without one records the run without a tenant, which only readers of
 * every tenant read. A tenant's record replaces only that tenant's earlier
 * record of the run id, so a tenant cannot rewrite another's run of the same id.
 */
import { z } from "zod";
import { failure, success, type Result } from "../../core/result.js";
import { runLineage, type RunLineage } from "../../contracts/run-lineage.js";
import { identifierProblem } from "../../contracts/identifiers.js";
import { NO_TENANT, type RunLineageSink } from "../../store/ports/run-lineage-sink.js";
import { describeScope, type TenantScope } from "../../store/ports/tenant-scope.js";

export interface LineageRefusal {
  status: 400 | 403;
  message: string;
}

/** The tenant the run is recorded as (NO_TENANT: none), or why this token may not record it as the one it named. */
function recordedTenant(scope: TenantScope, named: string | undefined): Result<string, LineageRefusal> {
  if (named !== undefined) {
    const problem = identifierProblem(named);
    if (problem !== null) return failure({ status: 400, message: `?tenant=${JSON.stringify(named.slice(0, 200))}: ${problem}` });
    if (scope !== "all" && !scope.includes(named)) {
      return failure({ status: 403, message: `ragscope UI: this token reads ${describeScope(scope)}, so it may record a run as one of those tenants only, not as tenant "${named}"` });
    }
    return success(named);
  }
  if (scope === "all") return success(NO_TENANT);
  if (scope.length === 1) return success(scope[0]!);
  if (scope.length === 0) return failure({ status: 403, message: "ragscope UI: this token reads no tenant, so it cannot record a run as one; use a token of the run's tenant" });
  return failure({ status: 403, message: `ragscope UI: this token reads ${describeScope(scope)} and the request names none of them: name the run's tenant with ?tenant=<tenant>, or use a token of that tenant alone` });
}

/** An eval's clock may run ahead of the collector's; a day covers any skew, not a start years ahead. */
const FUTURE_START_ALLOWANCE_MS = 24 * 60 * 60 * 1000;
const isoDateTime = z.iso.datetime({ offset: true });

/**
 * Why `started_at` is not a time the run can have started, or null. The contract takes any text (runs recorded
 * before it said more), but the store keeps it as a time: "garbage" was a 500 carrying the engine's parse error, and
 * a start centuries ahead kept a tenant's runs at the top of the operator's runs list (newest first, 500 at most)
 * for good (test/security/run-lineage-writes.test.ts).
 */
function startProblem(startedAt: string, now: number): string | null {
  const shown = JSON.stringify(startedAt.slice(0, 100));
  if (!isoDateTime.safeParse(startedAt).success) return `started_at ${shown} is not an ISO 8601 date and time with its offset (e.g. "2026-01-02T03:04:05.000Z", what new Date().toISOString() gives)`;
  const start = Date.parse(startedAt);
  const latest = now + FUTURE_START_ALLOWANCE_MS;
  if (start < 0 || start > latest) return `started_at ${shown} is outside the times a run can have started: from 1970-01-01T00:00:00Z to a day after this server's clock (${new Date(latest).toISOString()})`;
  return null;
}

/** `namedTenant`: the request's `?tenant=`, undefined when absent; `now`: the server's clock, in milliseconds. */
export async function recordRunLineage(runs: RunLineageSink, scope: TenantScope, runId: string, text: string, namedTenant: string | undefined, now: number): Promise<Result<RunLineage, LineageRefusal>> {
  const tenant = recordedTenant(scope, namedTenant);
  if (!tenant.ok) return tenant;
  const problem = identifierProblem(runId);
  if (problem !== null) return failure({ status: 400, message: `run id ${JSON.stringify(runId.slice(0, 200))}: ${problem}` });
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    return failure({ status: 400, message: `the body is not valid JSON (${(error as Error).message}): send the run's lineage as a JSON object (contracts/run-lineage.ts)` });
  }
  const parsed = runLineage.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return failure({ status: 400, message: `the body is not a run lineage (contracts/run-lineage.ts): ${issue?.path.join(".") || "(the body)"}: ${issue?.message}` });
  }
  if (parsed.data.run_id !== runId) return failure({ status: 400, message: `the body's run_id ${JSON.stringify(parsed.data.run_id)} is not the run of the address (${JSON.stringify(runId)})` });
  const start = startProblem(parsed.data.started_at, now);
  if (start !== null) return failure({ status: 400, message: `the body is not a run lineage (contracts/run-lineage.ts): ${start}` });
  return success(await runs.record(parsed.data, tenant.value));
}
