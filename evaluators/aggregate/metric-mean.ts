/**
 * The dataset value of a per-case metric: the mean over the cases where it
 * applies (a null per-case value — not applicable — is left out, never read
 * as 0; evaluation-result.ts). The count says how many cases it stands on.
 */
import { applicable, notApplicable, type MetricValue } from "../metric-value.js";
import { metricValueOf, type EvaluatedCase } from "./evaluated-case.js";

export interface MetricMean {
  metric: string;
  value: MetricValue;
  caseCount: number;
}

export function meanOfMetric(cases: readonly EvaluatedCase[], metric: string, include: (evaluated: EvaluatedCase) => boolean = () => true): MetricMean {
  let total = 0;
  let caseCount = 0;
  for (const evaluated of cases) {
    if (!include(evaluated)) continue;
    const value = metricValueOf(evaluated, metric);
    if (value === null) continue;
    total += value;
    caseCount += 1;
  }
  return { metric, value: caseCount === 0 ? notApplicable(`no case has a value for ${metric}`) : applicable(total / caseCount), caseCount };
}
