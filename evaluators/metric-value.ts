/**
 * The value of one metric for one evaluated item, shared by every metric family.
 *
 * A metric either has a number or does not apply (no gold evidence, an invalid
 * cutoff, ...). "Does not apply" carries a reason instead of a number, so a NaN
 * never reaches a stored result or an average (DESIGN.md: a grader error is never
 * a NaN; STYLE.md "Behaviour").
 */
export type MetricValue = ApplicableMetricValue | NotApplicableMetricValue;

export interface ApplicableMetricValue {
  readonly applicable: true;
  readonly value: number;
}

export interface NotApplicableMetricValue {
  readonly applicable: false;
  readonly reason: string;
}

/** A metric that applies. A non-finite value is a bug in the metric, so it throws. */
export function applicable(value: number): ApplicableMetricValue {
  if (!Number.isFinite(value)) throw new RangeError(`metric value must be finite, got ${value}`);
  return { applicable: true, value };
}

export function notApplicable(reason: string): NotApplicableMetricValue {
  return { applicable: false, reason };
}
