/**
 * The judge interface (issue 6 "The LLM judge"): one call judges one metric of
 * one Case Result and ends in one of three outcomes — pass, fail, or grader
 * error (STYLE.md "A judge has three outcomes"). A grader error is never a pass
 * and never carries a number, so no NaN can reach a stored result.
 *
 * Implementations: the OpenAI-compatible judge (openai-judge.ts), the
 * deterministic heuristic judge of the embedded default (heuristic-judge.ts),
 * and decorators that keep the same interface — cache (cached-judge.ts), usage
 * ledger (judge-usage-ledger.ts) and voting across judges (voting-judge.ts).
 */
import type { CaseResult } from "../../contracts/case-result.js";
import type { EvalCase } from "../../contracts/eval-case.js";
import { metricKeys } from "../metric-keys.js";
import { sumCosts } from "./judge-pricing.js";

/** The judged metrics of seed 004 §四, §五 and §九.3. */
export const JUDGE_METRICS = [
  "faithfulness",
  "answer_relevance",
  "context_precision_judged",
  "context_sufficiency_judged",
  "completeness_judged",
  "citation_support",
  "answer_correctness",
] as const;

export type JudgeMetric = (typeof JUDGE_METRICS)[number];

/** The judged metrics as typed keys (metric-keys.ts); each rubric declares its layer. */
export const judgeMetrics = metricKeys(JUDGE_METRICS);

/** Tokens and money spent by the judge — never mixed with the application's own usage. */
export interface JudgeUsage {
  inputTokens: number;
  outputTokens: number;
  /** Null when no price is configured (RAGSCOPE_JUDGE_*_PRICE_PER_1K): not known, which is not 0. */
  cost: number | null;
  /**
   * With prices configured and `cost` null because a call timed out (a provider may bill a request it never
   * answered): what the other calls are known to have cost, which the spending counter still counts. Absent otherwise.
   */
  knownCost?: number;
  /** HTTP calls made, failed attempts included. */
  calls: number;
  /** The outcome came from the cache: nothing was spent. */
  cached: boolean;
}

/** Every way a judge call can fail, listed so counters can show each one from the start (at 0). */
export const JUDGE_ERROR_TYPES = ["timeout", "refusal", "unparseable", "rate_limited", "http_error", "budget_exhausted"] as const;

export type JudgeErrorType = (typeof JUDGE_ERROR_TYPES)[number];

/**
 * `details` conventions every judge follows, so consumers need not know which
 * judge answered: `unsupported_claims: string[]` (faithfulness),
 * `missing_points: string[]`, `evidence_ids: string[]` (chunk ids that decided
 * the value), `confidence: "high" | "medium" | "low"` (the judge's self-report).
 */
export type JudgeOutcome =
  | {
      kind: "pass" | "fail";
      metric: JudgeMetric;
      /** 0..1, always finite. */
      value: number;
      reason: string;
      details: Record<string, unknown>;
      usage: JudgeUsage;
      judgeId: string;
      promptVersion: string;
    }
  | {
      kind: "grader_error";
      metric: JudgeMetric;
      errorType: JudgeErrorType;
      message: string;
      usage: JudgeUsage;
      judgeId: string;
      promptVersion: string;
    };

export type JudgeVerdict = Extract<JudgeOutcome, { kind: "pass" | "fail" }>;
export type JudgeGraderError = Extract<JudgeOutcome, { kind: "grader_error" }>;

export interface JudgeRequest {
  metric: JudgeMetric;
  caseResult: CaseResult;
  evalCase: EvalCase | null;
}

export interface Judge {
  readonly id: string;
  readonly model: string;
  readonly promptVersion: string;
  /**
   * How to read this judge's values (contracts/evaluation-result.ts):
   * "judge_self_report" for a language model (the default when absent),
   * "heuristic" for the deterministic stand-in.
   */
  readonly confidenceSemantics?: "judge_self_report" | "heuristic";
  /** The metrics this judge can judge; absent = every metric of JUDGE_METRICS. */
  readonly metrics?: readonly JudgeMetric[];
  judge(request: JudgeRequest, signal?: AbortSignal): Promise<JudgeOutcome>;
}

export function isJudgeMetric(name: string): name is JudgeMetric {
  return (JUDGE_METRICS as readonly string[]).includes(name);
}

export function noUsage(): JudgeUsage {
  return { inputTokens: 0, outputTokens: 0, cost: 0, calls: 0, cached: false };
}

export function cachedUsage(): JudgeUsage {
  return { inputTokens: 0, outputTokens: 0, cost: 0, calls: 0, cached: true };
}

/** The sum of several usages (votes, A/B orders); cached only when every part was. */
export function sumUsage(usages: readonly JudgeUsage[]): JudgeUsage {
  return {
    inputTokens: usages.reduce((total, usage) => total + usage.inputTokens, 0),
    outputTokens: usages.reduce((total, usage) => total + usage.outputTokens, 0),
    cost: sumCosts(usages.map((usage) => usage.cost)),
    calls: usages.reduce((total, usage) => total + usage.calls, 0),
    cached: usages.length > 0 && usages.every((usage) => usage.cached),
  };
}
