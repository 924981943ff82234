/**
 * May the requesting principal read a chunk? (seed 004 §三.5 "权限过滤准确率",
 * §八.1 权限安全, §十三 `permission_leak_rate: "= 0"`).
 *
 * The principal is the trace's `tenant_id` and `principal_groups`; when the
 * trace carries no groups, an offline case's `environment.permissions` (the
 * permissions the case runs with, seed 000) stands in for them.
 *
 * A chunk is, in order:
 * 1. denied (tenant) when both the chunk and the principal carry a tenant and
 *    they differ — another tenant's data, whatever its ACL says;
 * 2. allowed when its ACL is empty: the span contract reads an empty ACL as
 *    public (contracts/span-attributes.ts, DocumentField.acl);
 * 3. denied (ACL) when it carries a non-empty ACL, the principal's groups are
 *    known, and none of them is in the ACL;
 * 4. allowed when the ACL names one of the groups, or when the tenants were
 *    compared and matched and there is no ACL;
 * 5. unknown otherwise: nothing to compare, so nothing to count.
 *
 * "Not available" (aclNotAvailable): when chunks carry ACLs but the request
 * recorded no principal groups, the ACLs cannot be checked. A check that
 * found no denied chunk then has not shown that nothing leaked — it reports
 * "not available" (not applicable, with how to record the groups: the SDK's
 * `traceRequest({ principalGroups })`, attribute `ragscope.principal_groups`),
 * never "passed" or 0 % leaks. A denied chunk found anyway (another tenant's)
 * is still a violation.
 */
import type { CaseResult, RetrievedChunk } from "../../contracts/case-result.js";
import type { EvalCase } from "../../contracts/eval-case.js";
import { chunkLabel } from "../../contracts/case-result.js";

export interface Principal {
  tenantId: string | null;
  groups: readonly string[] | null;
  groupsSource: "trace" | "case" | null;
}

export type AccessVerdict = "allowed" | "denied_tenant" | "denied_acl" | "unknown";

export function principalOf(caseResult: CaseResult, evalCase: EvalCase | null): Principal {
  const observation = caseResult.rag_observation;
  if (observation.principal_groups !== null) return { tenantId: observation.tenant_id, groups: observation.principal_groups, groupsSource: "trace" };
  const permissions = evalCase?.environment.permissions;
  if (permissions !== undefined) {
    const groups = typeof permissions === "string" ? [permissions] : permissions;
    return { tenantId: observation.tenant_id, groups, groupsSource: "case" };
  }
  return { tenantId: observation.tenant_id, groups: null, groupsSource: null };
}

export function accessVerdict(chunk: Pick<RetrievedChunk, "acl" | "tenant_id">, principal: Principal): AccessVerdict {
  const tenantsCompared = chunk.tenant_id !== null && principal.tenantId !== null;
  if (tenantsCompared && chunk.tenant_id !== principal.tenantId) return "denied_tenant";
  if (chunk.acl !== null) {
    if (chunk.acl.length === 0) return "allowed";
    // The tenants matched (or were not compared) but the ACL cannot be checked.
    if (principal.groups === null) return "unknown";
    return chunk.acl.some((group) => principal.groups!.includes(group)) ? "allowed" : "denied_acl";
  }
  return tenantsCompared ? "allowed" : "unknown";
}

/** How to make the ACL check possible, for reasons shown to users. */
export const RECORD_PRINCIPAL_GROUPS =
  "record the requesting principal's groups: traceRequest({ principalGroups: user.groups }, …) in the SDK, or the span attribute ragscope.principal_groups";

/** Chunks whose ACL cannot be checked because the principal's groups are unknown. */
export function aclNotAvailable(chunks: readonly Pick<RetrievedChunk, "chunk_id" | "rank" | "acl" | "tenant_id">[], principal: Principal): string[] {
  if (principal.groups !== null) return [];
  return chunks.filter((chunk) => chunk.acl !== null && chunk.acl.length > 0 && accessVerdict(chunk, principal) === "unknown").map(chunkLabel);
}

/** The "not available" reason for chunks with unchecked ACLs. */
export function aclNotAvailableReason(chunkIds: readonly string[], where: string): string {
  return `not available: ${chunkIds.length} ${where} chunk(s) carry ACLs (${chunkIds.slice(0, 5).join(", ")}${chunkIds.length > 5 ? ", …" : ""}) but the trace records no principal groups, so no leak can be ruled out; ${RECORD_PRINCIPAL_GROUPS}`;
}

export function isDenied(verdict: AccessVerdict): boolean {
  return verdict === "denied_tenant" || verdict === "denied_acl";
}
