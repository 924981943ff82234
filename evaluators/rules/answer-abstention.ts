/**
 * Did the answer abstain, and was that right (seed 004 §五.6)?
 *
 * abstained: 1/0. The trace's explicit `rag_observation.abstained` flag wins
 * when recorded; otherwise the answer text is checked against the refusal
 * phrases of text/abstention-phrases.ts. Not applicable when neither the flag
 * nor an answer text was recorded. Informational.
 * abstention_correct: 1 when the answer abstained on an unanswerable case or
 * answered an answerable one (the case's `answerable`), else 0; needs the
 * case. The reason names the outcome (true_abstention, false_abstention =
 * over-abstention, missed_abstention = SHOULD_ABSTAIN, answered) for the
 * confusion matrix of answer-abstention-confusion.ts.
 *
 * Confidence, per result: exact (deterministic_rule) when the trace's flag
 * decided, or when the answer refuses in whole — a refusal phrase, and no
 * claim of its own beside it (text/answer-sentences.ts sets the refusing
 * pieces aside: "资料中没有相关信息，无法回答。" is all refusal). A refusal
 * phrase beside claims ("资料中没有，但年假是15天"), or no phrase found (a
 * refusal in words the list lacks), is a heuristic reading. Only an exact
 * pass can judge a case, and only a right refusal of an unanswerable case
 * does (passJudgesCase): answering an answerable case says nothing of whether
 * the answer is right (case-verdict.ts).
 */
import type { Evaluator, MetricDescriptor } from "../evaluator.js";
import { applicable, notApplicable } from "../metric-value.js";
import { findAbstentionPhrase } from "../text/abstention-phrases.js";
import { answerClaims } from "../text/answer-sentences.js";
import { abstentionOutcome, type AbstentionOutcome } from "./answer-abstention-confusion.js";
import { metricKeys } from "../metric-keys.js";

/**
 * A refusal phrase is read exactly only when it is the whole answer; the trace's own flag always is. The first part is
 * also what no_answer_accuracy's gates advise when they leave heuristic readings out (aggregate/no-answer-accuracy.ts),
 * where "gate on no_answer_accuracy" would say nothing.
 */
export const ABSTENTION_READ_EXACTLY = "record the abstention on the trace (span attribute ragscope.answer.abstained) so it is read exactly";
const ABSTENTION_DECIDED_WITH = `${ABSTENTION_READ_EXACTLY}, and gate on no_answer_accuracy`;

const metrics: MetricDescriptor[] = [
  { name: "abstained", description: "1 when the answer declined to answer (trace flag, else refusal phrases)", range: [0, 1], direction: "informational", defaultThreshold: null, decideWith: ABSTENTION_DECIDED_WITH },
  { name: "abstention_correct", description: "1 when the answer abstained exactly when the case is unanswerable", range: [0, 1], direction: "higher_is_better", defaultThreshold: ">= 1", decideWith: ABSTENTION_DECIDED_WITH },
];

const OUTCOME_TEXT: Record<AbstentionOutcome, string> = {
  true_abstention: "true_abstention: abstained on an unanswerable case",
  false_abstention: "false_abstention (over-abstention): abstained although the case is answerable",
  missed_abstention: "missed_abstention (SHOULD_ABSTAIN): answered although the case is unanswerable",
  answered: "answered an answerable case",
};

export interface AbstentionDecision {
  abstained: boolean;
  /** How it was decided: the trace's flag, a refusal phrase, or no phrase found. */
  source: "trace_flag" | "phrase" | "no_phrase";
  phrase: string | null;
}

/** The trace's flag when recorded, else the answer's phrases; null when neither is available. */
export function decideAbstention(flag: boolean | null, answer: string | null): AbstentionDecision | null {
  if (flag !== null) return { abstained: flag, source: "trace_flag", phrase: null };
  if (answer === null || answer.trim() === "") return null;
  const phrase = findAbstentionPhrase(answer);
  return { abstained: phrase !== null, source: phrase === null ? "no_phrase" : "phrase", phrase };
}

/** A refusal phrase and no claim beside it: the answer says only that it cannot answer. */
function refusesInWhole(answer: string): boolean {
  const pieces = answerClaims(answer);
  return pieces.abstentions.length > 0 && pieces.claims.length === 0;
}

/** Exact when the trace's flag decided, or the answer refuses in whole; a heuristic reading otherwise. */
function confidenceOf(decision: AbstentionDecision, answer: string | null): Evaluator["confidence"] {
  if (decision.source === "trace_flag") return "deterministic_rule";
  return decision.source === "phrase" && refusesInWhole(answer ?? "") ? "deterministic_rule" : "heuristic";
}

function describe(decision: AbstentionDecision, confidence: Evaluator["confidence"]): string {
  if (decision.source === "trace_flag") return `the trace flags the answer as ${decision.abstained ? "abstaining" : "not abstaining"}`;
  if (decision.phrase === null) return "the answer contains no refusal phrase";
  return confidence === "deterministic_rule" ? `the answer says "${decision.phrase}" and claims nothing beside it` : `the answer says "${decision.phrase}" and also makes claims of its own (a heuristic reading: it passes no case)`;
}

/** The metrics this evaluator produces (generation layer). */
export const answerAbstentionMetrics = metricKeys(["abstained", "abstention_correct"]);

export const answerAbstentionEvaluator: Evaluator = {
  id: "answer.abstention",
  version: "1",
  layer: "generation",
  description: "Whether the answer abstained (trace flag or refusal phrases) and whether abstaining was right for the case",
  requires: [],
  costClass: "rule",
  confidence: "heuristic",
  // abstention_correct, the only metric with a threshold, needs the case's `answerable`.
  verdictBasis: "eval_case",
  passJudgesCase: (values) => values.abstained === 1 && values.abstention_correct === 1,
  metrics,
  evaluate({ caseResult, evalCase }) {
    const decision = decideAbstention(caseResult.rag_observation.abstained, caseResult.output);
    if (decision === null) {
      const value = notApplicable("the trace recorded neither an abstention flag nor an answer");
      return { values: { abstained: value, abstention_correct: value }, reason: "not applicable: no abstention flag and no answer text", evidence: [] };
    }
    const abstained = applicable(decision.abstained ? 1 : 0);
    const confidence = confidenceOf(decision, caseResult.output);
    if (!evalCase) {
      return { values: { abstained, abstention_correct: notApplicable("the trace is not linked to an Eval Case") }, reason: describe(decision, confidence), evidence: [], confidence };
    }
    const outcome = abstentionOutcome({ abstained: decision.abstained, answerable: evalCase.answerable });
    const correct = outcome === "true_abstention" || outcome === "answered";
    return { values: { abstained, abstention_correct: applicable(correct ? 1 : 0) }, reason: `${OUTCOME_TEXT[outcome]}; ${describe(decision, confidence)}`, evidence: [], confidence };
  },
};
