/**
 * Says, once per case, that a trace named an Eval Case the store does not
 * hold. Such a trace carries run and case ids, so its user meant a dataset
 * run, but it is evaluated without gold data — as online traffic, mostly
 * unjudged — and nothing else told them why: a whole offline run sent with
 * `caseVersion: "v1"` against a dataset whose cases are version `1` (the
 * simple format's default) came out unjudged without a word.
 *
 * Bounded: the first MAXIMUM_NAMED distinct cases are named, then one line
 * says that more followed; ragscope_unknown_cases_total counts every trace.
 */
export const MAXIMUM_NAMED = 20;

/** The store holds the case, but it names another tenant than the trace's (contracts/eval-case-tenant.ts). */
export interface OtherTenantsCase {
  caseTenant: string;
  traceTenant: string;
}

export function unknownCaseNotice(write: (line: string) => void, maximumNamed = MAXIMUM_NAMED): (caseId: string, caseVersion: string, traceId: string, tenants?: OtherTenantsCase) => void {
  const named = new Set<string>();
  let saidMore = false;
  return (caseId, caseVersion, traceId, tenants) => {
    const key = JSON.stringify([caseId, caseVersion]);
    if (named.has(key)) return;
    if (named.size >= maximumNamed) {
      if (!saidMore) write(`ragscope: more traces name Eval Cases the store does not hold; ragscope_unknown_cases_total on /metrics counts them`);
      saidMore = true;
      return;
    }
    named.add(key);
    // For the operator only: the tenant's own view of the trace says nothing of the other tenant's case.
    if (tenants !== undefined) {
      write(
        `ragscope: trace ${traceId} of tenant ${JSON.stringify(tenants.traceTenant)} names Eval Case ${JSON.stringify(caseId)} version ${JSON.stringify(caseVersion)}, which is tenant ${JSON.stringify(tenants.caseTenant)}'s (its context.tenant_id), so it is evaluated without gold data (as online traffic) and the case is not shown with it; a tenant's traces use only its own cases and cases that name no tenant`,
      );
      return;
    }
    write(
      `ragscope: trace ${traceId} names Eval Case ${JSON.stringify(caseId)} version ${JSON.stringify(caseVersion)}, which the store does not hold, so it is evaluated without gold data (as online traffic); load the dataset (serve --dataset FILE, or ragscope dataset push FILE) or send the case_version the dataset gives (the simple format's default is "1")`,
    );
  };
}
