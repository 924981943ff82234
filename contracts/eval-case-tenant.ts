/**
 * Whose gold data an Eval Case is. A case's `context.tenant_id` names the
 * tenant it asks as (`ragscope eval --tenant` refuses to run a case that names
 * another tenant); a case that names none is shared by every tenant.
 *
 * A Case Result finds its Eval Case by `(case_id, case_version)` alone, and a
 * tenant chooses the ids its spans carry: without this check a tenant that
 * guessed another tenant's case id ("case-001", version "1") had its trace
 * evaluated against that tenant's reference answer and gold evidence, and read
 * the whole case (question, gold chunks, reference answer) back on its own
 * trace's page (SECURITY.md, Tenants). So a case that names a tenant is used
 * with, and shown beside, only Case Results of that tenant; a Case Result
 * without a tenant (a deployment without tenant tokens, where every reader
 * reads everything) still uses it.
 */
import type { EvalCase } from "./eval-case.js";

/** The tenant an Eval Case names in its context, or null when it names none (or not as a text). */
export function evalCaseTenant(evalCase: Pick<EvalCase, "context">): string | null {
  const tenant = evalCase.context.tenant_id;
  return typeof tenant === "string" && tenant !== "" ? tenant : null;
}

/** Whether a Case Result of `tenant` may be evaluated against, and shown with, this Eval Case. */
export function evalCaseServesTenant(evalCase: Pick<EvalCase, "context">, tenant: string | null): boolean {
  const owner = evalCaseTenant(evalCase);
  return owner === null || tenant === null || owner === tenant;
}

/** The Eval Case a Case Result of `tenant` is evaluated against and shown with: null when there is none, or it is another tenant's. */
export function evalCaseFor<Case extends Pick<EvalCase, "context">>(evalCase: Case | null | undefined, tenant: string | null): Case | null {
  return evalCase !== null && evalCase !== undefined && evalCaseServesTenant(evalCase, tenant) ? evalCase : null;
}
