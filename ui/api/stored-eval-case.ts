/**
 * `GET /api/cases?case_id=&case_version=`: the Eval Case the collector holds
 * under one id and version, so `ragscope eval --endpoint` can compare it with
 * the dataset file before any case runs (experiments/target/remote-target.ts)
 * — a run judged against other gold data than the file the user gave, or
 * against none, is refused up front instead of found out in its results.
 *
 * A reader sees the cases its traces would be evaluated against
 * (contracts/eval-case-tenant.ts): every case for a reader of all tenants; for
 * a tenant-limited reader, the cases that name no tenant or one of its
 * tenants — another tenant's case answers as not stored, as it is for that
 * reader's traces. The answer holds the case's gold data, which a reader of
 * those traces is shown on their pages already.
 */
import { evalCaseTenant } from "../../contracts/eval-case-tenant.js";
import type { EvalCase } from "../../contracts/eval-case.js";
import type { CaseStore } from "../../store/ports/case-store.js";
import type { TenantScope } from "../../store/ports/tenant-scope.js";

export async function storedEvalCase(cases: CaseStore, scope: TenantScope, caseId: string, caseVersion: string): Promise<EvalCase | null> {
  const stored = await cases.get(caseId, caseVersion);
  if (stored === null || scope === "all") return stored;
  const owner = evalCaseTenant(stored);
  return owner === null || scope.includes(owner) ? stored : null;
}
