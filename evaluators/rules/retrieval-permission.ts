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
 * Every chunk retrieval returned counts, at every stage: with a rerank, the
 * first stage's chunks (`pre_rerank_chunks`) as well as the reranked ones
 * (seed 004 §八: 用户是否能检索到无权访问的文档 — a chunk the rerank then
 * dropped was still retrieved for the user). A chunk listed at both stages is
 * one chunk (matched by id, else by document and text); the reason says at
 * which stage each chunk the principal may not read appeared.
 *
 * Any violation fails the case ("= 0"): a permission leak is a veto, never
 * averaged away (seed 004 §十三 "一票否决").
 */
import type { Evaluator, MetricDescriptor } from "../evaluator.js";
import { applicable, notApplicable } from "../metric-value.js";
import { accessVerdict, aclNotAvailable, aclNotAvailableReason, isDenied, principalOf } from "./retrieval-access-control.js";
import { chunkLabel, type RagObservation, type RetrievedChunk } from "../../contracts/case-result.js";
import { metricKeys } from "../metric-keys.js";
import { chunkIdentityOf } from "./chunk-identity.js";

const metrics: MetricDescriptor[] = [
  {
    name: "permission_violation_rate",
    description: "retrieved chunks the principal may not read (ACL or tenant) / retrieved chunks whose access could be judged, before and after any rerank",
    range: [0, 1],
    direction: "lower_is_better",
    defaultThreshold: "= 0",
  },
];

/**
 * Where a retrieved chunk appeared: the only ranking (no rerank recorded), before and after a rerank, or before a
 * rerank whose output is not available (its span lost it: collector/06-rebuild/rebuild-case-result.ts), where
 * whether the rerank kept it is not known.
 */
export type RetrievalStage = "retrieved" | "before_rerank_only" | "before_and_after_rerank" | "after_rerank_only" | "before_rerank_output_not_available";

export const STAGE_TEXT: Record<RetrievalStage, string> = {
  retrieved: "retrieved",
  before_rerank_only: "retrieved by the first stage, dropped by the rerank",
  before_and_after_rerank: "retrieved by the first stage and kept by the rerank",
  after_rerank_only: "returned by the rerank",
  before_rerank_output_not_available: "retrieved by the first stage; the rerank's output is not available, so whether it kept it is not known",
};

export interface StagedChunk {
  chunk: RetrievedChunk;
  stage: RetrievalStage;
}

/** Every distinct chunk retrieval returned, first stage and rerank, with where it appeared; null when no retrieval was recorded. */
export function retrievedAtAnyStage(observation: Pick<RagObservation, "retrieved_chunks" | "pre_rerank_chunks">): StagedChunk[] | null {
  const after = observation.retrieved_chunks;
  const before = observation.pre_rerank_chunks;
  if (before === null) return after === null ? null : after.map((chunk) => ({ chunk, stage: "retrieved" }));
  // A rerank without its output: none of the first stage's chunks is known to be dropped, nor kept.
  const firstStage: RetrievalStage = after === null ? "before_rerank_output_not_available" : "before_rerank_only";
  const staged = new Map<string | RetrievedChunk, StagedChunk>();
  for (const chunk of before) if (!staged.has(chunkIdentityOf(chunk))) staged.set(chunkIdentityOf(chunk), { chunk, stage: firstStage });
  for (const chunk of after ?? []) {
    const seen = staged.get(chunkIdentityOf(chunk));
    if (seen === undefined) staged.set(chunkIdentityOf(chunk), { chunk, stage: "after_rerank_only" });
    else if (seen.stage === "before_rerank_only") seen.stage = "before_and_after_rerank";
  }
  return [...staged.values()];
}

/** The metrics this evaluator produces (boundaries layer). */
export const retrievalPermissionMetrics = metricKeys(["permission_violation_rate"]);

export const retrievalPermissionEvaluator: Evaluator = {
  id: "retrieval.permission",
  // 2: every chunk retrieved is checked, the retriever's own list before a rerank too, not only the final list.
  version: "2",
  layer: "boundaries",
  description: "Did retrieval return chunks the requesting principal may not read (ACL, tenant)",
  requires: [],
  costClass: "rule",
  confidence: "deterministic_rule",
  metrics,
  evaluate({ caseResult, evalCase }) {
    const staged = retrievedAtAnyStage(caseResult.rag_observation);
    if (staged === null) return { values: { permission_violation_rate: notApplicable("the trace recorded no retrieval") }, reason: "not applicable: the trace recorded no retrieval", evidence: [] };
    const principal = principalOf(caseResult, evalCase);
    const reranked = caseResult.rag_observation.pre_rerank_chunks !== null;
    const judged = staged.map((entry) => ({ ...entry, verdict: accessVerdict(entry.chunk, principal) })).filter((entry) => entry.verdict !== "unknown");
    if (judged.length === 0) {
      const reason = `no retrieved chunk's access could be judged${reranked ? " at either stage of retrieval" : ""} (no ACL or tenant on the chunks, or no principal groups or tenant on the request)`;
      return { values: { permission_violation_rate: notApplicable(reason) }, reason: `not applicable: ${reason}`, evidence: [] };
    }
    const denied = judged.filter((entry) => isDenied(entry.verdict));
    const unchecked = aclNotAvailable(staged.map((entry) => entry.chunk), principal);
    if (denied.length === 0 && unchecked.length > 0) {
      const reason = aclNotAvailableReason(unchecked, "retrieved");
      return { values: { permission_violation_rate: notApplicable(reason) }, reason, evidence: [] };
    }
    const reason =
      denied.length === 0
        ? `all ${judged.length} judged chunks are readable by the principal${!reranked ? "" : caseResult.rag_observation.retrieved_chunks === null ? " (every chunk the first stage retrieved; the rerank's output is not available, so the chunks after it are not judged)" : " (every chunk retrieved, before and after the rerank)"}`
        : `chunks the principal may not read: ${denied.map((entry) => `${chunkLabel(entry.chunk)} (${entry.verdict === "denied_tenant" ? `tenant ${entry.chunk.tenant_id}` : `acl ${entry.chunk.acl!.join("|")}`}; ${STAGE_TEXT[entry.stage]})`).join(", ")}`;
    return { values: { permission_violation_rate: applicable(denied.length / judged.length) }, reason, evidence: denied.map((entry) => chunkLabel(entry.chunk)) };
  },
};
