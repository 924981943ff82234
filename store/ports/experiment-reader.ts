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
  /**
   * A value of the heuristic judge (the stand-in when no language-model judge
   * is configured or sampled): a measurement that decides nothing, as the
   * release gate reads it (aggregate/without-heuristic-judgements.ts). On
   * ClickHouse by HEURISTIC_JUDGE_ROW_SQL, in memory by isHeuristicJudgement.
   */
  readonly heuristicJudgement: boolean;
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
