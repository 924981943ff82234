/**
 * Permission leak into the answer (seed 004 §八.1 权限安全: "引用链接是否绕过
 * 权限校验", "跨租户数据是否泄露"; §十三 `permission_leak_rate: "= 0"`).
 *
 * Retrieval's own violations (retrieved chunks the principal may not read,
 * ACL or another tenant) are rules/retrieval-permission.ts's
 * permission_violation_rate; this evaluator adds what reached the user, with
 * the same access rule (rules/retrieval-access-control.ts):
 *
 * cited_permission_violation_rate: cited chunks the principal may not read /
 *   cited chunks whose access could be judged (a cited id is looked up among
 *   the retrieved chunks for its ACL and tenant). Not applicable when nothing
 *   is cited or no cited chunk could be judged.
 * permission_leak_rate: 1 when a chunk the principal may not read was packed
 *   into the context or cited — its content reached the generator or the user
 *   — else 0. Averaged over requests it is the share of requests that leaked.
 *   Not applicable when no packed or cited chunk could be judged.
 *
 * "Not available" (both not applicable, never 0): no packed or cited chunk
 * was found denied, but some carry ACLs and the trace records no principal
 * groups to check them against (retrieval-access-control.ts aclNotAvailable).
 *
 * Another tenant's chunk is named as such in the reason (cross-tenant leak).
 * Any leak fails the case ("= 0", 一票否决).
 */
import { chunkLabel, type RetrievedChunk } from "../../contracts/case-result.js";
import type { Evaluator, MetricDescriptor } from "../evaluator.js";
import { chunkLookup, packedChunks } from "../evidence/packed-chunks.js";
import { applicable, notApplicable, type MetricValue } from "../metric-value.js";
import { accessVerdict, aclNotAvailable, aclNotAvailableReason, isDenied, principalOf, type AccessVerdict, type Principal } from "../rules/retrieval-access-control.js";
import { metricKeys } from "../metric-keys.js";

const metrics: MetricDescriptor[] = [
  { name: "cited_permission_violation_rate", description: "cited chunks the principal may not read (ACL or another tenant) / cited chunks whose access could be judged", range: [0, 1], direction: "lower_is_better", defaultThreshold: "= 0" },
  { name: "permission_leak_rate", description: "1 when a chunk the principal may not read was packed into the context or cited, else 0", range: [0, 1], direction: "lower_is_better", defaultThreshold: "= 0" },
];

interface Judged {
  chunk: RetrievedChunk;
  verdict: AccessVerdict;
}

function judge(chunks: readonly RetrievedChunk[], principal: Principal): Judged[] {
  return chunks.map((chunk) => ({ chunk, verdict: accessVerdict(chunk, principal) })).filter((entry) => entry.verdict !== "unknown");
}

function describe(entry: Judged): string {
  return entry.verdict === "denied_tenant" ? `${chunkLabel(entry.chunk)} (cross-tenant: tenant ${entry.chunk.tenant_id})` : `${chunkLabel(entry.chunk)} (acl ${(entry.chunk.acl ?? []).join("|")})`;
}

/** The metrics this evaluator produces (boundaries layer). */
export const permissionLeakMetrics = metricKeys(["cited_permission_violation_rate", "permission_leak_rate"]);

export const permissionLeakEvaluator: Evaluator = {
  id: "online.permission_leak",
  version: "1",
  layer: "boundaries",
  description: "Did a chunk the requesting principal may not read (ACL, another tenant) reach the context or the citations",
  requires: [],
  costClass: "rule",
  confidence: "deterministic_rule",
  metrics,
  evaluate({ caseResult, evalCase }) {
    const principal = principalOf(caseResult, evalCase);
    const lookup = chunkLookup(caseResult);
    const citations = caseResult.rag_observation.citations;
    const cited = (citations ?? []).flatMap((chunkId) => {
      const chunk = lookup.get(chunkId);
      return chunk === undefined ? [] : [chunk];
    });
    const packed = packedChunks(caseResult) ?? [];
    const citedJudged = judge(cited, principal);
    // Packed chunks without an id are each their own chunk: none is merged into another.
    const reached = new Map<string | RetrievedChunk, RetrievedChunk>();
    for (const chunk of [...packed, ...cited]) if (!reached.has(chunk.chunk_id ?? chunk)) reached.set(chunk.chunk_id ?? chunk, chunk);
    const reachedJudged = judge([...reached.values()], principal);

    const leaked = reachedJudged.filter((entry) => isDenied(entry.verdict));
    const unchecked = aclNotAvailable([...reached.values()], principal);
    if (leaked.length === 0 && unchecked.length > 0) {
      const reason = aclNotAvailableReason(unchecked, "packed or cited");
      return { values: { cited_permission_violation_rate: notApplicable(reason), permission_leak_rate: notApplicable(reason) }, reason, evidence: [] };
    }

    let citedRate: MetricValue;
    if (citations === null) citedRate = notApplicable("the trace recorded no citation stage");
    else if (citations.length === 0) citedRate = notApplicable("the answer cites nothing");
    else if (citedJudged.length === 0) citedRate = notApplicable("no cited chunk's access could be judged (no ACL or tenant, or no principal)");
    else citedRate = applicable(citedJudged.filter((entry) => isDenied(entry.verdict)).length / citedJudged.length);

    const leakRate: MetricValue =
      reachedJudged.length === 0 ? notApplicable("no packed or cited chunk's access could be judged (no ACL or tenant, or no principal)") : applicable(leaked.length > 0 ? 1 : 0);

    let reason: string;
    if (!leakRate.applicable && !citedRate.applicable) reason = `not applicable: ${leakRate.reason}`;
    else if (leaked.length === 0) reason = `no chunk the principal may not read reached the context or the citations (${reachedJudged.length} judged)`;
    else {
      const citedIds = new Set(cited.map((chunk) => chunk.chunk_id));
      reason = `chunks the principal may not read reached the answer: ${leaked.map((entry) => `${describe(entry)}${citedIds.has(entry.chunk.chunk_id) ? " cited" : " packed"}`).join(", ")}`;
    }
    return { values: { cited_permission_violation_rate: citedRate, permission_leak_rate: leakRate }, reason, evidence: leaked.map((entry) => chunkLabel(entry.chunk)) };
  },
};
