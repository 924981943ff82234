/**
 * The traditional NLP scores of the answer against the case's reference answer
 * (seed 004 §九.2): exact match, SQuAD-style token F1, ROUGE-L (F-measure) and
 * BLEU-4 on normalizeText tokens (Chinese per character), and CMRC 2018's
 * official F1 and exact match on its own segmentation (cmrc-f1.ts), of the
 * answer without its inline citation markers (answer-and-reference.ts).
 *
 * Several reference answers: each metric is the best over them, as the SQuAD
 * and CMRC 2018 scorers do (best-over-references.ts).
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
import { bestOverReferences } from "../text/best-over-references.js";
import { bleu } from "../text/bleu.js";
import { cmrcExactMatch, cmrcF1 } from "../text/cmrc-f1.js";
import { exactMatch } from "../text/exact-match.js";
import { rougeL } from "../text/rouge-l.js";
import { tokenF1 } from "../text/token-f1.js";
import { metricKeys } from "../metric-keys.js";

const unit = (name: string, description: string): MetricDescriptor => ({ name, description, range: [0, 1], direction: "higher_is_better", defaultThreshold: null });

const metrics: MetricDescriptor[] = [
  unit("exact_match", "1 when the answer equals a reference answer after normalisation"),
  unit("token_f1", "SQuAD-style bag-of-tokens F1 against the best reference answer (CJK: one token per character)"),
  unit("cmrc_f1", "CMRC 2018 official F1 (longest common substring of its segments) against the best reference answer"),
  unit("cmrc_exact_match", "CMRC 2018 official exact match (its punctuation removed, spaces kept) against any reference answer"),
  unit("rouge_l", "ROUGE-L F-measure (longest common token subsequence) against the best reference answer"),
  unit("bleu", "sentence BLEU-4 with exp smoothing (sacrebleu's sentence_bleu) against the best reference answer"),
];

type TextMetric = (answer: string, reference: string) => MetricValue;

const scorers: Record<string, TextMetric> = {
  exact_match: exactMatch,
  token_f1: tokenF1,
  cmrc_f1: cmrcF1,
  cmrc_exact_match: cmrcExactMatch,
  rouge_l: rougeL,
  bleu: (answer, reference) => bleu(answer, reference),
};

function allNotApplicable(reason: string) {
  const value = notApplicable(reason);
  return { values: Object.fromEntries(metrics.map((metric) => [metric.name, value])), reason: `not applicable: ${reason}`, evidence: [] };
}

const shown = (value: MetricValue) => (value.applicable ? value.value.toFixed(3) : "n/a");

/** The metrics this evaluator produces (generation layer). */
export const answerReferenceMatchMetrics = metricKeys(["exact_match", "token_f1", "cmrc_f1", "cmrc_exact_match", "rouge_l", "bleu"]);

export const answerReferenceMatchEvaluator: Evaluator = {
  id: "answer.reference_match",
  // 3: the answer is compared without its inline citation markers ([refund-1], [1], a cited chunk's id).
  version: "3",
  layer: "generation",
  description: "Exact match, token F1, CMRC F1 and exact match, ROUGE-L and BLEU of the answer against the best of its reference answers",
  requires: ["case", "reference_answer"],
  costClass: "rule",
  confidence: "deterministic_rule",
  metrics,
  evaluate({ caseResult, evalCase }) {
    const texts = answerAndReference(caseResult, evalCase);
    if (!texts.ok) return allNotApplicable(texts.error);
    const { answer, references } = texts.value;
    const values: Record<string, MetricValue> = {};
    for (const [name, score] of Object.entries(scorers)) values[name] = bestOverReferences(references, (reference) => score(answer, reference));
    const against = references.length === 1 ? "against the reference answer" : `against the best of ${references.length} reference answers`;
    return {
      values,
      reason: `${against}: exact match ${shown(values.exact_match!)}, token F1 ${shown(values.token_f1!)}, CMRC F1 ${shown(values.cmrc_f1!)}, ROUGE-L ${shown(values.rouge_l!)}, BLEU ${shown(values.bleu!)}`,
      evidence: [],
    };
  },
};
