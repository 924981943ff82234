/**
 * The judge's usage, which every judge Evaluation Result carries for its own call (judge-evaluations.ts). A case's
 * value of one of them is its calls together (aggregate/evaluated-case.ts metricValueOf), not one result's.
 */
export const JUDGE_USAGE_METRICS = ["judge_input_tokens", "judge_output_tokens", "judge_cost"] as const;

export function isJudgeUsageMetric(metric: string): boolean {
  return (JUDGE_USAGE_METRICS as readonly string[]).includes(metric);
}
