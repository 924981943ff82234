/**
 * The deterministic heuristic judge of the embedded default (DESIGN.md: "judge:
 * deterministic heuristic judge, marked as such"). It answers every judged
 * metric without a model, at no cost, and marks itself
 * `confidenceSemantics: "heuristic"` so its values are never read as a
 * language model's. The pass rules are the rubrics' (judge-thresholds.ts).
 *
 * - faithfulness: claims (heuristic-support.ts, on the online heuristic
 *   groundedness check) supported by the context / claims; no claim → 1, as in
 *   the LLM rubric.
 * - answer_relevance: share of the question's content units (online/
 *   content-units.ts) the answer repeats; an abstention scores 2/3, as in the
 *   LLM rubric.
 * - context_precision_judged: documents holding at least
 *   RELEVANCE_RECALL_THRESHOLD of the question's content units / documents.
 * - context_sufficiency_judged: share of the reference answer's claims (else of
 *   the question's content units) the context supports.
 * - completeness_judged: key-point coverage (evaluators/text/key-point-coverage.ts).
 * - citation_support: cited chunks that support at least one claim of the
 *   answer / cited chunks.
 * - answer_correctness: token F1 with the reference answer, 0 when the answer
 *   contradicts a number of the reference (fact-agreement.ts).
 */
import { satisfies } from "../threshold.js";
import { findAbstentionPhrase } from "../text/abstention-phrases.js";
import { factAgreement } from "../text/fact-agreement.js";
import { keyPointCoverage } from "../text/key-point-coverage.js";
import { tokenF1 } from "../text/token-f1.js";
import { assessClaims, contentRecall, prepareDocuments } from "./heuristic-support.js";
import type { Judge, JudgeMetric, JudgeOutcome, JudgeRequest } from "./judge.js";
import { noUsage } from "./judge.js";
import { judgeInputsFor, type JudgeInputs } from "./judge-inputs.js";
import { thresholdFor } from "./judge-thresholds.js";
import { rubricFor } from "./rubrics/rubric-registry.js";

/** A document "is about" the question when it holds a fifth of the question's content units. */
export const RELEVANCE_RECALL_THRESHOLD = 0.2;

export const HEURISTIC_JUDGE_VERSION = "heuristic-judge@1";

interface Scored {
  value: number;
  reason: string;
  details: Record<string, unknown>;
}

function fraction(count: number, total: number): number {
  return total === 0 ? 1 : count / total;
}

function round(value: number): string {
  return String(Math.round(value * 1000) / 1000);
}

function faithfulness(inputs: JudgeInputs): Scored {
  const claims = assessClaims(inputs.answer ?? "", prepareDocuments(inputs.documents));
  const unsupported = claims.filter((claim) => !claim.supported).map((claim) => claim.claim);
  const supported = claims.length - unsupported.length;
  return {
    value: fraction(supported, claims.length),
    reason:
      claims.length === 0
        ? "the answer makes no checkable claim (heuristic)"
        : `${supported} of ${claims.length} claims found in the context by content words, numbers and entities (heuristic)${unsupported.length > 0 ? `; unsupported: ${unsupported.map((claim) => `"${claim}"`).join("; ")}` : ""}`,
    details: { claims, unsupported_claims: unsupported, supported_claims: supported, total_claims: claims.length, evidence_ids: [...new Set(claims.flatMap((claim) => claim.evidence_ids))] },
  };
}

function answerRelevance(inputs: JudgeInputs): Scored {
  const answer = inputs.answer ?? "";
  if (findAbstentionPhrase(answer) !== null) return { value: 2 / 3, reason: "the answer says the information is unavailable, which responds to the question (heuristic)", details: { abstention: true } };
  const recall = contentRecall(inputs.question ?? "", answer);
  return { value: recall, reason: `the answer repeats ${round(recall)} of the question's content words (heuristic)`, details: { question_unit_recall: recall } };
}

function contextPrecision(inputs: JudgeInputs): Scored {
  const verdicts = inputs.documents.map((document) => ({ id: document.id, recall: contentRecall(inputs.question ?? "", document.text) }));
  const relevant = verdicts.filter((verdict) => verdict.recall >= RELEVANCE_RECALL_THRESHOLD).map((verdict) => verdict.id);
  const irrelevant = verdicts.filter((verdict) => verdict.recall < RELEVANCE_RECALL_THRESHOLD).map((verdict) => verdict.id);
  return {
    value: fraction(relevant.length, verdicts.length),
    reason: `${relevant.length} of ${verdicts.length} context documents share the question's content words (heuristic)`,
    details: { relevant_ids: relevant, irrelevant_ids: irrelevant, evidence_ids: relevant },
  };
}

function contextSufficiency(inputs: JudgeInputs): Scored {
  if (inputs.referenceAnswer !== null) {
    const claims = assessClaims(inputs.referenceAnswer, prepareDocuments(inputs.documents));
    if (claims.length > 0) {
      const missing = claims.filter((claim) => !claim.supported).map((claim) => claim.claim);
      return {
        value: fraction(claims.length - missing.length, claims.length),
        reason: `the context supports ${claims.length - missing.length} of ${claims.length} claims of the reference answer (heuristic)`,
        details: { missing_points: missing },
      };
    }
  }
  const recall = contentRecall(inputs.question ?? "", inputs.documents.map((document) => document.text).join("\n"));
  return { value: recall, reason: `the context holds ${round(recall)} of the question's content words (heuristic)`, details: { question_unit_recall: recall, missing_points: [] } };
}

function completeness(inputs: JudgeInputs): Scored {
  const coverage = keyPointCoverage(inputs.answer ?? "", inputs.keyPoints);
  const covered = coverage.verdicts.filter((verdict) => verdict.covered).length;
  return {
    value: coverage.completeness.applicable ? coverage.completeness.value : 1,
    reason: `${covered} of ${coverage.verdicts.length} key points found in the answer (heuristic)${coverage.missing.length > 0 ? `; missing: ${coverage.missing.map((point) => `"${point}"`).join("; ")}` : ""}`,
    details: { covered_points: covered, total_points: coverage.verdicts.length, missing_points: coverage.missing },
  };
}

function citationSupport(inputs: JudgeInputs): Scored {
  const verdicts = inputs.citedDocuments.map((document) => {
    const supported = assessClaims(inputs.answer ?? "", prepareDocuments([document])).find((claim) => claim.supported);
    return { chunk_id: document.id, statement: supported?.claim ?? "", supported: supported !== undefined };
  });
  const unsupported = verdicts.filter((verdict) => !verdict.supported).map((verdict) => verdict.chunk_id);
  return {
    value: fraction(verdicts.length - unsupported.length, verdicts.length),
    reason: `${verdicts.length - unsupported.length} of ${verdicts.length} cited chunks support a claim of the answer (heuristic)${unsupported.length > 0 ? `; not supporting: ${unsupported.join(", ")}` : ""}`,
    details: { citations: verdicts, unsupported_citations: unsupported, evidence_ids: verdicts.filter((verdict) => verdict.supported).map((verdict) => verdict.chunk_id) },
  };
}

/** Against one reference: 0 when the answer contradicts one of its numbers, else token F1. */
function correctnessAgainst(answer: string, reference: string): { value: number; f1: number | null; contradictions: string[] } {
  const f1 = tokenF1(answer, reference);
  const agreement = factAgreement(answer, reference);
  const contradictions = agreement.contradictions.map((contradiction) => `${contradiction.answer.map((mention) => mention.text).join(", ")} instead of ${contradiction.reference.text}`);
  return { value: contradictions.length > 0 ? 0 : f1.applicable ? f1.value : 0, f1: f1.applicable ? f1.value : null, contradictions };
}

/**
 * Scored against each reference answer on its own and the best kept (SQuAD's
 * and CMRC's rule for several gold answers): joined into one text, a short
 * correct answer would lose F1 to the other references' words, and a number
 * in another reference would count as contradicted.
 */
function answerCorrectness(inputs: JudgeInputs): Scored {
  const answer = inputs.answer ?? "";
  const references = inputs.referenceAnswers.length > 0 ? inputs.referenceAnswers : [inputs.referenceAnswer ?? ""];
  let best = correctnessAgainst(answer, references[0]!);
  let bestIndex = 0;
  references.slice(1).forEach((reference, offset) => {
    const scored = correctnessAgainst(answer, reference);
    if (scored.value > best.value) {
      best = scored;
      bestIndex = offset + 1;
    }
  });
  const which = references.length > 1 ? ` (best of ${references.length} reference answers: number ${bestIndex + 1})` : "";
  return {
    value: best.value,
    reason:
      best.contradictions.length > 0
        ? `the answer contradicts the reference: ${best.contradictions.join("; ")}${which} (heuristic)`
        : `token F1 with the reference answer ${round(best.value)}${which} (heuristic)`,
    details: { token_f1: best.f1, incorrect_statements: best.contradictions, missing_points: [] },
  };
}

const scorers: Record<JudgeMetric, (inputs: JudgeInputs) => Scored> = {
  faithfulness,
  answer_relevance: answerRelevance,
  context_precision_judged: contextPrecision,
  context_sufficiency_judged: contextSufficiency,
  completeness_judged: completeness,
  citation_support: citationSupport,
  answer_correctness: answerCorrectness,
};

export class HeuristicJudge implements Judge {
  readonly id = "heuristic";
  readonly model = "heuristic";
  readonly promptVersion = HEURISTIC_JUDGE_VERSION;
  readonly confidenceSemantics = "heuristic" as const;
  /**
   * Only the metrics a word-level heuristic can approximate without repeating
   * a rule metric: faithfulness (claims found in the context) and citation
   * support. Relevance, context precision and sufficiency by word overlap fail
   * good answers too often to be worth a verdict, and completeness and
   * correctness already exist as rule metrics (answer.completeness,
   * answer.reference_match). An LLM judge (RAGSCOPE_JUDGE_BASE_URL) judges all.
   */
  readonly metrics: readonly JudgeMetric[] = ["faithfulness", "citation_support"];

  async judge(request: JudgeRequest): Promise<JudgeOutcome> {
    const inputs = judgeInputsFor(request.caseResult, request.evalCase);
    const notApplicable = rubricFor(request.metric).notApplicableReason(inputs);
    if (notApplicable !== null) throw new Error(`judge metric ${request.metric} does not apply to case result ${request.caseResult.case_result_id}: ${notApplicable}`);
    const scored = scorers[request.metric](inputs);
    const value = Math.min(1, Math.max(0, scored.value));
    return {
      kind: satisfies(value, thresholdFor(request.metric, request.evalCase)) ? "pass" : "fail",
      metric: request.metric,
      value,
      reason: scored.reason,
      details: { ...scored.details, semantics: "heuristic" },
      usage: noUsage(),
      judgeId: this.id,
      promptVersion: `heuristic-${request.metric}@1`,
    };
  }
}
