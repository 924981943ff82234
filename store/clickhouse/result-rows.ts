/**
 * Rows for the ClickHouse tables of deploy/clickhouse/migrations, from one
 * evaluated Case Result. The row version orders the copies of a row that
 * replays create (ReplacingMergeTree keeps the highest): see rowVersion.
 */
import { isWithinLargestMeasurement } from "../../core/largest-measurement.js";
import type { CaseEvaluation } from "../../evaluators/evaluate-case-result.js";

export interface CaseRows {
  caseResult: Record<string, unknown>;
  evaluationResults: Record<string, unknown>[];
  metricValues: Record<string, unknown>[];
}

/**
 * Whether a metric value gets a row. A metric without a value (null: not
 * applicable; a number that is not finite, or beyond 2^53 − 1 either way
 * (core/largest-measurement.ts: no measurement, and two of 1e308 made the run
 * summary's mean and the rollups' sums overflow), reads as NULL too) gets none: about
 * half of a trace's metrics do not apply, and their rows were half of all
 * rows written. Where a panel or the run summary needs to know how many cases
 * a metric did not apply to, it reads `not_applicable_metrics` of
 * evaluation_results (migration 0008), which lists them per Evaluation Result.
 *
 * A row is still written, as a NULL tombstone, when `tombstones` holds: for
 * an evaluation that may replace one stored earlier (CaseEvaluation
 * replacesEarlier) — its newer version hides the earlier value under FINAL —
 * and for judge results (a judge that failed this time must hide the value it
 * gave before).
 */
export function hasValue(value: number | null | undefined): value is number {
  return isWithinLargestMeasurement(value);
}

/** The value a metric's row holds: NULL (null) for one without a value (hasValue), also in a tombstone row. */
export function storedMetricValue(value: number | null | undefined): number | null {
  return hasValue(value) ? value : null;
}

/** The metrics of an Evaluation Result without a value, in its own order. */
export function notApplicableMetrics(metricValues: Readonly<Record<string, number | null>>): string[] {
  const names: string[] = [];
  for (const metric in metricValues) if (!hasValue(metricValues[metric])) names.push(metric);
  return names;
}

export interface RowOptions {
  /** Write NULL rows for metrics without a value (see hasValue); default: the evaluation's replacesEarlier. */
  tombstones?: boolean;
}

/** 2^42 ms is about 139 years: above any clock value, and twice it stays below 2^53. */
const COMPLETE_TRACE_RANK = 2 ** 42;

/**
 * A result rebuilt from a complete trace always outranks one rebuilt from a
 * partial trace, whatever their clocks; among equals the later one wins. So
 * the tail of a trace replayed alone after a crash, or a feedback span that
 * arrives long after its request, can never replace the full result with a
 * smaller one, while a re-evaluation of the full trace still replaces it. `clockMs` is the write's millisecond from
 * the writer's RowVersionClock (store/row-version-clock.ts), which strictly increases across one writer's writes.
 */
export function rowVersion(clockMs: number, completeTrace: boolean): number {
  return (completeTrace ? COMPLETE_TRACE_RANK : 0) + clockMs;
}

/**
 * Rows are written as literals, not spread from shared parts: spreading a
 * shared object into every one of the ~60 metric rows of a case was the
 * costliest step of a sink write. Key order is the column order of the
 * TabSeparated insert (clickhouse-sink.ts), so keep each table's keys in one
 * order.
 */
export function toRows(evaluation: CaseEvaluation, datasetId: string, clockMs: number, options: RowOptions = {}): CaseRows {
  const tombstones = options.tombstones ?? evaluation.replacesEarlier === true;
  const result = evaluation.caseResult;
  const version = rowVersion(clockMs, !result.rag_observation.partial_trace);
  const observation = result.rag_observation;
  const serviceName = observation.service_name ?? "";
  const tenantId = observation.tenant_id ?? "";
  const route = observation.route ?? "";
  const metricValues: Record<string, unknown>[] = [];
  const evaluationResults: Record<string, unknown>[] = [];
  for (const item of evaluation.evaluationResults) {
    evaluationResults.push({
      evaluation_result_id: item.evaluation_result_id,
      case_result_id: item.case_result_id,
      run_id: result.run_id,
      case_id: result.case_id,
      trace_id: result.trace_id,
      evaluator_id: item.evaluator_id,
      evaluator_version: item.evaluator_version,
      outcome: item.outcome,
      reason: item.reason,
      review_required: item.review_required ? 1 : 0,
      error_type: item.error_type,
      started_at: result.started_at,
      evaluated_at: item.evaluated_at,
      payload: JSON.stringify(item),
      version,
      not_applicable_metrics: notApplicableMetrics(item.metric_values),
    });
    for (const metric in item.metric_values) {
      if (!tombstones && !hasValue(item.metric_values[metric])) continue;
      metricValues.push({
        metric,
        case_result_id: item.case_result_id,
        evaluator_id: item.evaluator_id,
        evaluator_version: item.evaluator_version,
        evaluation_result_id: item.evaluation_result_id,
        value: storedMetricValue(item.metric_values[metric]),
        outcome: item.outcome,
        run_id: result.run_id,
        case_id: result.case_id,
        trace_id: result.trace_id,
        case_version: result.case_version,
        dataset_id: datasetId,
        service_name: serviceName,
        tenant_id: tenantId,
        route,
        ts: result.started_at,
        evaluated_at: item.evaluated_at,
        version,
      });
    }
  }
  return {
    caseResult: {
      case_result_id: result.case_result_id,
      run_id: result.run_id,
      case_id: result.case_id,
      trace_id: result.trace_id,
      case_version: result.case_version,
      dataset_id: datasetId,
      service_name: serviceName,
      tenant_id: tenantId,
      route,
      execution_status: result.execution_status,
      quality_status: result.quality_status,
      partial_trace: observation.partial_trace ? 1 : 0,
      output: result.output ?? "",
      latency_ms: observation.latency_ms,
      started_at: result.started_at,
      completed_at: result.completed_at,
      payload: JSON.stringify(result),
      version,
    },
    evaluationResults,
    metricValues,
  };
}
