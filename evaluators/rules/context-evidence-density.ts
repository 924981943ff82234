/**
 * evidence_density (seed 004 §四.4: Evidence Density = 有效证据 Token 数 /
 * 上下文总 Token 数), read at chunk level: tokens of the packed chunks that
 * hold gold evidence / tokens of all packed chunks (a chunk's other sentences
 * count with its evidence: the reason says "in chunks holding", never that
 * every such token is evidence), counted with our tokenizer (tokenize in
 * text/normalize-text.ts: one token per CJK character, one per word), both
 * as the prompt holds them (packed-evidence.ts).
 *
 * A packed chunk is evidence when it holds any gold evidence in the prompt
 * (enough of it alone, or an indispensable piece of a split:
 * evidence-set-coverage.ts); a second copy of the same chunk id is not —
 * repeated evidence is not effective evidence. A chunk cut to fit the budget
 * counts only the tokens the context text still has, and is evidence only
 * when what it kept still holds the evidence: a gold chunk whose evidence
 * sentence was cut off adds context tokens and no evidence tokens. Not
 * applicable without a case with gold evidence, without recorded packed
 * chunks, when a packed chunk's text was not recorded, or when a chunk was
 * cut and the trace recorded no context text (in each the denominator would
 * be a guess).
 */
import { chunkLabel, type CaseResult } from "../../contracts/case-result.js";
import type { EvalCase } from "../../contracts/eval-case.js";
import type { Evaluator, MetricDescriptor } from "../evaluator.js";
import { caseGoldEvidence, needsEvidenceReason } from "../evidence/case-gold-evidence.js";
import { evidenceCoverageOptions } from "../evidence/evidence-coverage-options.js";
import { packedChunks, type PackedChunk } from "../evidence/packed-chunks.js";
import { applicable, notApplicable, type MetricValue } from "../metric-value.js";
import { metricKeys } from "../metric-keys.js";
import { tokenize } from "../text/normalize-text.js";
import { packedChunksHoldingEvidence, tokensInContext } from "./packed-evidence.js";

const metrics: MetricDescriptor[] = [
  { name: "evidence_density", description: "tokens of packed chunks holding gold evidence / tokens of all packed chunks, as the prompt holds them (a cut chunk by what the cut kept)", range: [0, 1], direction: "higher_is_better", defaultThreshold: null },
];

export interface EvidenceDensity {
  value: MetricValue;
  evidenceChunkIds: string[];
  evidenceTokens: number;
  contextTokens: number;
  /** Chunks cut to fit the budget: their tokens in the prompt, of all their tokens. */
  cutChunks: { chunkId: string; tokensKept: number; tokens: number }[];
}

export function evidenceDensity(caseResult: CaseResult, evalCase: EvalCase | null): EvidenceDensity {
  const none = (reason: string): EvidenceDensity => ({ value: notApplicable(reason), evidenceChunkIds: [], evidenceTokens: 0, contextTokens: 0, cutChunks: [] });
  if (!evalCase) return none("the trace is not linked to an Eval Case");
  const gold = evalCase.gold_evidence;
  if (gold.length === 0) return none(needsEvidenceReason(caseGoldEvidence(evalCase), "evidence density (the prompt tokens that hold it)"));
  const packed = packedChunks(caseResult);
  if (packed === null) return none("the trace did not record which chunks were packed");
  const withoutText = packed.filter((chunk) => chunk.text === null);
  if (withoutText.length > 0) return none(`the text of packed chunk(s) ${withoutText.map(chunkLabel).join(", ")} was not recorded`);
  const contextText = caseResult.rag_observation.context;
  const inPrompt = packed.map((chunk) => tokensInContext(chunk, contextText));
  const unknown = packed.filter((_, index) => inPrompt[index] === null);
  if (unknown.length > 0) return none(`packed chunk(s) ${unknown.map(chunkLabel).join(", ")} were cut and the trace recorded no context text, so what reached the prompt is unknown`);
  // A packed chunk without an id is its own entry: never taken for a repeat of another.
  const seen = new Set<string | PackedChunk>();
  const evidenceChunkIds: string[] = [];
  let evidenceTokens = 0;
  let contextTokens = 0;
  const holding = packedChunksHoldingEvidence(packed, gold, contextText, evidenceCoverageOptions(evalCase));
  for (const [index, chunk] of packed.entries()) {
    const tokens = inPrompt[index]!;
    contextTokens += tokens;
    const first = !seen.has(chunk.chunk_id ?? chunk);
    seen.add(chunk.chunk_id ?? chunk);
    if (first && holding[index]) {
      evidenceTokens += tokens;
      evidenceChunkIds.push(chunkLabel(chunk));
    }
  }
  if (contextTokens === 0) return none("the packed chunks hold no tokens");
  const cutChunks = packed.flatMap((chunk, index) => (chunk.truncated ? [{ chunkId: chunkLabel(chunk), tokensKept: inPrompt[index]!, tokens: tokenize(chunk.text!).length }] : []));
  return { value: applicable(evidenceTokens / contextTokens), evidenceChunkIds, evidenceTokens, contextTokens, cutChunks };
}

/** The metrics this evaluator produces (context layer). */
export const contextEvidenceDensityMetrics = metricKeys(["evidence_density"]);

export const contextEvidenceDensityEvaluator: Evaluator = {
  id: "context.density",
  // 2: evidence matched by coverage (evaluators/evidence/text-coverage.ts) instead of containment.
  // 3: a chunk cut to fit the budget counts what the context text kept of it, not its whole text.
  // 4: evidence given with its document id and its text is matched by its text within the document (match-evidence.ts).
  version: "4",
  layer: "context",
  description: "Share of the context's tokens in packed chunks that hold gold evidence (a chunk-level reading of the seed's evidence tokens)",
  requires: ["case", "gold_evidence"],
  costClass: "rule",
  confidence: "deterministic_rule",
  metrics,
  evaluate({ caseResult, evalCase }) {
    const density = evidenceDensity(caseResult, evalCase);
    const cut = density.cutChunks.map((chunk) => `${chunk.chunkId} was cut to fit: ${chunk.tokensKept} of its ${chunk.tokens} tokens are in the prompt${density.evidenceChunkIds.includes(chunk.chunkId) ? "" : ", and they hold no gold evidence"}`);
    const reason = density.value.applicable ? [`${density.evidenceTokens} of ${density.contextTokens} context tokens are in chunks holding gold evidence`, ...cut].join("; ") : `not applicable: ${density.value.reason}`;
    return { values: { evidence_density: density.value }, reason, evidence: density.evidenceChunkIds };
  },
};
