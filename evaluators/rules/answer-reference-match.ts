/**
 * The traditional NLP scores of the answer against the case's reference answer
 * (seed 004 §九.2): exact match, token F1, ROUGE-L (F-measure) and BLEU-4, all
 * on normalizeText tokens so Chinese answers are scored per character.
 *
 * No default thresholds: the seed says these "可以辅助，但不应单独作为 RAG
 * 核心指标" — an open answer worded differently can be right — so they inform
 * and a case rubric may still set one (`rubric: { token_f1: ">= 0.5" }`).
 *
 * The peer-compatible variants (raw exact match, sacrebleu 13a BLEU,
 * Levenshtein similarity) are pure functions in evaluators/text/.
 */
import { answerAndReference } from "./answer-and-reference.js";
import type { Evaluator, MetricDescriptor } from "../evaluator.js";
import { notApplicable, type MetricValue } from "../metric-value.js";
import { bleu } from "../text/bleu.js";
import { exactMatch } from "../text/exact-match.js";
import { rougeL } from "../text/rouge-l.js";
import { tokenF1 } from "../text/token-f1.js";

const unit = (name: string, description: string): MetricDescriptor => ({ name, description, range: [0, 1], direction: "higher_is_better", defaultThreshold: null });

const metrics: MetricDescriptor[] = [
  unit("exact_match", "1 when the answer equals the reference answer after normalisation"),
  unit("token_f1", "SQuAD-style token F1 against the reference answer (CJK: one token per character)"),
  unit("rouge_l", "ROUGE-L F-measure (longest common token subsequence) against the reference answer"),
  unit("bleu", "sentence BLEU-4 with exp smoothing against the reference answer"),
];

function allNotApplicable(reason: string) {
  const value = notApplicable(reason);
  return { values: Object.fromEntries(metrics.map((metric) => [metric.name, value])), reason: `not applicable: ${reason}`, evidence: [] };
}

const shown = (value: MetricValue) => (value.applicable ? value.value.toFixed(3) : "n/a");

export const answerReferenceMatchEvaluator: Evaluator = {
  id: "answer.reference_match",
  version: "1",
  description: "Exact match, token F1, ROUGE-L and BLEU of the answer against the reference answer",
  requires: ["case", "reference_answer"],
  costClass: "rule",
  confidence: "deterministic_rule",
  metrics,
  evaluate({ caseResult, evalCase }) {
    const texts = answerAndReference(caseResult, evalCase);
    if (!texts.ok) return allNotApplicable(texts.error);
    const { answer, reference } = texts.value;
    const values = { exact_match: exactMatch(answer, reference), token_f1: tokenF1(answer, reference), rouge_l: rougeL(answer, reference), bleu: bleu(answer, reference) };
    return {
      values,
      reason: `against the reference answer: exact match ${shown(values.exact_match)}, token F1 ${shown(values.token_f1)}, ROUGE-L ${shown(values.rouge_l)}, BLEU ${shown(values.bleu)}`,
      evidence: [],
    };
  },
};
