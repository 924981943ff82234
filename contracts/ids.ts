/**
 * Deterministic ids: a hash of what identifies the thing. A replay of the same
 * trace produces the same ids, so ClickHouse's ReplacingMergeTree collapses the
 * duplicate rows that at-least-once delivery creates (DESIGN.md "Delivery
 * guarantees").
 */
import { createHash } from "node:crypto";

export function deterministicId(prefix: string, ...parts: string[]): string {
  const hash = createHash("sha256");
  for (const part of parts) {
    hash.update(part);
    // A separator that cannot appear in the parts' lengths keeps ("ab","c") and ("a","bc") apart.
    hash.update(`\u0000${part.length}\u0000`);
  }
  return `${prefix}_${hash.digest("hex").slice(0, 32)}`;
}

/**
 * An offline run executes each case once: its result is keyed by
 * (run_id, case_id, case_version), so re-running the same run replaces the
 * earlier results instead of adding to them. Online traffic has no case: one
 * result per trace.
 */
export function caseResultIdFor(linkage: { traceId: string; runId: string; caseId: string; caseVersion: string; authenticatedTenant?: string | null }): string {
  // With tenants authenticated by the receiver, a result's identity includes its tenant:
  // one tenant re-sending another's trace id (or run and case ids) makes a result of its own.
  const scope = linkage.authenticatedTenant ? ["tenant", linkage.authenticatedTenant] : [];
  if (linkage.runId !== "" && linkage.caseId !== "") return deterministicId("cr", ...scope, "run", linkage.runId, linkage.caseId, linkage.caseVersion);
  return deterministicId("cr", ...scope, "trace", linkage.traceId);
}

export function evaluationResultIdFor(caseResultId: string, evaluatorId: string, evaluatorVersion: string): string {
  return deterministicId("er", caseResultId, evaluatorId, evaluatorVersion);
}
