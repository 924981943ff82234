/**
 * The pass rule of a judged metric: the rubric's default threshold, or the
 * case rubric's entry for that metric when it is a threshold
 * (`rubric: { faithfulness: ">= 0.8" }`), the same precedence the rule
 * evaluators use (evaluate-case-result.ts).
 */
import type { EvalCase } from "../../contracts/eval-case.js";
import { parseThreshold, type Threshold } from "../threshold.js";
import type { JudgeMetric } from "./judge.js";
import type { JudgeRubric } from "./rubrics/judge-rubric.js";
import { rubricFor } from "./rubrics/rubric-registry.js";

export function thresholdOf(rubric: JudgeRubric): Threshold {
  const parsed = parseThreshold(rubric.defaultThreshold);
  if (!parsed.ok) throw new Error(`rubric ${rubric.version}: ${parsed.error}`);
  return parsed.value;
}

export function thresholdFor(metric: JudgeMetric, evalCase: EvalCase | null): Threshold {
  const rubric = evalCase?.rubric;
  if (rubric !== undefined && typeof rubric !== "string" && !Array.isArray(rubric)) {
    const rule = rubric[metric];
    if (rule !== undefined) {
      const parsed = parseThreshold(rule);
      if (parsed.ok) return parsed.value;
    }
  }
  return thresholdOf(rubricFor(metric));
}
