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
 * read (/runs). The `runs` table is keyed by run id alone, across tenants, so
 * only a reader of every tenant may write it (the operator's token, a
 * `reviewer:*` tenant token, or the tokenless loopback UI); a tenant-limited
 * token could otherwise rewrite another tenant's run of the same id.
 */
import { failure, success, type Result } from "../../core/result.js";
import { runLineage, type RunLineage } from "../../contracts/run-lineage.js";
import { identifierProblem } from "../../contracts/identifiers.js";
import type { RunLineageSink } from "../../store/ports/run-lineage-sink.js";
import { describeScope, type TenantScope } from "../../store/ports/tenant-scope.js";

export interface LineageRefusal {
  status: 400 | 403;
  message: string;
}

export async function recordRunLineage(runs: RunLineageSink, scope: TenantScope, runId: string, text: string): Promise<Result<RunLineage, LineageRefusal>> {
  if (scope !== "all") {
    return failure({
      status: 403,
      message: `ragscope UI: run lineage is stored per run id for every tenant, so only a token that reads all tenants may record it; this token reads ${describeScope(scope)} — record the run with the operator's token (RAGSCOPE_UI_TOKENS, or a reviewer:* entry of RAGSCOPE_UI_TENANT_TOKENS)`,
    });
  }
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
  return success(await runs.record(parsed.data));
}
