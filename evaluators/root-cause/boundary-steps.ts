/**
 * Steps that outrank every quality layer: a permission leak is a veto
 * whatever else went wrong, and answering an unanswerable question (or
 * refusing an answerable one whose evidence the model had) is decided by the
 * answer's behaviour alone.
 */
import { chunkLabel, type RetrievedChunk } from "../../contracts/case-result.js";
import { citedChunks } from "../rules/citation-evidence.js";
import { accessVerdict, isDenied } from "../rules/retrieval-access-control.js";
import { retrievedAtAnyStage, STAGE_TEXT } from "../rules/retrieval-permission.js";
import { abstained, HEURISTIC_READING } from "./attribution-facts.js";
import type { RootCauseStep } from "./root-cause-step.js";
import { METRIC } from "../metric-catalog.js";

export const permissionLeakStep: RootCauseStep = {
  label: "PERMISSION_LEAK",
  when: "a retrieved (before or after a rerank), packed or cited chunk belongs to another tenant or has an ACL the principal's groups do not satisfy",
  decide(facts) {
    // A chunk without an id is its own entry: never merged into another. The first stage's chunks count too: a chunk
    // the rerank dropped was still retrieved for the principal (retrieval-permission.ts).
    const staged = retrievedAtAnyStage({ retrieved_chunks: facts.retrieved, pre_rerank_chunks: facts.preRerank }) ?? [];
    const packed = facts.packed ?? [];
    const cited = citedChunks(facts.caseResult) ?? [];
    const seen = new Map<string | RetrievedChunk, RetrievedChunk>();
    for (const chunk of [...staged.map((entry) => entry.chunk), ...packed, ...cited]) if (!seen.has(chunk.chunk_id ?? chunk)) seen.set(chunk.chunk_id ?? chunk, chunk);
    const denied = [...seen.values()].filter((chunk) => isDenied(accessVerdict(chunk, facts.principal)));
    if (denied.length === 0) return null;
    const sameChunk = (chunk: RetrievedChunk) => (other: RetrievedChunk) => other === chunk || (chunk.chunk_id !== null && other.chunk_id === chunk.chunk_id);
    // Where the chunk appeared: the retrieval stage, and whether it reached the prompt or the citations.
    const where = (chunk: RetrievedChunk) =>
      [
        ...staged.filter((entry) => sameChunk(chunk)(entry.chunk)).map((entry) => STAGE_TEXT[entry.stage]),
        ...(packed.some(sameChunk(chunk)) ? ["packed into the context"] : []),
        ...(cited.some(sameChunk(chunk)) ? ["cited"] : []),
      ].join(", ");
    return {
      reason: `the principal may not read ${denied.map((chunk) => `${chunkLabel(chunk)} (${accessVerdict(chunk, facts.principal) === "denied_tenant" ? `tenant ${chunk.tenant_id}` : `acl ${chunk.acl!.join("|")}`}; ${where(chunk)})`).join(", ")}`,
      chunkIds: denied.map(chunkLabel),
      metrics: [METRIC.permission_violation_rate, METRIC.permission_leak_rate, METRIC.cited_permission_violation_rate],
      confidence: "deterministic_rule",
    };
  },
};

export const shouldAbstainStep: RootCauseStep = {
  label: "SHOULD_ABSTAIN",
  when: "the case is unanswerable (answerable: false) and the answer gave one instead of abstaining",
  decide(facts) {
    if (facts.evalCase?.answerable !== false || !facts.answered || abstained(facts)) return null;
    const how = facts.abstention === null ? "no abstention was recorded or detected" : facts.abstention.source === "trace_flag" ? "the trace flags no abstention" : "the answer holds no refusal phrase";
    const flagged = facts.abstention?.source === "trace_flag";
    return {
      reason: `${flagged ? "" : `${HEURISTIC_READING} `}the case is unanswerable but the system answered (${how})`,
      metrics: [METRIC.abstained, METRIC.abstention_correct],
      confidence: flagged ? "deterministic_rule" : "heuristic",
    };
  },
};

export const overAbstainWithEvidenceStep: RootCauseStep = {
  label: "OVER_ABSTAIN",
  when: "the case is answerable, the answer abstained, and every piece of gold evidence was in the context",
  decide(facts) {
    if (facts.evalCase?.answerable !== true || !abstained(facts) || facts.gold.length === 0) return null;
    if (!facts.gold.every((trail) => trail.inContext === true)) return null;
    const flagged = facts.abstention?.source === "trace_flag";
    return {
      reason: `${flagged ? "" : `${HEURISTIC_READING} `}the answer abstained although all gold evidence was in the context`,
      chunkIds: facts.gold.map((trail) => trail.coveringChunkId).filter((id): id is string => id !== null),
      metrics: [METRIC.abstained, METRIC.abstention_correct, METRIC.context_recall],
      confidence: flagged ? "deterministic_rule" : "heuristic",
    };
  },
};
