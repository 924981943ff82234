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
 * - hallucination and permission-leak shares as evaluators/aggregate/dataset-shares.ts
 *   defines them for the gate too; means and shares of metric_values leave the
 *   heuristic judge's scores out, as the gate does (its own source shows them
 *   as a measurement).
 *
 * Every source collapses duplicate rows with FINAL (the store is at least
 * once, deploy/clickhouse/migrations/0001_core_tables.sql).
 */
import { ANSWER_REACTION_KINDS } from "../../contracts/span-attributes.js";
import { basisColumn } from "./rate-basis.js";
import { sessionRowsOverRange } from "./session-summaries.js";
import { sqlList, sqlString, type Scope } from "./sql-scope.js";
import { HEURISTIC_JUDGE_NAME_SUFFIX, HEURISTIC_METRIC_LABEL_SUFFIX, METRIC } from "../../evaluators/metric-catalog.js";
import { DATASET_SHARES, HEURISTIC_JUDGE_ROW_SQL, SHARE_CONDITIONS, type DatasetShare } from "../../evaluators/aggregate/dataset-shares.js";

// The boards' name for a heuristic judge's value; defined beside the other labels so the experiment report shares it.
export { HEURISTIC_JUDGE_NAME_SUFFIX };
import { ANONYMOUS_REVIEWER, REVIEWERS_PER_CASE } from "../../evaluators/reviewed-verdict.js";

export type SourceName = "metric_values" | "heuristic_judge" | "case_results" | "abstention" | "sessions";

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
  /**
   * The same aggregate over the source's rollups — `metric_rollups`
   * (migration 0009) for metric_values, `request_rollups` (migration 0014)
   * for case_results, `abstention_rollups` (migration 0017) for the
   * abstention pairs — for dashboards' range panels; absent when the rollups
   * cannot give it (sessions span minutes). Means, shares and rates are exact; percentiles come from
   * t-digest states (approximate, see migration 0009).
   */
  rollup?: { value: string; samples: string };
  /**
   * "user_events": a user-behaviour number, no data (NULL, 0 samples) when no complete request of the scope carries
   * a user event of any kind — an application that records none would read 0 % everywhere, though nothing was
   * observed (evaluators/behaviour/behaviour-evidence.ts, the same test on the same requests).
   */
  measuredFrom?: "user_events";
}

/**
 * What a range panel tells a rollup source beyond its scope. Its time range alone, as a condition on a time
 * column, and, when it groups by time, its buckets' length in seconds as SQL: metric_rollups reads whole hours
 * (metric_rollups_hourly) where they give the minutes' numbers. Its other filters and whether an interval of
 * time overlaps the range: session_rollups reads the sessions inside the range from their summaries and only
 * those crossing its start or end from their minutes (session-summaries.ts), and needs both.
 */
export interface RangeReading {
  /** `$__timeFilter(column)` on the boards: the scope's time condition without its other filters. */
  inRange(timeColumn: string): string;
  /** `$__interval_s` on the boards; absent over the range (no buckets). */
  bucketSeconds?: string;
  /** The scope's conditions other than time (the boards' variables). */
  filters?: string;
  /** The condition that the interval from `firstColumn` to `lastColumn` (both included) shares a moment with the range. */
  overlaps?(firstColumn: string, lastColumn: string): string;
}

interface Source {
  /** The column that places a row in time. */
  timeColumn: string;
  /**
   * The FROM clause body (table or subquery, with FINAL) restricted to the scope; `hours` lets a source with
   * coarser rows read them where they fit the range and its buckets (metric_rollups).
   */
  from(scope: Scope, storedMetrics: readonly string[], hours?: RangeReading): string;
}

/** The columns metric_rollups and metric_rollups_hourly share, besides their time. */
const METRIC_ROLLUP_COLUMNS = "metric, tenant_id, service_name, dataset_id, run_id, value_count, value_sum, below_one, above_zero, value_quantiles";

/**
 * metric_rollups' rows of a scope as one row set with a `minute` column. With `hours`: an hour's row of
 * metric_rollups_hourly (migration 0018) where every minute of the hour is in the range — its first and its
 * last minute are (`hour`, `hour_last_minute`: plain columns, since Grafana's macros take a column) — and, when
 * grouped by time, the buckets are whole hours (a length in whole hours: buckets start at multiples of their
 * length from the epoch, so an hour never straddles two); the minute rows of every other hour. metric_rollups
 * has `hour` and `hour_last_minute` as aliases, so one condition tells the two apart and each minute is counted
 * once: the sums and counts are the minutes', and a 30-day range reads ~720 rows per series instead of 43,200.
 * The condition names only the time columns and a constant, so the engine prunes the minute rows of the whole
 * hours by the sorting key instead of reading and dropping them. Without `hours`: the minute rows.
 */
function metricRollupRows(scope: Scope, storedMetrics: readonly string[], hours?: RangeReading): string {
  const metrics = `metric IN (${sqlList(storedMetrics)})`;
  if (hours === undefined) return `metric_rollups FINAL WHERE ${scope("minute")} AND ${metrics}`;
  const wholeHour = `${hours.inRange("hour")} AND ${hours.inRange("hour_last_minute")}${hours.bucketSeconds === undefined ? "" : ` AND ${hours.bucketSeconds} % 3600 = 0`}`;
  return (
    `(SELECT hour AS minute, ${METRIC_ROLLUP_COLUMNS} FROM metric_rollups_hourly FINAL WHERE ${scope("hour")} AND ${wholeHour} AND ${metrics} ` +
    `UNION ALL SELECT minute, ${METRIC_ROLLUP_COLUMNS} FROM metric_rollups FINAL WHERE ${scope("minute")} AND ${metrics} AND NOT (${wholeHour}))`
  );
}

type RollupName = "metric_rollups" | "request_rollups" | "session_rollups" | "abstention_rollups";

/** The rollup table of a source, where it has one. */
const ROLLUP_OF: Partial<Record<SourceName, RollupName>> = { metric_values: "metric_rollups", case_results: "request_rollups", sessions: "session_rollups", abstention: "abstention_rollups" };

export const SOURCES: Record<SourceName | RollupName, Source> = {
  // Whole minutes: a rollup row is in the range when its minute starts in it.
  metric_rollups: {
    timeColumn: "minute",
    from: metricRollupRows,
  },
  request_rollups: {
    timeColumn: "minute",
    from: (scope) => `request_rollups FINAL WHERE ${scope("minute")}`,
  },
  // One row per session, as `sessions` below, with its weight (sessions), whether it was resolved and whether it was
  // resolved at first contact, placed at its first minute in the range: the sessions' summaries and, for the sessions
  // crossing the range's start or end, their minutes (migrations 0016 and 0021, session-summaries.ts). That needs the
  // range panel's reading; a reader without one reads the session rates raw (preferRollups false).
  session_rollups: {
    timeColumn: "session_minute",
    from: (scope, _storedMetrics, range) => {
      if (range?.filters === undefined || range.overlaps === undefined) {
        throw new Error("the session rates read their rollups only with a range reading that has filters and overlaps (sql-scope.ts dashboardHours); read them raw (preferRollups false) otherwise");
      }
      return sessionRowsOverRange(scope, { inRange: range.inRange, filters: range.filters, overlaps: range.overlaps });
    },
  },
  abstention_rollups: {
    timeColumn: "minute",
    from: (scope) => `abstention_rollups FINAL WHERE ${scope("minute")}`,
  },
  // The heuristic judge's scores are a measurement, never a decision (aggregate/dataset-shares.ts): every
  // mean and share reads the other evaluators' values, as the gate does; they have a source of their own.
  metric_values: {
    timeColumn: "ts",
    from: (scope, storedMetrics) => `metric_values FINAL WHERE ${scope("ts")} AND metric IN (${sqlList(storedMetrics)}) AND NOT ${HEURISTIC_JUDGE_ROW_SQL}`,
  },
  heuristic_judge: {
    timeColumn: "ts",
    from: (scope, storedMetrics) => `metric_values FINAL WHERE ${scope("ts")} AND metric IN (${sqlList(storedMetrics)}) AND ${HEURISTIC_JUDGE_ROW_SQL}`,
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
    from: (scope) => abstentionPairs(scope("ts")),
  },
  // One row per session (rag_observation.session_id, the column migration
  // 0010 materializes; a request without one belongs to no session and is
  // left out), placed at its first request, as
  // evaluators/behaviour/sessions.ts groups them, with its requests carrying a
  // user event (event_requests, the session rates' probe). The scope filters the
  // requests inside, so a service or tenant filter keeps that service's
  // requests of each session.
  sessions: {
    timeColumn: "started_at",
    from: (scope) =>
      `(SELECT session_key, min(request_started_at) AS started_at, count() AS requests, ` +
      `max(resolved) AS resolved, max(handed_off) AS handed_off, max(followed_up) AS followed_up, sum(carries_event) AS event_requests ` +
      `FROM (SELECT session_id AS session_key, started_at AS request_started_at, ` +
      `${SESSION_FLAGS.resolved} AS resolved, ${SESSION_FLAGS.handed_off} AS handed_off, ${SESSION_FLAGS.followed_up} AS followed_up, ${CARRIES_USER_EVENT} AS carries_event ` +
      `FROM case_results FINAL WHERE ${scope("started_at")} AND partial_trace = 0 AND ${HAS_SESSION}) ` +
      `GROUP BY session_key)`,
  },
};

/** One row per Case Result with both abstention metrics among the metric_values rows meeting `condition`. */
function abstentionPairs(condition: string): string {
  return (
    `(SELECT case_result_id, ts, service_name, tenant_id, dataset_id, run_id, ` +
    `maxIf(value, metric = ${sqlString(METRIC.abstained)}) AS abstained, maxIf(value, metric = ${sqlString(METRIC.abstention_correct)}) AS correct ` +
    `FROM metric_values FINAL WHERE ${condition} AND metric IN (${sqlList([METRIC.abstained, METRIC.abstention_correct])}) ` +
    `GROUP BY case_result_id, ts, service_name, tenant_id, dataset_id, run_id) ` +
    `WHERE abstained IS NOT NULL AND correct IS NOT NULL`
  );
}

/**
 * The counts of abstention_rollups (migration 0017), each the number of a minute's abstention pairs meeting a
 * condition: the conditions the abstention rates count over the raw pairs, so a rate from the rollups is the rate
 * from the rows. The migration's backfill spells out the same SELECT (abstentionRollupSelect).
 */
export const ABSTENTION_ROLLUP_COUNTS = {
  true_abstentions: "abstained = 1 AND correct = 1",
  unanswerable: "abstained = correct",
  refusals: "abstained = 1",
  false_refusals: "abstained = 1 AND correct = 0",
  answerable: "abstained != correct",
} as const;
type AbstentionCount = keyof typeof ABSTENTION_ROLLUP_COUNTS;

/** The columns abstention_rollups groups by (metric_values' own columns for the scope). */
export const ABSTENTION_ROLLUP_GROUP = ["tenant_id", "service_name", "dataset_id", "run_id"] as const;

/** The SELECT computing abstention_rollups rows from the pairs of metric_values FINAL rows meeting `where`; `{version:UInt64}` is a parameter. */
export function abstentionRollupSelect(database: string, where: string): string {
  const counts = Object.entries(ABSTENTION_ROLLUP_COUNTS).map(([column, condition]) => `countIf(${condition}) AS ${column}`);
  return [
    `SELECT toStartOfMinute(ts) AS minute, ${ABSTENTION_ROLLUP_GROUP.join(", ")},`,
    `       ${counts.join(",\n       ")},`,
    "       {version:UInt64} AS version",
    `FROM ${abstentionPairs(where).replace("FROM metric_values FINAL", `FROM ${database}.metric_values FINAL`)}`,
    `GROUP BY minute, ${ABSTENTION_ROLLUP_GROUP.join(", ")}`,
  ].join("\n");
}

/**
 * Every metric of every Evaluation Result meeting `condition`, one row each,
 * with `value` NULL where the metric did not apply: metric_values holds rows
 * with a value only (migration 0008), and evaluation_results lists the rest
 * in `not_applicable_metrics`. For panels that show coverage (how many cases
 * a metric did not apply to, or a metric that applied to none). `condition`
 * may name run_id only, a column of both tables.
 */
export function metricRowsWithCoverage(condition: string | { metricValues: string; evaluationResults: string }): string {
  // One condition for both tables, or one each where it names a column they call differently (a request's start: ts, started_at).
  const { metricValues, evaluationResults } = typeof condition === "string" ? { metricValues: condition, evaluationResults: condition } : condition;
  return (
    `(SELECT metric, evaluator_id, evaluator_version, run_id, case_result_id, value FROM metric_values FINAL WHERE ${metricValues} AND value IS NOT NULL ` +
    `UNION ALL SELECT metric, evaluator_id, evaluator_version, run_id, case_result_id, CAST(NULL AS Nullable(Float64)) AS value FROM evaluation_results FINAL ARRAY JOIN not_applicable_metrics AS metric WHERE ${evaluationResults})`
  );
}

const present = (metric: string): string => `metric = ${sqlString(metric)} AND value IS NOT NULL`;

/** In metric_rollups: how many values of a metric the rows hold. */
const rolledUpCount = (metric: string): string => `sumIf(value_count, metric = ${sqlString(metric)})`;

/** Mean of a stored metric over the requests where it applies (NULL = not applicable). */
export function meanOf(metric: string, label: string, unit: string, name = metric): AggregateMetric {
  return {
    name,
    label,
    unit,
    source: "metric_values",
    storedMetrics: [metric],
    value: `avgIf(value, ${present(metric)})`,
    samples: `countIf(${present(metric)})`,
    rollup: { value: `sumIf(value_sum, metric = ${sqlString(metric)}) / nullIf(${rolledUpCount(metric)}, 0)`, samples: rolledUpCount(metric) },
  };
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
    rollup: {
      value: `if(${rolledUpCount(metric)} = 0, NULL, toFloat64(quantileTDigestMergeIf(${percentile / 100})(value_quantiles, metric = ${sqlString(metric)})))`,
      samples: rolledUpCount(metric),
    },
  };
}

/** The rollup column counting the values that meet a share's condition (migration 0009). */
const ROLLED_UP_CONDITIONS = { below_one: "below_one", above_zero: "above_zero" } as const satisfies Record<keyof typeof SHARE_CONDITIONS, string>;

/** A dataset share (evaluators/aggregate/dataset-shares.ts) over requests where its metric applies, as the gate computes it. */
function shareOf(share: DatasetShare): AggregateMetric {
  const { metric } = share;
  const condition = SHARE_CONDITIONS[share.condition].sql;
  return {
    name: share.name,
    label: share.label,
    unit: "percentunit",
    source: "metric_values",
    storedMetrics: [metric],
    value: `countIf(${present(metric)} AND ${condition}) / nullIf(countIf(${present(metric)}), 0)`,
    samples: `countIf(${present(metric)})`,
    rollup: { value: `sumIf(${ROLLED_UP_CONDITIONS[share.condition]}, metric = ${sqlString(metric)}) / nullIf(${rolledUpCount(metric)}, 0)`, samples: rolledUpCount(metric) },
  };
}

/**
 * The mean of the heuristic judge's scores of a judged metric: a measurement
 * shown apart and labelled, never a decision. Raw rows only (metric_rollups
 * holds the decision values, metric-rollups.ts).
 */
export function heuristicMeasurementOf(metric: string, label: string): AggregateMetric {
  return {
    name: `${metric}_heuristic_judge`,
    label: `${label}${HEURISTIC_JUDGE_NAME_SUFFIX}`,
    unit: "percentunit",
    source: "heuristic_judge",
    storedMetrics: [metric],
    value: `avgIf(value, ${present(metric)})`,
    samples: `countIf(${present(metric)})`,
  };
}

/**
 * The final verdict of a case_results row (evaluators/reviewed-verdict.ts):
 * a human review's verdict when at least REVIEWERS_PER_CASE reviewers labelled
 * a metric of that request (labels name the request reviewed: a case sent
 * again is not reviewed by its earlier answer's labels) and they agree — every one of them passed all the
 * metrics they labelled, or every one failed at least one (the root-cause
 * label left out) — else the automatic quality_status (one reviewer alone, or
 * reviewers who disagree, decide nothing; the anonymous reviewer's labels are
 * not counted, COUNTED_REVIEWER). Reviewers who agree on a pass of a
 * request that did not complete (DID_NOT_COMPLETE) leave it failed: a review
 * can confirm such a request failed, never pass it. Used wherever a verdict is
 * counted, so the dashboards, the report, the UI and the gate count reviewed
 * cases alike; the web UI's trace list applies it to trace_list's rows, which
 * hold the same columns (error_type since migration 0029).
 */
/**
 * A human_labels row that counts toward the reviewers who decide a case: not the anonymous reviewer's
 * (evaluators/reviewed-verdict.ts countsTowardReview), whose labels are kept and shown but decide and block nothing.
 */
export const COUNTED_REVIEWER = `labeler_id != '${ANONYMOUS_REVIEWER}'`;
const AGREED_PASS = `count() >= ${REVIEWERS_PER_CASE} AND max(reviewer_failed) = 0`;
const AGREED_FAIL = `count() >= ${REVIEWERS_PER_CASE} AND min(reviewer_failed) = 1`;
// The inner query has one row per reviewer of a case, so the outer count() is the number of reviewers.
// A label counts toward the review of the request it names (its trace id, human-label.ts): the pair is matched, never
// the case alone. The trace is not filtered on before FINAL: versions of one label may name different requests.
const reviewedAs = (condition: string, labels = `human_labels FINAL WHERE metric != 'root_cause' AND ${COUNTED_REVIEWER}`): string =>
  `(case_result_id, trace_id) IN (SELECT case_result_id, trace_id FROM (SELECT case_result_id, trace_id, labeler_id, max(verdict = 'fail') AS reviewer_failed FROM ${labels} GROUP BY case_result_id, trace_id, labeler_id) GROUP BY case_result_id, trace_id HAVING ${condition})`;
// reliability-summary.ts: a timeout is never also an error.
export const IS_TIMEOUT = "(execution_status = 'timeout' OR error_type = 'timeout')";
export const IS_ERROR = `(NOT ${IS_TIMEOUT} AND (execution_status = 'failed' OR error_type IN ('system_error', 'environment_error')))`;
/** The request did not complete: it errored or timed out (reliability-summary.ts; case-verdict.ts didNotComplete). */
export const DID_NOT_COMPLETE = `(${IS_ERROR} OR ${IS_TIMEOUT})`;
export const REVIEWED_PASSED = reviewedAs(AGREED_PASS);
export const REVIEWED_FAILED = reviewedAs(AGREED_FAIL);
/**
 * The final verdict from the two review conditions (the reviewers agreed on a pass, on a fail) and the request's own
 * automatic verdict and whether it completed: by default the row's columns (quality_status, execution_status,
 * error_type); a statement that reads a request's newest row under other names gives those.
 */
export const finalVerdictFrom = (passed: string, failed: string, automatic = "quality_status", didNotComplete = DID_NOT_COMPLETE): string =>
  `multiIf((${passed}) AND NOT ${didNotComplete}, 'passed', (${passed}) OR (${failed}), 'failed', ${automatic})`;
export const FINAL_VERDICT = finalVerdictFrom(REVIEWED_PASSED, REVIEWED_FAILED);
/** The rows whose final verdict is their reviewers' (an agreed fail, or an agreed pass of a request that completed). */
export const REVIEW_DECIDED = `((${REVIEWED_PASSED}) AND NOT ${DID_NOT_COMPLETE}) OR (${REVIEWED_FAILED})`;

/**
 * Conditions on a case_results row of which every row whose FINAL_VERDICT is `verdict` meets at least one: its
 * automatic quality_status is `verdict`, or, for 'passed' and 'failed', its reviewers agreed on that verdict
 * (FINAL_VERDICT gives 'passed' or 'failed' from a review, else quality_status). Rows that meet one may still have
 * another final verdict; a reader uses them to learn cheaply where no row can have it (quality_status alone is a
 * low-cardinality column, where FINAL_VERDICT reads every row's id for the review sets). The verdict is the
 * statement's `verdict` parameter, as in `FINAL_VERDICT = {verdict:String}`.
 */
export function finalVerdictCandidates(verdict: string): string[] {
  const automatic = "quality_status = {verdict:String}";
  if (verdict === "passed") return [automatic, REVIEWED_PASSED];
  // An agreed pass of a request that did not complete is failed too.
  if (verdict === "failed") return [automatic, REVIEWED_FAILED, REVIEWED_PASSED];
  return [automatic];
}

/**
 * FINAL_VERDICT reading only the reviews of the requests meeting `requests` (a condition on case_results), from
 * `database`: the rollup refresh recomputes a few minutes, and reading every review ever saved (twice, for the two
 * agreements) cost it time in proportion to all of them. A label's id is its (case_result_id, metric, labeler_id)
 * (evaluators/judge/calibration/human-label.ts), so every version of a label has the same case: filtering labels by
 * case before FINAL keeps exactly the rows FINAL would keep for those cases. `requests` "1" reads every review.
 */
export function finalVerdictOfRequests(database: string, requests: string): string {
  const scope = requests === "1" ? "" : ` AND case_result_id IN (SELECT case_result_id FROM ${database}.case_results WHERE ${requests})`;
  const labels = `${database}.human_labels FINAL WHERE metric != 'root_cause' AND ${COUNTED_REVIEWER}${scope}`;
  return finalVerdictFrom(reviewedAs(AGREED_PASS, labels), reviewedAs(AGREED_FAIL, labels));
}

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
 * User events as the collector stores them in the Case Result payload:
 * `rag_observation.feedback` is a list of `{kind, value, comment, recorded_at,
 * span_id, chunk_id}` in time order (contracts/case-result.ts; kinds are
 * FeedbackKind: thumbs_up, thumbs_down, follow_up, handoff, copy,
 * citation_click, resolved, abandoned, rating), late events merged in. The
 * definitions are evaluators/behaviour/'s, so the panels and `ragscope
 * experiment report` count the same things.
 */
const FEEDBACK = "JSONExtractArrayRaw(payload, 'rag_observation', 'feedback')";
/** The events' kinds in time order: case_results.feedback_kinds, materialized from the payload (migration 0013), so a rate reads no payload. */
const FEEDBACK_KINDS = "feedback_kinds";
/** What migration 0013 materializes as feedback_kinds (for a store before it: the upgrade test's previous release). */
export const FEEDBACK_KINDS_FROM_PAYLOAD = `arrayMap(entry -> JSONExtractString(entry, 'kind'), ${FEEDBACK})`;
const feedbackOfKind = (kind: string): string => `has(${FEEDBACK_KINDS}, ${sqlString(kind)})`;
/** The kind of the request's last thumbs event ('' without one): a user who changes a thumbs up to down counts as down. */
const LAST_THUMBS = `arrayElement(arrayFilter(kind -> kind IN ('thumbs_up', 'thumbs_down'), ${FEEDBACK_KINDS}), -1)`;
/**
 * The value of the request's last rating event, as a number; NULL without a numeric one: case_results.last_rating,
 * materialized from the payload by migration 0014 as LAST_RATING_FROM_PAYLOAD.
 */
const LAST_RATING = "last_rating";
export const LAST_RATING_FROM_PAYLOAD = `toFloat64OrNull(JSONExtractString(arrayElement(arrayFilter(entry -> JSONExtractString(entry, 'kind') = 'rating', ${FEEDBACK}), -1), 'value'))`;
/** The answer cited something: case_results.cited, materialized by migration 0014 as CITED_FROM_PAYLOAD. */
const CITED = "cited = 1";
export const CITED_FROM_PAYLOAD = "JSONLength(payload, 'rag_observation', 'citations') > 0";

/**
 * The counts of request_rollups (migration 0014): each the number of a
 * minute's requests (case_results FINAL) that meet a condition — the same
 * conditions the request rates below count over raw rows, so a rate from the
 * rollups is the rate from the rows. The migration's backfill spells out the
 * same SELECT (requestRollupSelect).
 */
const COMPLETE = "partial_trace = 0";
export const REQUEST_ROLLUP_COUNTS = {
  all_requests: "1",
  complete_requests: COMPLETE,
  thumbs_given: `${LAST_THUMBS} != ''`,
  thumbs_down: `${LAST_THUMBS} = 'thumbs_down'`,
  liked: `${COMPLETE} AND ${LAST_THUMBS} = 'thumbs_up'`,
  disliked: `${COMPLETE} AND ${LAST_THUMBS} = 'thumbs_down'`,
  copied: `${COMPLETE} AND ${feedbackOfKind("copy")}`,
  handed_off: `${COMPLETE} AND ${feedbackOfKind("handoff")}`,
  cited_requests: `${COMPLETE} AND ${CITED}`,
  citation_clicked: `${COMPLETE} AND ${CITED} AND ${feedbackOfKind("citation_click")}`,
  rating_count: `${COMPLETE} AND ${LAST_RATING} IS NOT NULL`,
  errors: IS_ERROR,
  timeouts: IS_TIMEOUT,
  // The final verdict (a human review's where reviewers agree): the store notes a request's minute when a label
  // for it is saved (clickhouse-human-label-store.ts), so a review reaches the rollups with the next refresh.
  task_passed: `${FINAL_VERDICT} = 'passed' AND NOT ${IS_ERROR} AND NOT ${IS_TIMEOUT}`,
  task_judged: `${HAS_VERDICT} OR ${IS_ERROR} OR ${IS_TIMEOUT}`,
  // The complete requests task success leaves out (no verdict, no error, no timeout): "Task success · not judged".
  // Not complete_requests - task_judged: a partial trace with a verdict (its root span never arrived, yet a rule
  // failed it) is in task_judged and not in complete_requests, and the difference lost one for it (migration 0033).
  task_not_judged: `${COMPLETE} AND NOT (${HAS_VERDICT} OR ${IS_ERROR} OR ${IS_TIMEOUT})`,
  passed_verdicts: `${FINAL_VERDICT} = 'passed'`,
  failed_verdicts: `${FINAL_VERDICT} = 'failed'`,
  review_required_verdicts: `${FINAL_VERDICT} = 'review_required'`,
  unjudged_verdicts: `${FINAL_VERDICT} = 'unjudged'`,
  not_evaluated_verdicts: `${FINAL_VERDICT} = 'not_evaluated'`,
} as const;
/** The request_rollups count of each verdict state (QUALITY_STATES). */
export const VERDICT_COUNTS: Record<string, RequestCount> = {
  passed: "passed_verdicts",
  failed: "failed_verdicts",
  review_required: "review_required_verdicts",
  unjudged: "unjudged_verdicts",
  not_evaluated: "not_evaluated_verdicts",
};
type RequestCount = keyof typeof REQUEST_ROLLUP_COUNTS;

/** The request_rollups counts a store before migration 0033 has no column for. */
const COUNTS_SINCE_0033: readonly RequestCount[] = ["task_not_judged"];

/**
 * The request_rollups counts a refresh writes, in REQUEST_ROLLUP_COUNTS' order: all of them, or (`notJudgedCount`
 * false) those a store before migration 0033 has columns for — the upgrade tests write such a store as its release did.
 */
export function requestRollupCounts(notJudgedCount = true): [RequestCount, string][] {
  return (Object.entries(REQUEST_ROLLUP_COUNTS) as [RequestCount, string][]).filter(([column]) => notJudgedCount || !COUNTS_SINCE_0033.includes(column));
}

/** The columns request_rollups groups by: the scope's columns and the experiment variant. */
export const REQUEST_ROLLUP_GROUP = ["tenant_id", "service_name", "dataset_id", "run_id", "experiment_id", "experiment_variant"] as const;

/**
 * The case_results columns the request rollup's counts read, named (several are materialized columns, which `*`
 * leaves out). A count that reads another column fails loudly ("Unknown expression identifier"), never silently.
 */
const REQUEST_ROLLUP_INPUTS = [...REQUEST_ROLLUP_GROUP, "started_at", "user_id", "partial_trace", "feedback_kinds", "cited", "last_rating", "execution_status", "error_type", "quality_status"] as const;

/**
 * The SELECT computing request_rollups rows from case_results FINAL meeting `where`; `{version:UInt64}` is a parameter.
 * `notJudgedCount`: as requestRollupCounts.
 */
export function requestRollupSelect(database: string, where: string, notJudgedCount = true): string {
  // The final verdict is computed once a request (its reviews read for these requests only), and the counts read it
  // by name: written into each of the seven counts, its two review subqueries made the statement slow to plan.
  const counts = requestRollupCounts(notJudgedCount).map(([column, condition]) => (condition === "1" ? `count() AS ${column}` : `countIf(${condition.replaceAll(FINAL_VERDICT, "final_verdict")}) AS ${column}`));
  return [
    `SELECT minute, ${REQUEST_ROLLUP_GROUP.join(", ")},`,
    `       ${counts.join(",\n       ")},`,
    `       sumIf(assumeNotNull(${LAST_RATING}), ${REQUEST_ROLLUP_COUNTS.rating_count}) AS rating_sum,`,
    `       uniqExactStateIf(user_id, ${COMPLETE}) AS user_states,`,
    "       {version:UInt64} AS version",
    `FROM (SELECT ${REQUEST_ROLLUP_INPUTS.join(", ")}, toStartOfMinute(started_at) AS minute, ${finalVerdictOfRequests(database, where)} AS final_verdict FROM ${database}.case_results FINAL WHERE ${where})`,
    `GROUP BY minute, ${REQUEST_ROLLUP_GROUP.join(", ")}`,
  ].join("\n");
}

/**
 * A request that belongs to a session (rag_observation.session_id): a session rate counts sessions with an id only —
 * a request without one is no session, and counting it as a session of one request inflated the denominator.
 */
const HAS_SESSION = "session_id != ''";
/** A request carrying a user event of any kind (behaviour-evidence.ts): what the session rates' probe counts. */
const CARRIES_USER_EVENT = `notEmpty(${FEEDBACK_KINDS})`;
/** What a session rate asks of each of its requests; a session has it when any of its requests has. */
const SESSION_FLAGS = { resolved: feedbackOfKind("resolved"), handed_off: feedbackOfKind("handoff"), followed_up: feedbackOfKind("follow_up") } as const;
/** A session of one request resolved at first contact: resolved, without handoff or follow-up. */
const FIRST_CONTACT = `${SESSION_FLAGS.resolved} AND NOT ${SESSION_FLAGS.handed_off} AND NOT ${SESSION_FLAGS.followed_up}`;
/** The columns of session_rollups in the order sessionRollupSelect computes them. */
export const SESSION_ROLLUP_COLUMNS = ["minute", "tenant_id", "service_name", "dataset_id", "run_id", "session_key", "requests", "resolved", "handed_off", "followed_up", "event_requests", "sessionless_requests", "sessionless_resolved", "sessionless_first_contact", "version"] as const;

/**
 * The SELECT computing session_rollups rows (migration 0016) from case_results FINAL meeting `where`, per minute and
 * scope columns: for each session id, its complete requests and whether any was resolved, handed off or followed up
 * (grouped by session again at query time, SOURCES.session_rollups); under the key '', the requests without a
 * session id counted: all, resolved, resolved at first contact (kept for the operator; since migration 0025 no panel
 * reads them: a request without a session id is no session). `eventCounts`: also each session's requests carrying a
 * user event (event_requests, migration 0025; 0 under the key ''), which a store before that migration has no column
 * for. `{version:UInt64}` is a parameter.
 */
export function sessionRollupSelect(database: string, where: string, eventCounts = true): string {
  return [
    "SELECT toStartOfMinute(started_at) AS minute, tenant_id, service_name, dataset_id, run_id, session_id AS session_key,",
    "       countIf(session_key != '') AS requests,",
    ...Object.entries(SESSION_FLAGS).map(([column, condition]) => `       if(session_key = '', 0, max(${condition})) AS ${column},`),
    ...(eventCounts ? [`       countIf(session_key != '' AND ${CARRIES_USER_EVENT}) AS event_requests,`] : []),
    "       countIf(session_key = '') AS sessionless_requests,",
    `       countIf(session_key = '' AND ${SESSION_FLAGS.resolved}) AS sessionless_resolved,`,
    `       countIf(session_key = '' AND ${FIRST_CONTACT}) AS sessionless_first_contact,`,
    "       {version:UInt64} AS version",
    `FROM ${database}.case_results FINAL`,
    `WHERE (${where}) AND ${COMPLETE}`,
    "GROUP BY minute, tenant_id, service_name, dataset_id, run_id, session_key",
  ].join("\n");
}

/** A rate over request_rollups: the sum of one count over the sum of another. */
function rolledUpRate(numerator: RequestCount, denominator: RequestCount): { value: string; samples: string } {
  return { value: `sum(${numerator}) / nullIf(sum(${denominator}), 0)`, samples: `sum(${denominator})` };
}

/**
 * A behaviour rate over requests: a Case Result rebuilt from user events alone
 * (a late event whose request the store never saw, kept as a partial result)
 * is not a request, so partial results are left out of both counts.
 */
function behaviourRate(name: string, label: string, rolledUp: [RequestCount, RequestCount]): AggregateMetric {
  // The numerator counts only requests of the denominator (a click on an answer that cited nothing is not counted).
  return { ...caseRate(name, label, REQUEST_ROLLUP_COUNTS[rolledUp[0]], REQUEST_ROLLUP_COUNTS[rolledUp[1]], rolledUp), measuredFrom: "user_events" };
}

/**
 * A share of requests. `rolledUp` names the request_rollups counts of the numerator and the denominator
 * (REQUEST_ROLLUP_COUNTS holds these very conditions); without it the rate reads the raw rows only.
 */
function caseRate(name: string, label: string, numerator: string, denominator: string | null, rolledUp?: [RequestCount, RequestCount]): AggregateMetric {
  const samples = denominator === null ? "count()" : `countIf(${denominator})`;
  return {
    name,
    label,
    unit: "percentunit",
    source: "case_results",
    storedMetrics: [],
    value: `countIf(${numerator}) / nullIf(${samples}, 0)`,
    samples,
    ...(rolledUp === undefined ? {} : { rollup: rolledUpRate(rolledUp[0], rolledUp[1]) }),
  };
}

/**
 * A share of abstention pairs: over the raw pairs, or over abstention_rollups (the same counts, migration 0017).
 * Labelled a heuristic on every surface: it counts every stored abstention reading, a refusal phrase beside the
 * answer's own claims among them, where the release gate counts exact readings only (aggregate/no-answer-accuracy.ts).
 */
function abstentionRate(name: string, label: string, numerator: AbstentionCount, denominator: AbstentionCount): AggregateMetric {
  const condition = ABSTENTION_ROLLUP_COUNTS;
  return {
    name,
    label: `${label}${HEURISTIC_METRIC_LABEL_SUFFIX}`,
    unit: "percentunit",
    source: "abstention",
    storedMetrics: [],
    value: `countIf(${condition[numerator]}) / nullIf(countIf(${condition[denominator]}), 0)`,
    samples: `countIf(${condition[denominator]})`,
    rollup: { value: `sum(${numerator}) / nullIf(sum(${denominator}), 0)`, samples: `sum(${denominator})` },
  };
}

/** Aggregates with a name of their own (not a plain mean of a stored metric). */
export const NAMED_AGGREGATES: readonly AggregateMetric[] = [
  // 无答案识别率 / No-answer Accuracy: abstention recall over unanswerable cases (abstained = correct).
  abstentionRate("no_answer_accuracy", "No-answer detection", "true_abstentions", "unanswerable"),
  // 正确拒答率: abstention precision, correct refusals over all refusals.
  abstentionRate("correct_refusal_rate", "Correct refusals", "true_abstentions", "refusals"),
  // 错误拒答率: refusals of answerable questions over answerable questions (abstained != correct).
  abstentionRate("false_refusal_rate", "False refusals", "false_refusals", "answerable"),
  // 幻觉率 and 权限泄露率, as the gate computes them (evaluators/aggregate/dataset-shares.ts).
  shareOf(DATASET_SHARES.hallucination_rate),
  shareOf(DATASET_SHARES.permission_leak_rate),
  caseRate("error_rate", "Error rate", REQUEST_ROLLUP_COUNTS.errors, null, ["errors", "all_requests"]),
  caseRate("timeout_rate", "Timeout rate", REQUEST_ROLLUP_COUNTS.timeouts, null, ["timeouts", "all_requests"]),
  caseRate("task_success_rate", "Task success", REQUEST_ROLLUP_COUNTS.task_passed, REQUEST_ROLLUP_COUNTS.task_judged, ["task_passed", "task_judged"]),
  caseRate("review_required_rate", "Needs review", REQUEST_ROLLUP_COUNTS.review_required_verdicts, null, ["review_required_verdicts", "all_requests"]),
  caseRate("unjudged_rate", "Unjudged", REQUEST_ROLLUP_COUNTS.unjudged_verdicts, null, ["unjudged_verdicts", "all_requests"]),
  // Thumbs-down share of the thumbs given (a gate metric); the last thumbs of a request counts.
  caseRate("thumbs_down_rate", "Thumbs down", REQUEST_ROLLUP_COUNTS.thumbs_down, REQUEST_ROLLUP_COUNTS.thumbs_given, ["thumbs_down", "thumbs_given"]),
  // 人工转接率, evaluators/behaviour/handoff-rate.ts.
  behaviourRate("handoff_rate", "Handoff rate", ["handed_off", "complete_requests"]),
  // 点赞率 / 点踩率 over all requests, evaluators/behaviour/like-rate.ts, dislike-rate.ts.
  behaviourRate("like_rate", "Like rate", ["liked", "complete_requests"]),
  behaviourRate("dislike_rate", "Dislike rate", ["disliked", "complete_requests"]),
  // 答案复制率, copy-rate.ts.
  behaviourRate("copy_rate", "Copy rate", ["copied", "complete_requests"]),
  // 引用点击率 over answers that cited something, citation-click-rate.ts.
  behaviourRate("citation_click_rate", "Citation clicks", ["citation_clicked", "cited_requests"]),
  // 用户满意度: the mean of the last numeric rating of rated requests, satisfaction.ts.
  {
    name: "satisfaction",
    label: "Satisfaction",
    unit: "none",
    source: "case_results",
    storedMetrics: [],
    value: `avgIf(${LAST_RATING}, ${REQUEST_ROLLUP_COUNTS.rating_count})`,
    samples: `countIf(${REQUEST_ROLLUP_COUNTS.rating_count})`,
    rollup: { value: "sum(rating_sum) / nullIf(sum(rating_count), 0)", samples: "sum(rating_count)" },
    measuredFrom: "user_events",
  },
  // 会话解决率, session-resolution-rate.ts.
  // Over session_rollups: its source's rows are sessions with a weight (SOURCES.session_rollups).
  {
    name: "session_resolution_rate",
    label: "Sessions resolved",
    unit: "percentunit",
    source: "sessions",
    storedMetrics: [],
    value: "countIf(resolved = 1) / nullIf(count(), 0)",
    samples: "count()",
    rollup: { value: "sum(resolved_sessions) / nullIf(sum(sessions), 0)", samples: "sum(sessions)" },
    measuredFrom: "user_events",
  },
  // 问题一次解决率: one request, resolved, no handoff or follow-up; first-contact-resolution.ts.
  {
    name: "first_contact_resolution",
    label: "First-contact resolution",
    unit: "percentunit",
    source: "sessions",
    storedMetrics: [],
    value: "countIf(requests = 1 AND resolved = 1 AND handed_off = 0 AND followed_up = 0) / nullIf(count(), 0)",
    samples: "count()",
    rollup: { value: "sum(first_contact_sessions) / nullIf(sum(sessions), 0)", samples: "sum(sessions)" },
    measuredFrom: "user_events",
  },
  meanOf(METRIC.cost, "Cost per request", "none", "average_cost"),
];

export interface AggregateSelect {
  /** Columns before the aggregates, e.g. `$__timeInterval(ts) AS time`. */
  leading?: string[];
  /** The leading columns when the SELECT reads a rollup table (their counts are columns of it); `leading` otherwise. */
  rolledUpLeading?: string[];
  scope: Scope;
  groupBy?: string;
  having?: string;
  orderBy?: string;
  /** Also select `<samples> AS samples` (alerts use it for min_samples). */
  withSamples?: boolean;
  /** Read metric_rollups when every aggregate has a rollup form (dashboards' range panels); raw rows otherwise. */
  preferRollups?: boolean;
  /** Lets metric_rollups read whole hours (SOURCES' `from`); minutes only without it. */
  hours?: RangeReading;
  /**
   * Beside an aggregate, the count it stands on (rate-basis.ts): `<samples> AS "<label> · <part>"` — the aggregate's
   * own samples, so the count is its denominator whatever source or rollup the SELECT reads. The part names what is
   * counted ("unanswerable", "values"); null leaves the aggregate without one.
   */
  basis?: (metric: AggregateMetric) => string | null;
  /** The basis columns without the aggregates (a chart of what each time bucket stands on). */
  basisOnly?: boolean;
}

/**
 * Whether any session of the result's rows carries a user event: the rows' event_requests (SOURCES.sessions and
 * SOURCES.session_rollups) summed over every group of the SELECT, whatever its grouping (a bucket without events in
 * a range with some is 0 %, as for the request rates).
 */
const SESSIONS_CARRY_EVENTS = "(sum(sum(event_requests)) OVER ()) > 0";

/** The events request_rollups counts (thumbs_given, copied, handed_off, citation_clicked, rating_count): the answer reactions the request rates read. */
const REQUEST_RATE_EVENT_KINDS = ANSWER_REACTION_KINDS;

/**
 * One SELECT computing several aggregates of the same source, each aliased by
 * its label. `{time}` in `leading`, `groupBy` and `orderBy` is replaced by the
 * source's time column.
 */
export function aggregateSelect(metrics: readonly AggregateMetric[], options: AggregateSelect): string {
  const source = metrics[0]?.source;
  if (source === undefined) throw new Error("aggregateSelect needs at least one aggregate");
  if (metrics.some((metric) => metric.source !== source)) throw new Error(`aggregates of one SELECT must share a source: ${metrics.map((metric) => `${metric.name} (${metric.source})`).join(", ")}`);
  const rollupTable = ROLLUP_OF[source];
  const rolledUp = options.preferRollups === true && rollupTable !== undefined && metrics.every((metric) => metric.rollup !== undefined);
  const definition = SOURCES[rolledUp ? rollupTable : source];
  const form = (metric: AggregateMetric): { value: string; samples: string } => {
    const chosen = rolledUp ? metric.rollup! : metric;
    if (metric.measuredFrom !== "user_events") return chosen;
    // Over the whole scope (the range and filters), whatever the grouping: a bucket without events in a range with some is 0 %.
    // The request rates are made of the events the request rollups count: probe those, in the rollups when the panel
    // reads them (so a range reads no raw rows, migration 0014) and in the raw rows otherwise, the same events both ways.
    // The session rates probe the sessions they count: each session row (raw or from the session rollups, migration
    // 0025) carries its requests with a user event, and a window over every group of the result sums them over the
    // whole scope — no second read of the range. No session with a user event, or no session at all: no data.
    if (source === "sessions") return { value: `if(${SESSIONS_CARRY_EVENTS}, ${chosen.value}, NULL)`, samples: `if(${SESSIONS_CARRY_EVENTS}, ${chosen.samples}, 0)` };
    if (source !== "case_results") return chosen;
    const carried = rolledUp ? userEventsInRollups(options.scope) : userEventsIn(options.scope, REQUEST_RATE_EVENT_KINDS);
    return { value: `if(${carried}, ${chosen.value}, NULL)`, samples: `if(${carried}, ${chosen.samples}, 0)` };
  };
  const time = (text: string): string => text.replaceAll("{time}", definition.timeColumn);
  const storedMetrics = [...new Set(metrics.flatMap((metric) => metric.storedMetrics))];
  const columns = [
    ...((rolledUp ? (options.rolledUpLeading ?? options.leading) : options.leading) ?? []).map(time),
    ...metrics.flatMap((metric) => {
      const part = options.basis?.(metric) ?? null;
      const value = options.basisOnly === true ? [] : [`${form(metric).value} AS ${quoteAlias(metric.label)}`];
      return part === null ? value : [...value, `${form(metric).samples} AS ${quoteAlias(basisColumn(metric.label, part))}`];
    }),
    ...(options.withSamples ? [`${metrics.map((metric) => form(metric).samples).join(" + ")} AS samples`] : []),
  ];
  const clauses = [`SELECT ${columns.join(", ")}`, `FROM ${definition.from(options.scope, storedMetrics, options.hours)}`];
  if (options.groupBy) clauses.push(`GROUP BY ${time(options.groupBy)}`);
  if (options.having) clauses.push(`HAVING ${options.having}`);
  if (options.orderBy) clauses.push(`ORDER BY ${time(options.orderBy)}`);
  return clauses.join("\n");
}

/**
 * Whether any complete request of the scope carries a user event: one such row is enough (LIMIT 1), and a row
 * without events reads only the size of feedback_kinds (migration 0013). Read from case_results, not the rollups,
 * because the rollups count only some kinds of event (a resolved or abandoned event is in none of their columns).
 */
function userEventsIn(scope: Scope, kinds: readonly string[] | null = null): string {
  const carries = kinds === null ? `notEmpty(${FEEDBACK_KINDS})` : `hasAny(${FEEDBACK_KINDS}, [${kinds.map(sqlString).join(", ")}])`;
  return `((SELECT count() FROM (SELECT 1 FROM case_results FINAL WHERE ${scope("started_at")} AND ${COMPLETE} AND ${carries} LIMIT 1)) > 0)`;
}


/**
 * userEventsIn for a panel that reads request_rollups: the boards moved there so that a range reads no raw rows
 * (migration 0014), and a probe of case_results would read them again — every row of the range when none carries
 * an event. The rollups count the events these rates are made of (thumbs, copy, handoff, citation click, rating);
 * an application recording only follow-up, resolved or abandoned events reads "no data" here, which is what these
 * rates observed of it.
 */
function userEventsInRollups(scope: Scope): string {
  // Events of complete requests only, the requests the rates are over: liked + disliked, not thumbs_given (every
  // result's last thumbs, the thumbs-down rate's count) — a late thumbs for a request the store never saw (a partial
  // result) turned "no data" into 0 % of requests none of which carried an event.
  return `((SELECT sum(liked + disliked + copied + handed_off + citation_clicked + rating_count) FROM request_rollups FINAL WHERE ${scope("minute")}) > 0)`;
}

/** Column aliases are shown as they are; double quotes allow spaces and @. */
export function quoteAlias(label: string): string {
  if (label.includes('"')) throw new Error(`a column label must not contain a double quote: ${label}`);
  return `"${label}"`;
}
