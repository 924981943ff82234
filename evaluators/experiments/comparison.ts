/** A variant compared with the control on one metric: variant minus control, its interval and p-value, and how they were computed. */
export type ComparisonMethod = "two_proportion_z" | "welch_t" | "clustered_delta" | "cluster_bootstrap";

export interface Comparison {
  readonly method: ComparisonMethod;
  readonly controlValue: number;
  readonly variantValue: number;
  /** variant − control. */
  readonly difference: number;
  readonly lower: number;
  readonly upper: number;
  /** Two-sided; null for the bootstrap, which gives an interval only. */
  readonly pValue: number | null;
}
