/**
 * Aggregates over many requests, as ClickHouse SQL: the numbers the core board
 * shows (seed 004 §十二) and the gate file names (§十三). One definition per
 * number, used by the dashboards' panels and by the alert rules alike.
 *
 * Definitions follow evaluators/aggregate/ so a dashboard, an alert and a
 * release gate agree:
 * - percentiles are nearest-rank (percentile.ts): the value at 1-based rank
 *   ceil(P × n / 100) of the ascending order;
 * - error and timeout rates as reliability-summary.ts (timeouts first, then
 *   errors: status `failed` or error type system_error / environment_error);
 * - task success as task-success.ts (judged passes — quality_status passed —
 *   neither errored nor timed out, over requests with a verdict or a pending
 *   one: passed, failed, review_required, errors and timeouts; `unjudged` and
 *   `not_evaluated` requests are left out, never counted as passes);
 * - the verdict states (contracts/case-result.ts qualityStatus) as shares of
 *   all requests: needs review (`review_required`) and unjudged, shown apart
 *   from passes and failures;
 * - abstention from the `abstained` and `abstention_correct` metrics
 *   (rules/answer-abstention.ts): abstained and correct = true abstention,
 *   abstained and wrong = false abstention, answered and wrong = missed
 *   abstention, answered and correct = answered.
 *
 * Every source collapses duplicate rows with FINAL (the store is at least
 * once, deploy/clickhouse/migrations/0001_core_tables.sql).
 */
import { sqlList, sqlString, type Scope } from "./sql-scope.js";
import { METRIC } from "../../evaluators/metric-catalog.js";

export type SourceName = "metric_values" | "case_results" | "abstention";

export interface AggregateMetric {
  /** The name a gate file uses, e.g. `p95_latency_ms`. */
  name: string;
  /** The column alias panels show. */
  label: string;
  /** Grafana unit id. */
  unit: string;
  source: SourceName;
  /** metric_values.metric names the aggregate reads (source metric_values). */
  storedMetrics: string[];
  /** Aggregate SQL expression over the source's rows. */
  value: string;
  /** Aggregate SQL expression: how many samples the value rests on. */
  samples: string;
}

interface Source {
  /** The column that places a row in time. */
  timeColumn: string;
  /** The FROM clause body (table or subquery, with FINAL) restricted to the scope. */
  from(scope: Scope, storedMetrics: readonly string[]): string;
}

export const SOURCES: Record<SourceName, Source> = {
  metric_values: {
    timeColumn: "ts",
    from: (scope, storedMetrics) => `metric_values FINAL WHERE ${scope("ts")} AND metric IN (${sqlList(storedMetrics)})`,
  },
  case_results: {
    timeColumn: "started_at",
    from: (scope) => `case_results FINAL WHERE ${scope("started_at")}`,
  },
  // One row per Case Result that has both abstention metrics. Grouping by the
  // per-request columns (not aliasing them) keeps the scope's column names
  // pointing at columns.
  abstention: {
    timeColumn: "ts",
    from: (scope) =>
      `(SELECT case_result_id, ts, service_name, tenant_id, dataset_id, run_id, ` +
      `maxIf(value, metric = ${sqlString(METRIC.abstained)}) AS abstained, maxIf(value, metric = ${sqlString(METRIC.abstention_correct)}) AS correct ` +
      `FROM metric_values FINAL WHERE ${scope("ts")} AND metric IN (${sqlList([METRIC.abstained, METRIC.abstention_correct])}) ` +
      `GROUP BY case_result_id, ts, service_name, tenant_id, dataset_id, run_id) ` +
      `WHERE abstained IS NOT NULL AND correct IS NOT NULL`,
  },
};

const present = (metric: string): string => `metric = ${sqlString(metric)} AND value IS NOT NULL`;

/** Mean of a stored metric over the requests where it applies (NULL = not applicable). */
export function meanOf(metric: string, label: string, unit: string, name = metric): AggregateMetric {
  return { name, label, unit, source: "metric_values", storedMetrics: [metric], value: `avgIf(value, ${present(metric)})`, samples: `countIf(${present(metric)})` };
}

/** Nearest-rank percentile (evaluators/aggregate/percentile.ts) of a column over rows meeting a condition. */
export function nearestRankSql(percentile: number, column: string, condition: string): string {
  if (!Number.isInteger(percentile) || percentile <= 0 || percentile > 100) throw new Error(`percentile must be a whole number in (0, 100], got ${percentile}`);
  const count = `countIf(${condition})`;
  return `if(${count} = 0, NULL, arrayElement(arraySort(groupArrayIf(${column}, ${condition})), intDiv(${percentile} * ${count} + 99, 100)))`;
}

export function percentileOf(percentile: number, metric: string, label: string, unit: string): AggregateMetric {
  return {
    name: `p${percentile}_${metric}`,
    label,
    unit,
    source: "metric_values",
    storedMetrics: [metric],
    value: nearestRankSql(percentile, "value", present(metric)),
    samples: `countIf(${present(metric)})`,
  };
}

/** Share of requests whose stored metric meets a condition, over requests where the metric applies. */
function shareOf(name: string, label: string, metric: string, condition: string): AggregateMetric {
  return {
    name,
    label,
    unit: "percentunit",
    source: "metric_values",
    storedMetrics: [metric],
    value: `countIf(${present(metric)} AND ${condition}) / nullIf(countIf(${present(metric)}), 0)`,
    samples: `countIf(${present(metric)})`,
  };
}

/**
 * The final verdict of a case_results row (evaluators/reviewed-verdict.ts):
 * a human review's verdict when the reviewers agree — every reviewer who
 * labelled a metric of the case passed all of them, or every one failed at
 * least one (the root-cause label left out) — else the automatic
 * quality_status. Used wherever a verdict is counted, so the dashboards, the
 * report, the UI and the gate count reviewed cases alike.
 */
const reviewedAs = (condition: string): string =>
  `case_result_id IN (SELECT case_result_id FROM (SELECT case_result_id, labeler_id, max(verdict = 'fail') AS reviewer_failed FROM human_labels FINAL WHERE metric != 'root_cause' GROUP BY case_result_id, labeler_id) GROUP BY case_result_id HAVING ${condition})`;
export const REVIEWED_PASSED = reviewedAs("max(reviewer_failed) = 0");
export const REVIEWED_FAILED = reviewedAs("min(reviewer_failed) = 1");
export const FINAL_VERDICT = `multiIf(${REVIEWED_PASSED}, 'passed', ${REVIEWED_FAILED}, 'failed', quality_status)`;

// reliability-summary.ts: a timeout is never also an error.
export const IS_TIMEOUT = "(execution_status = 'timeout' OR error_type = 'timeout')";
export const IS_ERROR = `(NOT ${IS_TIMEOUT} AND (execution_status = 'failed' OR error_type IN ('system_error', 'environment_error')))`;
/** A verdict, or a pending one (task-success.ts isJudged). */
export const HAS_VERDICT = `${FINAL_VERDICT} IN ('passed', 'failed', 'review_required')`;
/** The verdict states in the order the boards show them (contracts/case-result.ts). */
export const QUALITY_STATES: readonly { status: string; label: string }[] = [
  { status: "passed", label: "Passed (judged)" },
  { status: "failed", label: "Failed" },
  { status: "review_required", label: "Needs review" },
  { status: "unjudged", label: "Unjudged" },
  { status: "not_evaluated", label: "Not evaluated" },
];

/**
 * User feedback as the collector stores it in the Case Result payload:
 * `rag_observation.feedback` is a list of `{kind, value, comment}` (the
 * `ragscope.feedback.*` span attributes); `kind: "thumbs"` carries `value`
 * "up" or "down", `kind: "handoff"` marks a hand-off to a person.
 */
const feedbackOfKind = (kind: string, value?: string): string =>
  `arrayExists(entry -> JSONExtractString(entry, 'kind') = ${sqlString(kind)}${value === undefined ? "" : ` AND JSONExtractString(entry, 'value') = ${sqlString(value)}`}, JSONExtractArrayRaw(payload, 'rag_observation', 'feedback'))`;

function caseRate(name: string, label: string, numerator: string, denominator: string | null): AggregateMetric {
  const samples = denominator === null ? "count()" : `countIf(${denominator})`;
  return { name, label, unit: "percentunit", source: "case_results", storedMetrics: [], value: `countIf(${numerator}) / nullIf(${samples}, 0)`, samples };
}

function abstentionRate(name: string, label: string, numerator: string, denominator: string): AggregateMetric {
  return { name, label, unit: "percentunit", source: "abstention", storedMetrics: [], value: `countIf(${numerator}) / nullIf(countIf(${denominator}), 0)`, samples: `countIf(${denominator})` };
}

const TRUE_ABSTENTION = "abstained = 1 AND correct = 1";

/** Aggregates with a name of their own (not a plain mean of a stored metric). */
export const NAMED_AGGREGATES: readonly AggregateMetric[] = [
  // 无答案识别率 / No-answer Accuracy: abstention recall over unanswerable cases (abstained = correct).
  abstentionRate("no_answer_accuracy", "No-answer detection", TRUE_ABSTENTION, "abstained = correct"),
  // 正确拒答率: abstention precision, correct refusals over all refusals.
  abstentionRate("correct_refusal_rate", "Correct refusals", TRUE_ABSTENTION, "abstained = 1"),
  // 错误拒答率: refusals of answerable questions over answerable questions (abstained != correct).
  abstentionRate("false_refusal_rate", "False refusals", "abstained = 1 AND correct = 0", "abstained != correct"),
  // 幻觉率: answers with at least one statement the context does not support (faithfulness below 1, seed §五.1).
  shareOf("hallucination_rate", "Hallucination rate", METRIC.faithfulness, "value < 1"),
  // 权限泄露率: requests that retrieved at least one chunk the principal may not read.
  shareOf("permission_leak_rate", "Permission leaks", METRIC.permission_violation_rate, "value > 0"),
  caseRate("error_rate", "Error rate", IS_ERROR, null),
  caseRate("timeout_rate", "Timeout rate", IS_TIMEOUT, null),
  caseRate("task_success_rate", "Task success", `${FINAL_VERDICT} = 'passed' AND NOT ${IS_ERROR} AND NOT ${IS_TIMEOUT}`, `${HAS_VERDICT} OR ${IS_ERROR} OR ${IS_TIMEOUT}`),
  caseRate("review_required_rate", "Needs review", `${FINAL_VERDICT} = 'review_required'`, null),
  caseRate("unjudged_rate", "Unjudged", `${FINAL_VERDICT} = 'unjudged'`, null),
  caseRate("thumbs_down_rate", "Thumbs down", feedbackOfKind("thumbs", "down"), feedbackOfKind("thumbs")),
  caseRate("handoff_rate", "Handoff rate", feedbackOfKind("handoff"), null),
  meanOf(METRIC.cost, "Cost per request", "none", "average_cost"),
];

export interface AggregateSelect {
  /** Columns before the aggregates, e.g. `$__timeInterval(ts) AS time`. */
  leading?: string[];
  scope: Scope;
  groupBy?: string;
  having?: string;
  orderBy?: string;
  /** Also select `<samples> AS samples` (alerts use it for min_samples). */
  withSamples?: boolean;
}

/**
 * One SELECT computing several aggregates of the same source, each aliased by
 * its label. `{time}` in `leading`, `groupBy` and `orderBy` is replaced by the
 * source's time column.
 */
export function aggregateSelect(metrics: readonly AggregateMetric[], options: AggregateSelect): string {
  const source = metrics[0]?.source;
  if (source === undefined) throw new Error("aggregateSelect needs at least one aggregate");
  if (metrics.some((metric) => metric.source !== source)) throw new Error(`aggregates of one SELECT must share a source: ${metrics.map((metric) => `${metric.name} (${metric.source})`).join(", ")}`);
  const definition = SOURCES[source];
  const time = (text: string): string => text.replaceAll("{time}", definition.timeColumn);
  const storedMetrics = [...new Set(metrics.flatMap((metric) => metric.storedMetrics))];
  const columns = [
    ...(options.leading ?? []).map(time),
    ...metrics.map((metric) => `${metric.value} AS ${quoteAlias(metric.label)}`),
    ...(options.withSamples ? [`${metrics.map((metric) => metric.samples).join(" + ")} AS samples`] : []),
  ];
  const clauses = [`SELECT ${columns.join(", ")}`, `FROM ${definition.from(options.scope, storedMetrics)}`];
  if (options.groupBy) clauses.push(`GROUP BY ${time(options.groupBy)}`);
  if (options.having) clauses.push(`HAVING ${options.having}`);
  if (options.orderBy) clauses.push(`ORDER BY ${time(options.orderBy)}`);
  return clauses.join("\n");
}

/** Column aliases are shown as they are; double quotes allow spaces and @. */
export function quoteAlias(label: string): string {
  if (label.includes('"')) throw new Error(`a column label must not contain a double quote: ${label}`);
  return `"${label}"`;
}
