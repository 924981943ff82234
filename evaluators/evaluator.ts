/**
 * An evaluator: a pure function from a Case Result (and its Eval Case, when the
 * trace belongs to an offline run) to metric values, with the metadata the
 * registry, the sampler and the dashboards need (promptfoo's "packs" pattern:
 * each handler declares what it requires and what it costs).
 */
import type { CaseResult } from "../contracts/case-result.js";
import type { EvalCase } from "../contracts/eval-case.js";
import type { MetricLayer } from "./metric-keys.js";
import type { MetricValue } from "./metric-value.js";

/** What an evaluator needs beyond the Case Result. */
export type EvaluatorRequirement = "case" | "gold_evidence" | "reference_answer" | "key_points" | "judge";

/** rule: cheap and deterministic, runs on every trace; judge: costs money, runs on a sample. */
export type CostClass = "rule" | "judge";

export type Direction = "higher_is_better" | "lower_is_better" | "informational";

export interface MetricDescriptor {
  name: string;
  description: string;
  /** Closed range of values, or null when unbounded (latency, tokens). */
  range: [number, number] | null;
  direction: Direction;
  /**
   * Per-case pass rule when neither the case rubric nor the caller overrides it,
   * in the gate syntax (">= 1", "<= 5000"). Null: without a rubric entry the
   * metric is a measurement (outcome `measured`): it never passes or fails a case.
   */
  defaultThreshold: string | null;
  /**
   * For heuristic measures only: a value meeting this condition (gate syntax,
   * "< 1") is a signal against the case. It decides no outcome; it sets the
   * Evaluation Result's `review_required`, which forces the trace into the
   * judge sample and puts the case in the review queue (quality_status
   * `review_required`) until a judge has looked at it.
   */
  reviewWhen?: string;
  /**
   * For a metric of a heuristic evaluator only: how to decide its question
   * instead — the metric to gate on and what to configure for it. A heuristic
   * never decides a gate (gates/release-gate.ts names this in the rule's
   * reason), so the user needs to know what can.
   */
  decideWith?: string;
  /**
   * For a metric of a heuristic evaluator: the judged metric that asks the same
   * question on the same scale (completeness → completeness_judged, seed 004
   * §九.3). A gate rule on the metric and the seed's weighted score read that
   * one in its place, an LLM judge's values only (gates/release-gate.ts,
   * aggregate/quality-score.ts).
   */
  judgedAs?: string;
  /**
   * For a metric of a heuristic evaluator that the seed nevertheless defines
   * as a rule metric: the passage that does (004 §九.1 "规则评测" lists 数字、
   * 日期、实体匹配). A gate decides on it as on an exact rule's metric, and its
   * rule's reason says why; it is still labelled a heuristic where shown.
   */
  ruleInSeed?: string;
}

export interface EvaluationInput {
  caseResult: CaseResult;
  evalCase: EvalCase | null;
}

export interface EvaluatorOutput {
  values: Record<string, MetricValue>;
  /** Why, in a sentence a reviewer can act on. */
  reason: string;
  /** Chunk ids of the evidence that decided the values (stored as `chunk://id` evidence refs); empty when no chunk did. */
  evidence: string[];
  /**
   * Set when the input cannot be scored as recorded (a ranking that lists a
   * chunk twice): what, where and how to fix it. The result is then an `error`
   * with error_type invalid_evidence, sent to review — never a pass, never a
   * silent not-applicable.
   */
  inputError?: string;
  /**
   * This output's confidence when it is not the evaluator's: a rule that is
   * exact on some inputs and a heuristic on others (answer.abstention is exact
   * when the trace flags the abstention or the whole answer refuses, a
   * heuristic when a refusal phrase sits beside claims). Only an exact pass can
   * judge a case (case-verdict.ts).
   */
  confidence?: Evaluator["confidence"];
}

const GOLD_REQUIREMENTS: ReadonlySet<EvaluatorRequirement> = new Set(["case", "gold_evidence", "reference_answer", "key_points"]);

/** The evaluator's verdict basis, declared or derived from what it requires. */
export function verdictBasisOf(evaluator: Pick<Evaluator, "verdictBasis" | "requires">): "eval_case" | "trace" {
  return evaluator.verdictBasis ?? (evaluator.requires.some((requirement) => GOLD_REQUIREMENTS.has(requirement)) ? "eval_case" : "trace");
}

export interface Evaluator {
  id: string;
  version: string;
  description: string;
  requires: readonly EvaluatorRequirement[];
  /** The layer of the evaluation system its metrics judge (metric-keys.ts). */
  layer: MetricLayer;
  costClass: CostClass;
  /** How confident a value is: exact rules, or heuristics standing in for a judge. */
  confidence: "deterministic_rule" | "heuristic";
  /**
   * What a threshold on this evaluator's metrics compares the answer with:
   * `eval_case` — the case's gold data (evidence, reference answer, key
   * points, answerability), so a pass judges the case's quality; `trace` —
   * only what the trace itself recorded (latency, permissions, citations
   * being retrieved), a check that can fail a case but whose pass says
   * nothing about the answer's quality. Default: `eval_case` when `requires`
   * names a case or gold data, else `trace`.
   */
  verdictBasis?: "eval_case" | "trace";
  /**
   * For an `eval_case` evaluator only some of whose passes judge the answer:
   * whether a pass with these stored values does. answer.abstention compares
   * the answer with the case's answerability, but only a refusal of an
   * unanswerable case is the whole of a right answer; answering an answerable
   * case says nothing of whether the answer is right. Read from the stored
   * values, so a verdict decided again later (judge results arriving) is the
   * same. Absent: every exact pass judges the case.
   */
  passJudgesCase?(metricValues: Readonly<Record<string, number | null>>): boolean;
  metrics: readonly MetricDescriptor[];
  evaluate(input: EvaluationInput): EvaluatorOutput;
}
