/**
 * The dataset value of a per-case metric: the mean over the cases where it
 * applies (a null per-case value — not applicable — is left out, never read
 * as 0; evaluation-result.ts). The count says how many cases it stands on.
 */
import { finiteMean } from "../../core/finite-mean.js";
import { applicable, notApplicable, type MetricValue } from "../metric-value.js";
import { metricValueOf, type EvaluatedCase } from "./evaluated-case.js";

export interface MetricMean {
  metric: string;
  value: MetricValue;
  caseCount: number;
}

export function meanOfMetric(cases: readonly EvaluatedCase[], metric: string, include: (evaluated: EvaluatedCase) => boolean = () => true): MetricMean {
  const values: number[] = [];
  for (const evaluated of cases) {
    if (!include(evaluated)) continue;
    const value = metricValueOf(evaluated, metric);
    if (value !== null) values.push(value);
  }
  // finiteMean: a metric with no upper bound (a count, a cost) may sum beyond the largest number over many cases.
  return { metric, value: values.length === 0 ? notApplicable(`no case has a value for ${metric}`) : applicable(finiteMean(values)), caseCount: values.length };
}
