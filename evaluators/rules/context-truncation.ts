/**
 * Gold evidence lost between retrieval and the prompt (seed 004 §四 "去重、
 * 重排、截断和拼接"; root cause CONTEXT_TRUNCATED 关键证据被截断).
 *
 * A piece of gold evidence is truncated when the retrieved chunks (anywhere in
 * the final ranking) cover enough of it (evidence-set-coverage.ts) but it did
 * not reach the context by context.coverage's rule: a chunk holding it, or a
 * piece of it, was not packed (dropped — by the budget, a dedup or a policy;
 * the trace's dropped reason is quoted when recorded), or was cut and the
 * evidence text is gone (cut). The chunk named is the first retrieved piece
 * that did not reach the context whole.
 *
 * evidence_truncated: the count. evidence_truncated_rate: the count / gold
 * evidence that was retrieved; not applicable when none was retrieved (the
 * loss is then retrieval's, not packing's). Lower is better, informational per
 * case: context_recall already fails a case whose evidence is missing.
 */
import { chunkLabel, type CaseResult, type RetrievedChunk } from "../../contracts/case-result.js";
import type { EvalCase } from "../../contracts/eval-case.js";
import type { Evaluator, MetricDescriptor } from "../evaluator.js";
import { caseGoldEvidence, needsEvidenceReason } from "../evidence/case-gold-evidence.js";
import { evidenceCoverageOptions } from "../evidence/evidence-coverage-options.js";
import { coverEvidence } from "../evidence/evidence-set-coverage.js";
import { applicable, notApplicable } from "../metric-value.js";
import { coverageOfEachEvidence } from "./context-evidence-coverage.js";
import { metricKeys } from "../metric-keys.js";

const metrics: MetricDescriptor[] = [
  { name: "evidence_truncated", description: "retrieved gold evidence dropped from or cut in the context", range: null, direction: "lower_is_better", defaultThreshold: null },
  { name: "evidence_truncated_rate", description: "retrieved gold evidence dropped from or cut in the context / retrieved gold evidence", range: [0, 1], direction: "lower_is_better", defaultThreshold: null },
];

export interface LostEvidence {
  /** Index in the case's gold_evidence. */
  goldIndex: number;
  /** The retrieved chunk that held it. */
  chunkId: string;
  how: "dropped" | "cut" | "not_in_context_text";
  droppedReason: string | null;
}

export interface TruncationFindings {
  retrievedEvidence: number;
  lost: LostEvidence[];
}

/** Null when the trace recorded no retrieval or no context, or the case has no gold evidence. */
export function findTruncatedEvidence(caseResult: CaseResult, evalCase: EvalCase): TruncationFindings | null {
  const observation = caseResult.rag_observation;
  const chunks = observation.retrieved_chunks;
  if (chunks === null || evalCase.gold_evidence.length === 0) return null;
  const coverage = coverageOfEachEvidence(caseResult, evalCase);
  if (coverage.every((entry) => entry.inContext === null)) return null;
  const packed = observation.context_chunks;
  const options = evidenceCoverageOptions(evalCase);
  const lost: LostEvidence[] = [];
  let retrievedEvidence = 0;
  coverage.forEach((entry, goldIndex) => {
    const retrieved = coverEvidence(chunks, entry.evidence, options);
    if (retrieved.coveredAt === null || entry.inContext === null) return;
    retrievedEvidence += 1;
    if (entry.inContext) return;
    const pieces = retrieved.contributors.map((position) => chunks[position]!);
    // A chunk without an id is never the packed entry without an id: nothing says they are the same chunk.
    const packedEntryOf = (chunk: RetrievedChunk) => (chunk.chunk_id === null ? undefined : packed?.find((candidate) => candidate.chunk_id === chunk.chunk_id));
    const notWhole = pieces.find((chunk) => {
      const packedEntry = packedEntryOf(chunk);
      return packedEntry === undefined || packedEntry.truncated;
    });
    const holder = notWhole ?? pieces[0]!;
    const packedEntry = packedEntryOf(holder);
    const how = packed === null ? "not_in_context_text" : packedEntry?.truncated ? "cut" : "dropped";
    const droppedReason = observation.dropped_chunks?.find((dropped) => dropped.chunk_id === holder.chunk_id)?.reason ?? null;
    lost.push({ goldIndex, chunkId: chunkLabel(holder), how, droppedReason });
  });
  return { retrievedEvidence, lost };
}

/** The metrics this evaluator produces (context layer). */
export const contextTruncationMetrics = metricKeys(["evidence_truncated", "evidence_truncated_rate"]);

export const contextTruncationEvaluator: Evaluator = {
  id: "context.truncation",
  // 2: evidence matched by coverage (evaluators/evidence/text-coverage.ts) instead of containment.
  // 3: evidence given with its document id and its text is matched by its text within the document (match-evidence.ts).
  version: "3",
  layer: "context",
  description: "Gold evidence that was retrieved but dropped from or cut in the context",
  requires: ["case", "gold_evidence"],
  costClass: "rule",
  confidence: "deterministic_rule",
  metrics,
  evaluate({ caseResult, evalCase }) {
    const findings = evalCase ? findTruncatedEvidence(caseResult, evalCase) : null;
    if (findings === null) {
      const gold = evalCase ? caseGoldEvidence(evalCase) : null;
      const reason = gold === null
        ? "the trace is not linked to an Eval Case"
        : gold.documentsOnly
          ? needsEvidenceReason(gold, "truncation (whether the chunk holding it was dropped or cut)")
          : "no gold evidence, or the trace recorded no retrieval or no context";
      const value = notApplicable(reason);
      return { values: { evidence_truncated: value, evidence_truncated_rate: value }, reason: `not applicable: ${reason}`, evidence: [] };
    }
    const { retrievedEvidence, lost } = findings;
    const rate = retrievedEvidence === 0 ? notApplicable("no gold evidence was retrieved") : applicable(lost.length / retrievedEvidence);
    const described = lost.map((entry) => `gold #${entry.goldIndex + 1} in ${entry.chunkId} ${entry.how.replaceAll("_", " ")}${entry.droppedReason ? ` (${entry.droppedReason})` : ""}`);
    const reason = lost.length === 0 ? `${retrievedEvidence} retrieved gold evidence all reached the context` : described.join("; ");
    return { values: { evidence_truncated: applicable(lost.length), evidence_truncated_rate: rate }, reason, evidence: lost.map((entry) => entry.chunkId) };
  },
};
