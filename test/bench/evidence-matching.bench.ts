/**
 * Evidence matching per trace, as it runs online: 20 retrieved chunks of
 * 2,000 characters and 3 pieces of gold evidence (300–2,000 characters) split
 * across them, Chinese text. Measured cold (every trace has texts never seen,
 * so the normalisation memo does not help) for:
 * - rankEvidence alone (the ranking metrics' evidence ranking);
 * - the evaluators that match evidence (retrieval ranking and coverage,
 *   context coverage, density and truncation, citations), as evaluate-case
 *   runs them on one trace.
 * And the same with 200,000-character chunks' worth (20 × 20,000) to show the
 * cost grows linearly with the text, not with its square.
 *
 * Inputs come from a seeded generator (mulberry32); generation is outside the
 * timed part.
 */
import type { CaseResult } from "../../contracts/case-result.js";
import type { EvalCase } from "../../contracts/eval-case.js";
import { rankEvidence } from "../../evaluators/evidence/evidence-ranking.js";
import { citationAccuracyEvaluator } from "../../evaluators/rules/citation-accuracy.js";
import { citationEvidenceEvaluator } from "../../evaluators/rules/citation-evidence.js";
import { contextCoverageEvaluator } from "../../evaluators/rules/context-coverage.js";
import { contextEvidenceDensityEvaluator } from "../../evaluators/rules/context-evidence-density.js";
import { contextTruncationEvaluator } from "../../evaluators/rules/context-truncation.js";
import { retrievalCoverageEvaluator } from "../../evaluators/rules/retrieval-coverage.js";
import { retrievalRankingEvaluator } from "../../evaluators/rules/retrieval-ranking.js";
import { buildCase, buildCaseResult } from "../support/case-results.js";
import type { BenchmarkResult } from "./benchmark.js";
import { seededRandom } from "../../core/seeded-random.js";

const TRACES = 200;
const CHUNKS = 20;
const SEED = 20260708;
const CHARACTERS = "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你明看原又么利比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料象员革位入常文总次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指几九区强放决西被干做必战先回则任取据处队南给色光门即保治北造百规热领";

interface Trace {
  caseResult: CaseResult;
  evalCase: EvalCase;
}

function generateTraces(random: () => number, count: number, chunkLength: number): Trace[] {
  const text = (length: number) => Array.from({ length }, () => CHARACTERS[Math.floor(random() * CHARACTERS.length)]).join("");
  return Array.from({ length: count }, () => {
    const document = text(CHUNKS * chunkLength);
    const chunks = Array.from({ length: CHUNKS }, (_, index) => ({ chunk_id: `c${index}`, text: document.slice(index * chunkLength, (index + 1) * chunkLength) }));
    const gold = Array.from({ length: 3 }, () => {
      const length = Math.floor(chunkLength * (0.15 + random() * 0.85));
      const start = Math.floor(random() * (document.length - length));
      return { document_id: "policy", text: document.slice(start, start + length) };
    });
    const order = chunks.map((chunk) => ({ chunk, key: random() })).sort((first, second) => first.key - second.key).map((entry) => entry.chunk);
    return {
      evalCase: buildCase({ gold_evidence: gold }),
      caseResult: buildCaseResult({ retrieved: order, contextChunkIds: order.slice(0, 10).map((chunk) => chunk.chunk_id), context: order.slice(0, 10).map((chunk) => chunk.text).join("\n"), citations: order.slice(0, 3).map((chunk) => chunk.chunk_id) }),
    };
  });
}

const evaluators = [retrievalRankingEvaluator, retrievalCoverageEvaluator, contextCoverageEvaluator, contextEvidenceDensityEvaluator, contextTruncationEvaluator, citationAccuracyEvaluator, citationEvidenceEvaluator];

function measure(traces: readonly Trace[], run: (trace: Trace) => void): number {
  const started = process.hrtime.bigint();
  for (const trace of traces) run(trace);
  return Number(process.hrtime.bigint() - started) / 1e6 / traces.length;
}

export function benchmark(): BenchmarkResult {
  const random = seededRandom(SEED);
  // Warm-up on separate traces, so the JIT has compiled the paths before the timed runs.
  const warmUp = generateTraces(random, 20, 2_000);
  for (const trace of warmUp) for (const evaluator of evaluators) evaluator.evaluate(trace);

  const rankingTraces = generateTraces(random, TRACES, 2_000);
  const rankingMs = measure(rankingTraces, (trace) => rankEvidence(trace.caseResult.rag_observation.retrieved_chunks!, trace.evalCase.gold_evidence));
  const evaluatorTraces = generateTraces(random, TRACES, 2_000);
  const evaluatorsMs = measure(evaluatorTraces, (trace) => {
    for (const evaluator of evaluators) evaluator.evaluate(trace);
  });
  const largeTraces = generateTraces(random, TRACES / 10, 20_000);
  const largeRankingMs = measure(largeTraces, (trace) => rankEvidence(trace.caseResult.rag_observation.retrieved_chunks!, trace.evalCase.gold_evidence));

  return {
    title: `Evidence matching per trace, cold: ${CHUNKS} chunks, 3 gold evidence, Chinese`,
    figures: [
      { name: "rankEvidence, 20 × 2,000 characters", value: rankingMs, unit: "ms/trace" },
      { name: "7 evidence-matching evaluators, 20 × 2,000 characters", value: evaluatorsMs, unit: "ms/trace" },
      { name: "rankEvidence, 20 × 20,000 characters", value: largeRankingMs, unit: "ms/trace" },
      { name: "growth for 10× the text (linear ≈ 10)", value: largeRankingMs / rankingMs },
    ],
  };
}
