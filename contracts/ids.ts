/**
 * Deterministic ids: a hash of what identifies the thing. A replay of the same
 * trace produces the same ids, so ClickHouse's ReplacingMergeTree collapses the
 * duplicate rows that at-least-once delivery creates (DESIGN.md "Delivery
 * guarantees").
 */
import { createHash, hash } from "node:crypto";

/**
 * SHA-256 of the parts, each followed by `\0<its length>\0`, as hex; the
 * first 32 characters follow the prefix. The text is hashed in one call
 * (crypto.hash): a hash object per id with two updates per part cost ~8 µs
 * an id, ~23 ids a trace. The bytes hashed are unchanged, so are the ids
 * (test/unit/contracts/ids.test.ts holds them to Python's hashlib).
 */
export function deterministicId(prefix: string, ...parts: string[]): string {
  let text = "";
  // A separator that cannot appear in the parts' lengths keeps ("ab","c") and ("a","bc") apart.
  for (const part of parts) text += `${part}\u0000${part.length}\u0000`;
  return `${prefix}_${sha256Hex(text).slice(0, 32)}`;
}

/** crypto.hash where the runtime has it (Node 20.12 and later), a hash object otherwise. */
const sha256Hex: (text: string) => string = typeof hash === "function" ? (text) => hash("sha256", text, "hex") : (text) => createHash("sha256").update(text).digest("hex");

/**
 * An offline run executes each case once: its result is keyed by
 * (run_id, case_id, case_version), so re-running the same run replaces the
 * earlier results instead of adding to them. Online traffic has no case: one
 * result per trace.
 *
 * A result's tenant is part of its id when it has one. Online, only the
 * authenticated tenant: a trace id is random per request, so two tenants'
 * requests share one only when a sender copies another's, which a claim does
 * not prevent anyway. For a run, the tenant its results are stored under —
 * the authenticated one, else the one its spans claim (`eval --tenant`, a
 * case's `context.tenant_id`): run ids are chosen by people, two tenants'
 * runs `release-7` over one dataset named the same (run, case, version), and
 * the later run's Evaluation Results replaced the earlier's. A result without
 * a tenant keeps the id of earlier releases, so stores, baselines and replays
 * of runs without one are unchanged.
 */
export function caseResultIdFor(linkage: { traceId: string; runId: string; caseId: string; caseVersion: string; authenticatedTenant?: string | null; claimedTenant?: string | null }): string {
  // One tenant sending another's run and case ids, or (authenticated) its trace id, makes a result of its own.
  if (linkage.runId !== "" && linkage.caseId !== "") {
    const tenant = linkage.authenticatedTenant || linkage.claimedTenant;
    return deterministicId("cr", ...(tenant ? ["tenant", tenant] : []), "run", linkage.runId, linkage.caseId, linkage.caseVersion);
  }
  return deterministicId("cr", ...(linkage.authenticatedTenant ? ["tenant", linkage.authenticatedTenant] : []), "trace", linkage.traceId);
}

export function evaluationResultIdFor(caseResultId: string, evaluatorId: string, evaluatorVersion: string): string {
  return deterministicId("er", caseResultId, evaluatorId, evaluatorVersion);
}
