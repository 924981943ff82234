/**
 * permission_violation_rate (seed 004 §三.5 "权限过滤准确率", §十三
 * `permission_leak_rate: "= 0"`): retrieved chunks the requesting principal may
 * not read — another tenant's chunks, or an ACL none of the principal's groups
 * satisfies — / retrieved chunks whose access could be judged
 * (retrieval-access-control.ts has the rule). Not applicable when no chunk
 * could be judged (no ACL, no tenant, or no principal information), and "not
 * available" (not applicable, never 0) when no chunk was found denied but some
 * carry ACLs the request's unrecorded principal groups cannot be checked
 * against.
 *
 * Any violation fails the case ("= 0"): a permission leak is a veto, never
 * averaged away (seed 004 §十三 "一票否决").
 */
import type { Evaluator, MetricDescriptor } from "../evaluator.js";
import { applicable, notApplicable } from "../metric-value.js";
import { accessVerdict, aclNotAvailable, aclNotAvailableReason, isDenied, principalOf } from "./retrieval-access-control.js";
import { chunkLabel } from "../../contracts/case-result.js";
import { metricKeys } from "../metric-keys.js";

const metrics: MetricDescriptor[] = [
  {
    name: "permission_violation_rate",
    description: "retrieved chunks the principal may not read (ACL or tenant) / retrieved chunks whose access could be judged",
    range: [0, 1],
    direction: "lower_is_better",
    defaultThreshold: "= 0",
  },
];

/** The metrics this evaluator produces (boundaries layer). */
export const retrievalPermissionMetrics = metricKeys(["permission_violation_rate"]);

export const retrievalPermissionEvaluator: Evaluator = {
  id: "retrieval.permission",
  version: "1",
  layer: "boundaries",
  description: "Did retrieval return chunks the requesting principal may not read (ACL, tenant)",
  requires: [],
  costClass: "rule",
  confidence: "deterministic_rule",
  metrics,
  evaluate({ caseResult, evalCase }) {
    const chunks = caseResult.rag_observation.retrieved_chunks;
    if (chunks === null) return { values: { permission_violation_rate: notApplicable("the trace recorded no retrieval") }, reason: "not applicable: the trace recorded no retrieval", evidence: [] };
    const principal = principalOf(caseResult, evalCase);
    const judged = chunks.map((chunk) => ({ chunk, verdict: accessVerdict(chunk, principal) })).filter((entry) => entry.verdict !== "unknown");
    if (judged.length === 0) {
      const reason = "no retrieved chunk's access could be judged (no ACL or tenant on the chunks, or no principal groups or tenant on the request)";
      return { values: { permission_violation_rate: notApplicable(reason) }, reason: `not applicable: ${reason}`, evidence: [] };
    }
    const denied = judged.filter((entry) => isDenied(entry.verdict));
    const unchecked = aclNotAvailable(chunks, principal);
    if (denied.length === 0 && unchecked.length > 0) {
      const reason = aclNotAvailableReason(unchecked, "retrieved");
      return { values: { permission_violation_rate: notApplicable(reason) }, reason, evidence: [] };
    }
    const reason =
      denied.length === 0
        ? `all ${judged.length} judged chunks are readable by the principal`
        : `chunks the principal may not read: ${denied.map((entry) => `${chunkLabel(entry.chunk)} (${entry.verdict === "denied_tenant" ? `tenant ${entry.chunk.tenant_id}` : `acl ${entry.chunk.acl!.join("|")}`})`).join(", ")}`;
    return { values: { permission_violation_rate: applicable(denied.length / judged.length) }, reason, evidence: denied.map((entry) => chunkLabel(entry.chunk)) };
  },
};
