/**
 * The read side of the store that the release gate, the report and the demo
 * summary use: everything stored for a run, collapsed so that a replayed trace
 * counts once (the latest version of each row wins).
 */
import type { EvaluatedCase } from "../../evaluators/aggregate/index.js";
import type { RunLineage } from "../../contracts/run-lineage.js";

export interface MetricAverage {
  metric: string;
  evaluatorId: string;
  mean: number | null;
  applicable: number;
  notApplicable: number;
}

export interface FailedEvaluation {
  caseId: string;
  evaluatorId: string;
  reason: string;
  /** The case's verdict: failed, or review_required when only heuristic signals or errors flagged it. */
  caseStatus: string;
  /** A verdict of the heuristic judge: shown for review, it does not fail a case. */
  heuristicJudgement: boolean;
  /** A heuristic measure's review signal (Evaluation Result review_required), not a failure. */
  reviewSignal: boolean;
}

export interface RunSummary {
  runId: string;
  cases: number;
  passed: number;
  failed: number;
  /** Needs review: an evaluator errored or a heuristic signal is against the case. */
  reviewRequired: number;
  /** Measured, nothing against it, nothing able to judge it did: never counted as passed. */
  unjudged: number;
  /** Nothing applied. */
  notEvaluated: number;
  partial: number;
  /** Per metric, ordered by evaluator id then metric. */
  metrics: MetricAverage[];
  /** Failed or errored evaluations and review signals, ordered by case id then evaluator id. */
  failures: FailedEvaluation[];
}

/** How many of a run's Case Results carry one tenant value ('' for a result that names none). */
export interface RunTenantCount {
  tenant: string;
  results: number;
}

/** The stored requests' time span (started_at of the first and last Case Result); null when nothing is stored. */
export interface StoredSpan {
  firstMs: number;
  lastMs: number;
  requests: number;
}

export interface RunReader {
  /** The run's Case Results, ordered by case id, each with its Evaluation Results and its Eval Case (null when unknown). */
  loadRunCases(runId: string): Promise<EvaluatedCase[]>;
  readRunSummary(runId: string): Promise<RunSummary>;
  countCaseResults(runId: string): Promise<number>;
  /**
   * The tenants of the run's Case Results that the reader sees, with how many each, ordered by tenant ('' first:
   * results that name no tenant). Any tenant's spans may name any run id, so the reader of every tenant may find
   * several tenants' results under one run id (experiments/run-tenants.ts).
   */
  countRunTenants(runId: string): Promise<RunTenantCount[]>;
  /**
   * The run's lineage as recorded by one of the reader's tenants (store/ports/run-lineage-sink.ts), null when none
   * did: never another tenant's, whatever Case Results carry the run id. Where it may read several records of the
   * run id (a reader of several tenants, or of all): the one recorded without a tenant when it reads that one — only
   * a writer of every tenant writes it, so no tenant's record takes its place for the operator's gate and report —
   * then one that says the run has not finished (so no tenant's "complete" lets the operator's gate decide on
   * another tenant's unfinished run of the same id), else the newest.
   */
  readRun(runId: string): Promise<RunLineage | null>;
  storedSpan(): Promise<StoredSpan | null>;
}
