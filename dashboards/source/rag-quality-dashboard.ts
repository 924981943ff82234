/**
 * RAG quality — the seed's core board (004 §十二), one row per layer:
 * retrieval, context, generation, boundaries, engineering, business. Each row
 * has the numbers over the time range and their course over time.
 */
import * as dashboard from "@grafana/grafana-foundation-sdk/dashboard";
import { aggregateSelect, QUALITY_STATES, quoteAlias, SOURCES, VERDICT_COUNTS, type AggregateMetric } from "./aggregate-metrics.js";
import { ABSTENTION_AGGREGATES, BUSINESS_AGGREGATES, CONTEXT, GENERATION, latencyAggregates, means, namedAggregate as named, RELIABILITY_AGGREGATES, RETRIEVAL, retrievalPermissionViolations, RISK_AGGREGATES, TOKENS, usageAggregates, type StoredMetric } from "./quality-board.js";
import { dashboardShell } from "./dashboard-shell.js";
import { basisColumn } from "./rate-basis.js";
import { stageLatencyOverTimeSql, stageLatencyTableSql } from "./stage-latency.js";
import { row, statPanel, tablePanel, timeSeriesPanel, type ColumnOverride } from "./panel-builders.js";
import { dashboardHours, dashboardHoursOverTime, dashboardScope, sqlList, sqlString } from "./sql-scope.js";
import { filterVariables } from "./variables.js";

export const RAG_QUALITY_UID = "ragscope-rag-quality";

const TIME_BUCKET = "$__timeInterval({time}) AS time";


/**
 * Long format: one series per stored metric, named by its label; the mean per
 * time bucket from the rollups (sum / count of whole minutes, migration 0009; of
 * whole hours, 0018, where the buckets are whole hours).
 */
export function storedMetricSeriesSql(metrics: readonly StoredMetric[]): string {
  const names = metrics.map((metric) => metric.metric);
  const labels = metrics.map((metric) => metric.label);
  return [
    `SELECT $__timeInterval(minute) AS time, transform(metric, [${sqlList(names)}], [${sqlList(labels)}], metric) AS series, sum(value_sum) / nullIf(sum(value_count), 0) AS Value`,
    `FROM ${SOURCES.metric_rollups.from(dashboardScope, names, dashboardHoursOverTime)}`,
    `GROUP BY time, series`,
    `HAVING sum(value_count) > 0`,
    `ORDER BY time`,
  ].join("\n");
}

// Range panels read the rollups wherever an aggregate has a rollup form (aggregate-metrics.ts).
function overTime(aggregates: readonly AggregateMetric[]): string {
  return aggregateSelect(aggregates, { leading: [TIME_BUCKET], hours: dashboardHoursOverTime, scope: dashboardScope, groupBy: "time", orderBy: "time", preferRollups: true });
}

function overRange(aggregates: readonly AggregateMetric[], basis?: (aggregate: AggregateMetric) => string | null): string {
  return aggregateSelect(aggregates, { scope: dashboardScope, hours: dashboardHours, preferRollups: true, ...(basis === undefined ? {} : { basis }) });
}

/** Units of a stat panel's basis columns (counts) beside its rates. */
const countColumns = (columns: readonly string[]): ColumnOverride[] => columns.map((column) => ({ column, unit: "short" }));

function layerRow(title: string, metrics: readonly StoredMetric[], description: string): { row: dashboard.RowBuilder; panels: Parameters<dashboard.DashboardBuilder["withPanel"]>[0][] } {
  return {
    row: row(title),
    panels: [
      statPanel(
        `${title}: means over the range`,
        `${description} Each mean says what it stands on: · values is how many values it averages (a request the metric does not apply to has none); Complete requests is the requests of the range, so 12 values of 18 requests is a mean over two thirds of them.`,
        [overRange(means(metrics), () => MEAN_BASIS), completeRequestsSql()],
        "percentunit",
        { width: 24, height: 4 },
        countColumns([...metrics.map((metric) => basisColumn(metric.label, MEAN_BASIS)), COMPLETE_REQUESTS]),
      ),
      timeSeriesPanel(`${title} over time`, `${description} Mean per time bucket.`, storedMetricSeriesSql(metrics), "percentunit", { width: 24, height: 8 }, { seriesColumn: "series" }),
    ],
  };
}

export function ragQualityDashboard(): dashboard.DashboardBuilder {
  let builder = dashboardShell(RAG_QUALITY_UID, "ragscope — RAG quality", "The core RAG quality board of the evaluation system (seed 004): retrieval, context, generation, boundaries, engineering and business metrics over the ClickHouse tables.");
  for (const variable of filterVariables()) builder = builder.withVariable(variable);

  const layers = [
    layerRow("Retrieval", RETRIEVAL, "Ranking of the retrieved chunks against the gold evidence (retrieval.ranking), over requests with gold evidence."),
    layerRow("Context", CONTEXT, "What reached the prompt: gold evidence coverage, precision, density and repetition of the packed chunks."),
    layerRow("Generation", GENERATION, "Answer quality: judged correctness, faithfulness and relevance, key-point completeness, citation accuracy."),
  ];
  for (const layer of layers) {
    builder = builder.withRow(layer.row);
    for (const panel of layer.panels) builder = builder.withPanel(panel);
  }

  const abstention = ABSTENTION_AGGREGATES.map(named);
  const risks = [...RISK_AGGREGATES.map(named), retrievalPermissionViolations()];
  const boundaryBasis = (aggregate: AggregateMetric): string | null => BOUNDARY_BASIS[aggregate.name] ?? null;
  builder = builder
    .withRow(row("Boundaries"))
    .withPanel(
      statPanel(
        "Boundaries: rates over the range",
        "No-answer detection = abstentions on unanswerable cases / unanswerable cases; correct refusals = right abstentions / abstentions; false refusals = abstentions on answerable cases / answerable cases; hallucination rate = answers with faithfulness below 1 / answers with a faithfulness value (from an LLM judge); permission leaks = requests where a chunk the principal may not read reached the context or the answer / requests where that could be checked; permission violations in retrieval = the share of a request's retrieved chunks (before a rerank too) the principal may not read, averaged over the requests where that could be checked — above 0 % when retrieval returned such a chunk, even one a rerank dropped before the context (the gate holds it at 0). Each rate says what it stands on, its denominator: · unanswerable, · refusals, · answerable (cases with both abstention metrics), · with faithfulness, · checked — 50 % of 2 unanswerable cases is not 50 % of the traffic.",
        [overRange(abstention, boundaryBasis), overRange(risks, boundaryBasis)],
        "percentunit",
        { width: 24, height: 4 },
        countColumns([...abstention, ...risks].map((aggregate) => basisColumn(aggregate.label, boundaryBasis(aggregate)!))),
      ),
    )
    .withPanel(timeSeriesPanel("Boundaries over time", "The boundary rates per time bucket.", [overTime(abstention), overTime(risks)], "percentunit", { width: 24, height: 8 }));

  const reliability = RELIABILITY_AGGREGATES.map(named);
  const latency = latencyAggregates();
  const usage = usageAggregates();
  // Requests counted from request_rollups (migration 0014), as the rates beside them: a 30-day range reads minutes, not every request.
  const requestsOverRange = `sum(all_requests) AS "Requests", sum(all_requests) / greatest(dateDiff('second', $__fromTime, $__toTime), 1) AS "QPS"`;
  builder = builder
    .withRow(row("Engineering"))
    .withPanel(
      statPanel(
        "Traffic, reliability, latency and cost",
        "Requests and QPS over the range, error and timeout rates (a timeout is not also an error), latency percentiles of the whole request (t-digest estimates from the rollups, within about 1 % of the ranks), mean cost and tokens per request over the requests that recorded them: · values says how many (a request that called a model and recorded no cost is not in the cost's mean, so 30 values of 60 requests is a mean over half of them).",
        [
          aggregateSelect(reliability, { leading: [requestsOverRange], scope: dashboardScope, preferRollups: true }),
          overRange(latency),
          overRange(usage, () => MEAN_BASIS),
        ],
        "short",
        { width: 24, height: 4 },
        [
          { column: "QPS", unit: "reqps" },
          ...reliability.map((aggregate) => ({ column: aggregate.label, unit: "percentunit" })),
          ...latency.map((aggregate) => ({ column: aggregate.label, unit: "ms" })),
          // Costs per request are fractions of a cent to a few cents: two decimals read 0.00575 as 0.01.
          ...usage.filter((aggregate) => aggregate.name === "average_cost").map((aggregate) => ({ column: aggregate.label, decimals: 4 })),
          ...countColumns(usage.map((aggregate) => basisColumn(aggregate.label, MEAN_BASIS))),
        ],
      ),
    )
    .withPanel(timeSeriesPanel("Request latency P50 / P95 / P99", "Percentiles of the request's duration per time bucket (t-digest estimates from the rollups, within about 1 % of the ranks of the exact nearest-rank values).", overTime(latency), "ms", { width: 12, height: 8 }))
    .withPanel(
      timeSeriesPanel(
        "Stage latency P95",
        "P95 of each stage's duration (rag_observation.stage_timings) per time bucket: a t-digest estimate merged from the per-minute rollups (stage_rollups), within about 1 % of the ranks of the exact nearest-rank value.",
        stageLatencyOverTimeSql(),
        "ms",
        { width: 12, height: 8 },
        { seriesColumn: "series" },
      ),
    )
    .withPanel(
      tablePanel(
        "Stage latency",
        "Per stage over the range: spans recorded, mean and P50 / P95 / P99 duration (t-digest estimates merged from the per-minute rollups, stage_rollups, within about 1 % of the ranks of the exact nearest-rank values).",
        stageLatencyTableSql(),
        { width: 12, height: 8 },
        ["Mean", "P50", "P95", "P99"].map((column) => ({ column, unit: "ms" })),
      ),
    )
    .withPanel(
      timeSeriesPanel(
        "Requests per second",
        "Requests started per second in each time bucket (request_rollups: per minute, so a bucket shorter than a minute holds its minute's requests).",
        ["SELECT $__timeInterval(minute) AS time, sum(all_requests) / $__interval_s AS \"QPS\"", `FROM ${SOURCES.request_rollups.from(dashboardScope, [])}`, "GROUP BY time", "ORDER BY time"].join("\n"),
        "reqps",
        { width: 12, height: 8 },
      ),
    )
    .withPanel(timeSeriesPanel("Error and timeout rates", "Share of requests that errored or timed out, per time bucket.", overTime(reliability), "percentunit", { width: 12, height: 8 }))
    .withPanel(timeSeriesPanel("Tokens per request", "Mean prompt, completion and total tokens per request.", storedMetricSeriesSql(TOKENS), "short", { width: 12, height: 8 }, { seriesColumn: "series" }))
    .withPanel(timeSeriesPanel("Cost per request", "Mean generation cost per request, in the pipeline's currency.", overTime([named("average_cost")]), "none", { width: 12, height: 8 }));

  // Seed §十二 业务指标: 任务成功率, 用户满意度, 点踩率, 人工转接率, 问题一次解决率.
  const business = BUSINESS_AGGREGATES.map(named);
  const firstContact = ["first_contact_resolution"].map(named);
  const behaviour = ["like_rate", "dislike_rate", "copy_rate", "citation_click_rate", "handoff_rate"].map(named);
  const sessions = ["session_resolution_rate", "first_contact_resolution"].map(named);
  builder = builder
    .withRow(row("Business"))
    .withPanel(
      statPanel(
        "Business: rates over the range",
        "Task success = requests judged a pass (by a rule against gold data or an LLM judge) without error or timeout / requests with a verdict (passed, failed, needs review, errors, timeouts) — unjudged requests are not passes and are left out (Task success · judged is the requests it is over, a partial trace a rule judged included — its root span never arrived, yet it is a request; · not judged the complete requests left out, without a verdict: 0 % of 4 judged is not 0 % of every request; a partial result without a verdict, such as one rebuilt from late user events alone, without its request, is in neither); dislike rate = requests whose last thumbs is down / requests (Dislike rate · requests is its denominator, · with a thumbs the requests whose user gave a thumbs up or down at all); handoff rate = requests handed off to a person / requests; first-contact resolution = sessions with one request, marked resolved, without handoff or follow-up / sessions (a session is the requests of one session id; a request without one is in no session). User events count when they arrive, even days after the request (merged into its Case Result). Only what the application reports is counted: a resolution nobody reported is not one; when no request of the range carries a reaction to its answer (thumbs, copy, handoff, citation click or rating — an application recording only follow-up, resolved or abandoned events has none), the dislike and handoff rates are no data, not 0 %, and so is first-contact resolution when no session of the range does (a late event for a request the store never saw is of no request and does not count). Definitions: evaluators/behaviour/README.md.",
        [overRange(business), overRange(firstContact), requestBasisSql([...taskSuccessBasis(), ...dislikeBasis()])],
        "percentunit",
        { width: 18, height: 4 },
        countColumns([...taskSuccessBasis(), ...dislikeBasis()].map((count) => count.column)),
      ),
    )
    .withPanel(
      statPanel(
        "User satisfaction",
        "Mean of the last numeric rating of each rated request (SDK recordUserEvent kind rating), on the application's own scale; unrated requests are left out, not counted as 0. Users who choose to rate are rarely typical.",
        [overRange([named("satisfaction")])],
        "none",
        { width: 6, height: 4 },
      ),
    )
    .withPanel(timeSeriesPanel("Business over time", "The business rates per time bucket (sessions placed at their first request).", [overTime(business), overTime(firstContact)], "percentunit", { width: 24, height: 8 }))
    .withPanel(
      timeSeriesPanel(
        "Business over time: what each bucket stands on",
        "The count each business rate of a time bucket is over (its denominator), so a bucket's 0 % or 100 % of 1 is told from one of 200: Task success · judged (requests with a verdict, errors and timeouts included), Dislike rate · requests (the complete requests; the handoff rate is over the same), First-contact resolution · sessions (sessions with an id, placed at their first request). Counted whether or not the application records user events: where it records none the behaviour rates are no data, and these bars still show what they would be over.",
        [bucketBasis(business), bucketBasis(firstContact)],
        "short",
        { width: 24, height: 6 },
        { bars: true },
      ),
    )
    .withPanel(
      statPanel(
        "User behaviour over the range",
        "Per request: like / dislike = the last thumbs is up / down; copy = the answer was copied; citation clicks = a citation was opened / answers that cited something (Dislike rate · requests and · with a thumbs, Citation clicks · cited answers and · with a click say what the two stand on: 1 click of 2 cited answers is 50 %); handoff = handed to a person. Per session (the requests of one session id; a request without one is in no session): resolved = marked resolved; first-contact = resolved by its only request. No data, not 0 %, when no request of the range carries a reaction to its answer — thumbs, copy, handoff, citation click or rating (the application may not record them) — for the session rates, when no session of the range does; a late event for a request the store never saw is of no request and does not count. Caution: a high citation-click rate is not necessarily good — it may mean users do not trust the answer and check its sources. Follow-up, repeated-question and abandonment rates need session windows (a follow-up within 10 minutes, a near-duplicate question within 30, silence for 30) have no panel here: the web UI's Quality page, `ragscope report` and `ragscope experiment report` show them (evaluators/behaviour/): a high follow-up rate may mean incomplete answers, a high repeated-question rate that the question was not understood.",
        [overRange(behaviour), overRange(sessions), requestBasisSql([...dislikeBasis(), ...citationClickBasis()])],
        "percentunit",
        { width: 24, height: 4 },
        countColumns([...dislikeBasis(), ...citationClickBasis()].map((count) => count.column)),
      ),
    )
    .withPanel(
      tablePanel(
        "Online experiments by variant",
        "Requests of each experiment variant (traceRequest experimentId / experimentVariant) with their raw behaviour rates. Raw rates only: no interval, no p-value, no sample ratio check and no clustering by user — decide with `ragscope experiment report --id <experiment>` (evaluators/experiments/README.md), which also waits for the minimum sample. A high citation-click rate may mean distrust, not interest.",
        aggregateSelect(["like_rate", "dislike_rate", "copy_rate", "citation_click_rate", "handoff_rate"].map(named), {
          // case_results' experiment columns (migration 0010) and, over request_rollups (migration 0014), their counts.
          leading: ["experiment_id AS experiment", "experiment_variant AS variant", "countIf(partial_trace = 0) AS requests", "uniqExactIf(user_id, partial_trace = 0) AS users"],
          rolledUpLeading: ["experiment_id AS experiment", "experiment_variant AS variant", "sum(complete_requests) AS requests", "uniqExactMerge(user_states) AS users"],
          preferRollups: true,
          scope: dashboardScope,
          groupBy: "experiment, variant",
          having: "experiment != '' AND variant != ''",
          orderBy: "experiment, variant",
        }),
        { width: 24, height: 8 },
        ["Like rate", "Dislike rate", "Copy rate", "Citation clicks", "Handoff rate"].map((column) => ({ column, unit: "percentunit" })),
      ),
    )
    .withPanel(
      timeSeriesPanel(
        "User behaviour over time",
        "The behaviour rates per time bucket. A rise in citation clicks can be distrust as much as interest; read it with the dislike and handoff rates.",
        [overTime(behaviour), overTime(sessions)],
        "percentunit",
        { width: 24, height: 8 },
      ),
    )
    .withPanel(
      statPanel(
        "Verdicts over the range",
        "Requests per final verdict (a human review's verdict where the reviewers agreed, else quality_status): passed = judged a pass by something able to judge it (a rule against gold data, an LLM judge); failed; needs review = an evaluator errored or a heuristic signal (claim overlap, the heuristic judge) is against it and no LLM judge has looked yet; unjudged = measured, nothing against it, nothing able to judge it did (online traffic without a judge) — not a pass; not evaluated = nothing applied.",
        [verdictCountsSql()],
        "short",
        { width: 24, height: 4 },
      ),
    );
  return builder;
}

/** The count each layer's mean stands on: its values. */
const MEAN_BASIS = "values";
/** The column of the complete requests beside the layers' means. */
const COMPLETE_REQUESTS = "Complete requests";

/** What each boundary rate is over (its denominator): a part of the column `<label> · <part>` (rate-basis.ts). */
const BOUNDARY_BASIS: Record<string, string> = {
  no_answer_accuracy: "unanswerable",
  correct_refusal_rate: "refusals",
  false_refusal_rate: "answerable",
  hallucination_rate: "with faithfulness",
  permission_leak_rate: "checked",
  permission_violation_rate: "checked",
};

/** A count of request_rollups (migration 0014) beside a rate: its column and its aggregate SQL. */
interface RequestBasis {
  column: string;
  sql: string;
}

/**
 * The requests of the range, from request_rollups as the rates: complete requests only — a Case Result rebuilt from
 * late user events alone (the store never saw its request: partial_trace = 1, COMPLETE in aggregate-metrics.ts) is
 * no request, as the behaviour rates already count.
 */
function completeRequestsSql(): string {
  return requestBasisSql([{ column: COMPLETE_REQUESTS, sql: "sum(complete_requests)" }]);
}

/**
 * What task success stands on (rate-basis.ts): the requests it is over — its denominator, requests with a verdict or
 * that errored or timed out, a partial trace with a verdict included (a request whose root span never arrived, yet a
 * rule judged it: a question was asked, seed 004 §六.1 counts it) — and the complete requests left out (unjudged, not
 * evaluated), from request_rollups as the rate. A partial result without a verdict is in neither: a result rebuilt
 * from late user events alone is no request (nothing to judge), and the rollups cannot tell it from a partial trace
 * nobody judged. "Not judged" is its own count (task_not_judged, migration 0033), not complete requests minus judged,
 * which lost one for each judged partial trace (and could go below 0).
 */
function taskSuccessBasis(): RequestBasis[] {
  const taskSuccess = named("task_success_rate");
  if (taskSuccess.rollup === undefined) throw new Error("task success has no request_rollups form");
  return [
    { column: basisColumn(taskSuccess.label, "judged"), sql: taskSuccess.rollup.samples },
    { column: basisColumn(taskSuccess.label, "not judged"), sql: "sum(task_not_judged)" },
  ];
}

/**
 * What the dislike rate stands on: the complete requests (its denominator when the range carries user events) and of
 * them those whose user gave a thumbs at all — 2 % of 1,000 requests of which 10 got a thumbs is 2 of 10 voters.
 * Counted whether or not the range carries events: "no data (18 requests; 0 with a thumbs)" says why it is no data.
 */
function dislikeBasis(): RequestBasis[] {
  const label = named("dislike_rate").label;
  return [
    { column: basisColumn(label, "requests"), sql: "sum(complete_requests)" },
    { column: basisColumn(label, "with a thumbs"), sql: "sum(liked + disliked)" },
  ];
}

/** What the citation-click rate stands on: the answers that cited something (its denominator) and those with a click. */
function citationClickBasis(): RequestBasis[] {
  const label = named("citation_click_rate").label;
  return [
    { column: basisColumn(label, "cited answers"), sql: "sum(cited_requests)" },
    { column: basisColumn(label, "with a click"), sql: "sum(citation_clicked)" },
  ];
}

function requestBasisSql(counts: readonly RequestBasis[]): string {
  const columns = counts.map((count) => `${count.sql} AS ${quoteAlias(count.column)}`);
  return [`SELECT ${columns.join(", ")}`, `FROM ${SOURCES.request_rollups.from(dashboardScope, [])}`].join("\n");
}

/**
 * Per time bucket, the count each rate of `aggregates` stands on (its samples), from the rollups as the rates over
 * time. Counted whether or not the range carries user events, as the counts beside the rates over the range: a
 * behaviour rate that is no data (nothing recorded) still shows the requests or sessions it would be over.
 */
function bucketBasis(aggregates: readonly AggregateMetric[]): string {
  const part = (aggregate: AggregateMetric): string | null => BUCKET_BASIS[aggregate.name] ?? null;
  const counted = aggregates.map(({ measuredFrom: _probedForEvents, ...aggregate }) => aggregate);
  return aggregateSelect(counted, { leading: [TIME_BUCKET], hours: dashboardHoursOverTime, scope: dashboardScope, groupBy: "time", orderBy: "time", preferRollups: true, basis: part, basisOnly: true });
}

/** The business rates' bases per bucket; the handoff rate is over the dislike rate's requests, shown once. */
const BUCKET_BASIS: Record<string, string> = { task_success_rate: "judged", dislike_rate: "requests", first_contact_resolution: "sessions" };

/** The requests of each final verdict, from request_rollups' counts (migration 0014; the same conditions over case_results FINAL). */
function verdictCountsSql(): string {
  const columns = QUALITY_STATES.map((state) => `sum(${VERDICT_COUNTS[state.status]!}) AS ${quoteAlias(state.label)}`);
  return [`SELECT ${columns.join(", ")}`, `FROM ${SOURCES.request_rollups.from(dashboardScope, [])}`].join("\n");
}

export const RAG_QUALITY_METRICS = { RETRIEVAL, CONTEXT, GENERATION, TOKENS };
