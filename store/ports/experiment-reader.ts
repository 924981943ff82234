/**
 * What `ragscope experiment report` reads: the complete Case Results of one
 * online experiment (late user events merged in) and the metric values the
 * rule and judge stages stored for them.
 */
import type { CaseResult } from "../../contracts/case-result.js";

export interface ExperimentMetricValue {
  readonly traceId: string;
  readonly metric: string;
  readonly evaluatorId: string;
  readonly value: number;
}

export interface ExperimentData {
  readonly caseResults: CaseResult[];
  readonly metricValues: ExperimentMetricValue[];
}

export interface ExperimentReader {
  /** Ids of the experiments stored, most requests first. */
  experimentIds(): Promise<string[]>;
  experiment(experimentId: string): Promise<ExperimentData>;
}
