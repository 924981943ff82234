/**
 * What the root-cause procedure knows about one case, gathered once: where
 * each piece of gold evidence was in the rankings and whether it reached the
 * context (with the same matching rules the metrics use), the stored metric
 * values, which evaluators failed, and whether the answer abstained.
 */
import type { CaseResult, RetrievedChunk } from "../../contracts/case-result.js";
import type { EvalCase, GoldEvidence } from "../../contracts/eval-case.js";
import type { EvaluationResult } from "../../contracts/evaluation-result.js";
import { caseGoldEvidence, unmatchedDocumentsReason } from "../evidence/case-gold-evidence.js";
import { evidenceCoverageOptions, type EvidenceCoverageOptions } from "../evidence/evidence-coverage-options.js";
import { goldEvidenceLabel } from "../evidence/gold-evidence-label.js";
import { firstCoveredRank } from "../evidence/evidence-ranking.js";
import { packedChunks, type PackedChunk } from "../evidence/packed-chunks.js";
import { generatorContext } from "../online/generator-context.js";
import { decideAbstention, type AbstentionDecision } from "../rules/answer-abstention.js";
import { coverageOfEachEvidence } from "../rules/context-evidence-coverage.js";
import { principalOf, type Principal } from "../rules/retrieval-access-control.js";
import { effectiveAtOf, isNotInForce, versionStatus, type EffectiveAt } from "../rules/retrieval-effective-time.js";
import type { MetricName } from "../metric-catalog.js";

/** The K of recall_at_k (retrieval-ranking.ts): evidence below it was not found. */
export const RETRIEVAL_K = 5;

export interface GoldTrail {
  index: number;
  evidence: GoldEvidence;
  /** 1-based rank in retrieved_chunks at which the chunks so far cover enough of the evidence (evidence-set-coverage.ts), or null. */
  finalRank: number | null;
  /** Same in pre_rerank_chunks; null when not found or no rerank was recorded. */
  preRerankRank: number | null;
  /** Null when the trace cannot tell (no context recorded). */
  inContext: boolean | null;
  coveringChunkId: string | null;
}

export interface StoredMetric {
  value: number;
  evaluationResultId: string;
  outcome: EvaluationResult["outcome"];
  /** The evaluator's confidence semantics: `heuristic` for the heuristic judge's and overlap measures' values. */
  semantics: EvaluationResult["confidence"]["semantics"];
}

export type EvaluatorLayer = "retrieval" | "context" | "citation" | "performance" | "answer";

export interface AttributionOptions {
  /**
   * Document ids present in the corpus the run used (`ragscope eval --corpus`).
   * Without it a gold document that was never retrieved cannot be told from a
   * retrieval miss.
   */
  corpusDocumentIds?: ReadonlySet<string>;
  /** Where that index came from, named in the DATA_MISSING reason (e.g. `--corpus corpus.txt`). */
  corpusSource?: string;
}

export interface AttributionFacts {
  caseResult: CaseResult;
  evalCase: EvalCase | null;
  options: AttributionOptions;
  /** Gold evidence with relevance >= 1 (a case's relevant documents when it names documents only: case-gold-evidence.ts). */
  gold: GoldTrail[];
  retrieved: RetrievedChunk[] | null;
  preRerank: RetrievedChunk[] | null;
  packed: PackedChunk[] | null;
  /** What the generator saw (online/generator-context.ts): the context text, else packed, else retrieved chunk texts. */
  contextText: string | null;
  effectiveAt: EffectiveAt | null;
  principal: Principal;
  abstention: AbstentionDecision | null;
  /** The answer has text. */
  answered: boolean;
  failed: EvaluationResult[];
  metric(name: MetricName): StoredMetric | null;
  isStale(chunk: RetrievedChunk): boolean;
}

export const ROOT_CAUSE_EVALUATOR_ID = "root_cause";

/**
 * Opens the reason of a finding that text overlap or text extraction decided
 * (root-cause-attribution.ts confidence `heuristic`): a reviewer reads it as
 * a lead to check, not as what a rule or a judge established.
 */
export const HEURISTIC_READING = "heuristic reading of the texts, not a verdict —";

/**
 * The pipeline layer an evaluator judges, from its id's family
 * (`retrieval.ranking` → retrieval). A judge evaluator (`judge.<metric>`) is
 * placed by its metric: judge.citation_support is a citation check,
 * judge.context_* a context check, every other one (faithfulness,
 * correctness, …) and every unknown family the answer.
 */
export function layerOf(evaluatorId: string): EvaluatorLayer {
  const [family, rest = ""] = evaluatorId.split(/\.(.*)/s);
  const subject = family === "judge" ? rest.split("_")[0] : family;
  return subject === "retrieval" || subject === "context" || subject === "citation" || subject === "performance" ? subject : "answer";
}

export function gatherFacts(caseResult: CaseResult, evalCase: EvalCase | null, evaluationResults: readonly EvaluationResult[], options: AttributionOptions = {}): AttributionFacts {
  const observation = caseResult.rag_observation;
  const results = evaluationResults.filter((result) => result.evaluator_id !== ROOT_CAUSE_EVALUATOR_ID && result.case_result_id === caseResult.case_result_id);
  // A case naming relevant documents only has document-level trails (case-gold-evidence.ts) — none when a ranking
  // carries no document ids to place them by: a document "not retrieved" there would be a RETRIEVAL_MISS not seen.
  const caseGold = caseGoldEvidence(evalCase);
  const placeable = [observation.retrieved_chunks, observation.pre_rerank_chunks].every((chunks) => chunks === null || unmatchedDocumentsReason(caseGold, chunks) === null);
  const relevant = (placeable ? caseGold.evidence : []).map((evidence, index) => ({ evidence, index })).filter((entry) => entry.evidence.relevance >= 1);
  const coverageOptions: EvidenceCoverageOptions = evidenceCoverageOptions(evalCase);
  // Whether a document's evidence reached the context is not known (which of its chunks holds it is not): null, as for a trace without a context.
  const coverage = evalCase && !caseGold.documentsOnly ? coverageOfEachEvidence(caseResult, evalCase, relevant.map((entry) => entry.evidence)) : [];
  const gold = relevant.map(({ evidence, index }, position): GoldTrail => ({
    index,
    evidence,
    finalRank: firstCoveredRank(observation.retrieved_chunks, evidence, coverageOptions),
    preRerankRank: firstCoveredRank(observation.pre_rerank_chunks, evidence, coverageOptions),
    inContext: coverage[position]?.inContext ?? null,
    coveringChunkId: coverage[position]?.coveringChunkId ?? null,
  }));
  const packed = packedChunks(caseResult);
  const effectiveAt = effectiveAtOf(caseResult, evalCase);
  const stored = new Map<string, StoredMetric>();
  for (const result of results) {
    for (const [name, value] of Object.entries(result.metric_values)) {
      if (value !== null && Number.isFinite(value) && !stored.has(name)) stored.set(name, { value, evaluationResultId: result.evaluation_result_id, outcome: result.outcome, semantics: result.confidence.semantics });
    }
  }
  return {
    caseResult,
    evalCase,
    options,
    gold,
    retrieved: observation.retrieved_chunks,
    preRerank: observation.pre_rerank_chunks,
    packed,
    contextText: generatorContext(caseResult)?.text ?? null,
    effectiveAt,
    principal: principalOf(caseResult, evalCase),
    abstention: decideAbstention(observation.abstained, caseResult.output),
    answered: (caseResult.output ?? "").trim() !== "",
    failed: results.filter((result) => result.outcome === "failed"),
    metric: (name) => stored.get(name) ?? null,
    isStale: (chunk) => effectiveAt !== null && isNotInForce(versionStatus(chunk, effectiveAt.instant)),
  };
}

export function abstained(facts: AttributionFacts): boolean {
  return facts.abstention?.abstained === true;
}

export function answerLayerFailed(facts: AttributionFacts): EvaluationResult[] {
  return facts.failed.filter((result) => layerOf(result.evaluator_id) === "answer");
}

export function goldLabel(trail: GoldTrail): string {
  return `gold #${trail.index + 1} (${goldEvidenceLabel(trail.evidence)})`;
}
