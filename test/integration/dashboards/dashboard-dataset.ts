/**
 * A seeded dataset for the dashboards: online traffic from two services and
 * two tenants, and two offline runs of the same cases where some evaluations
 * flip, written through the real ClickHouse sink (store/clickhouse/) so rows
 * look exactly as the collector stores them. It carries every metric the
 * panels read, including those of evaluators still being added (judge
 * metrics, abstention, permissions), root-cause results, stage timings,
 * feedback, run lineage and collector health snapshots. Deterministic: a
 * seeded generator, times at fixed offsets from a recent whole hour.
 */
import { caseResult as caseResultSchema, type CaseResult } from "../../../contracts/case-result.js";
import type { EvaluationResult } from "../../../contracts/evaluation-result.js";
import { caseResultIdFor, evaluationResultIdFor } from "../../../contracts/ids.js";
import type { CaseEvaluation } from "../../../evaluators/evaluate-case-result.js";
import { ClickHouseRunLineageSink } from "../../../store/clickhouse/clickhouse-run-lineage-sink.js";
import type { ClickHouseConnection } from "../../../store/clickhouse/clickhouse-connection.js";
import { ClickHouseSink } from "../../../store/clickhouse/clickhouse-sink.js";
import { ClickHouseMetricRollups } from "../../../store/clickhouse/metric-rollups.js";
import { toRows, type CaseRows } from "../../../store/clickhouse/result-rows.js";
import { allOf, type Variables } from "../../../report/grafana-macros.js";

const HOUR = 3_600_000;
/** Recent whole hours: collector_health keeps 30 days (TTL), so fixed old dates would be gone. */
export const DATASET_START = Math.floor((Date.now() - 3 * HOUR) / HOUR) * HOUR;
export const DATASET_END = DATASET_START + 2 * 3_600_000;
export const BASELINE_RUN = "run-baseline";
export const CANDIDATE_RUN = "run-candidate";
export const DATASET_ID = "policy-regression";
export const SERVICES = ["policy-assistant", "support-bot"];
export const TENANTS = ["acme", "globex"];
export const ROOT_CAUSES = ["RETRIEVAL_MISS", "HALLUCINATION", "CONTEXT_TRUNCATED", "CITATION_ERROR"];

/** The boards' variables with every value of the dataset selected (All), and a trace for the trace panels. */
export function allDatasetVariables(traceId: string): Variables {
  return {
    service: allOf(SERVICES),
    tenant: allOf(TENANTS),
    dataset: allOf([DATASET_ID]),
    run: allOf([BASELINE_RUN, CANDIDATE_RUN]),
    baseline: { value: BASELINE_RUN },
    candidate: { value: CANDIDATE_RUN },
    trace_id: { value: traceId },
  };
}

export interface SeededDataset {
  evaluations: CaseEvaluation[];
  datasetOf: Map<string, string>;
  healthRows: Record<string, unknown>[];
  /** A trace whose case failed (has a root cause). */
  failingTraceId: string;
}

/** Small deterministic generator (LCG), so the dataset is the same on every run. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const iso = (ms: number) => new Date(ms).toISOString();
const hex = (value: number, length: number) => value.toString(16).padStart(length, "0").slice(-length);

interface RequestSpec {
  index: number;
  startedAt: number;
  runId: string;
  caseId: string;
  service: string;
  tenant: string;
  /** 0..1: how good this request is; below 0.35 it fails. */
  quality: number;
  status: "completed" | "failed" | "timeout";
  unanswerable: boolean;
}

function evaluation(caseResultId: string, evaluatorId: string, values: Record<string, number | null>, outcome: EvaluationResult["outcome"], reason: string, evaluatedAt: string): EvaluationResult {
  return {
    evaluation_result_id: evaluationResultIdFor(caseResultId, evaluatorId, "1"),
    case_result_id: caseResultId,
    evaluator_id: evaluatorId,
    evaluator_version: "1",
    metric_values: values,
    outcome,
    reason,
    evidence_refs: [],
    confidence: { value: 1, semantics: "deterministic_rule" },
    review_required: false,
    error_type: "none",
    evaluated_at: evaluatedAt,
  };
}

function buildRequest(spec: RequestSpec, random: () => number): CaseEvaluation {
  const traceId = hex(0xabc000 + spec.index, 8).padStart(32, "0");
  const caseResultId = caseResultIdFor({ traceId, runId: spec.runId, caseId: spec.caseId, caseVersion: spec.caseId === "" ? "" : "v1" });
  const completed = spec.status === "completed";
  const retrieve = 20 + random() * 60;
  const rerank = 10 + random() * 30;
  const generate = 400 + random() * 2_500 + (spec.status === "timeout" ? 6_000 : 0);
  const latency = retrieve + rerank + generate + 15;
  const inputTokens = Math.round(600 + random() * 900);
  const outputTokens = Math.round(80 + random() * 300);
  // User events (contracts/span-attributes.ts FeedbackKind), in time order, as the collector stores them.
  const at = (minutes: number) => iso(spec.startedAt + minutes * 60_000);
  const event = (kind: string, minutes: number, extra: { value?: string; chunk_id?: string } = {}) => ({ kind, value: extra.value ?? null, comment: null, recorded_at: at(minutes), span_id: hex(spec.index * 16 + minutes, 8).padStart(16, "0"), chunk_id: extra.chunk_id ?? null });
  const feedback = [
    ...(spec.index % 3 === 0 ? [event(spec.quality < 0.5 ? "thumbs_down" : "thumbs_up", 1)] : []),
    ...(spec.index % 4 === 0 ? [event("copy", 2)] : []),
    ...(spec.index % 5 === 0 ? [event("citation_click", 3, { chunk_id: "chunk-1" })] : []),
    ...(spec.index % 6 === 0 ? [event("rating", 4, { value: String(1 + (spec.index % 5)) })] : []),
    ...(spec.index % 7 === 0 ? [event("handoff", 5)] : []),
    ...(spec.index % 2 === 0 ? [event("resolved", 6)] : []),
  ];
  const parsed = caseResultSchema.parse({
    case_result_id: caseResultId,
    run_id: spec.runId,
    case_id: spec.caseId,
    case_version: spec.caseId === "" ? "" : "v1",
    execution_status: spec.status,
    quality_status: "not_evaluated",
    input_snapshot_uri: null,
    output: completed ? "answer" : null,
    rag_observation: {
      retrieved_chunks: [],
      context: "context",
      citations: spec.index % 2 === 0 ? ["chunk-1"] : [],
      abstained: null,
      generation: { model: "sim", input_tokens: inputTokens, output_tokens: outputTokens, total_tokens: inputTokens + outputTokens, cost: (inputTokens + outputTokens) * 0.00002, time_to_first_token_ms: 150 + random() * 300 },
      latency_ms: latency,
      stage_timings: [
        { stage: "retrieve", span_name: "rag.retrieve", duration_ms: retrieve, status: "ok" },
        { stage: "rerank", span_name: "rag.rerank", duration_ms: rerank, status: "ok" },
        { stage: "generate", span_name: "rag.generate", duration_ms: generate, status: spec.status === "completed" ? "ok" : "error" },
      ],
      tenant_id: spec.tenant,
      service_name: spec.service,
      route: "/answer",
      // Up to three requests per session, and every eighth request (from the second) a session of its own, so session
      // metrics have sessions of one and of several requests; every fourth request has no session id (no session).
      session_id: spec.index % 4 === 0 ? null : spec.index % 8 === 2 ? `session-alone-${spec.index}` : `session-${Math.floor(spec.index / 3)}`,
      user_id: `user-${Math.floor(spec.index / 6)}`,
      // Online requests take part in an experiment, split by user.
      experiment_id: spec.runId === "" ? "prompt-v2" : null,
      experiment_variant: spec.runId === "" ? (Math.floor(spec.index / 6) % 2 === 0 ? "control" : "treatment") : null,
      span_count: 5,
    },
    trace_id: traceId,
    execution_error: spec.status === "completed" ? { type: "none", message: null } : spec.status === "timeout" ? { type: "timeout", message: "generation timed out" } : { type: "system_error", message: "generator returned 500" },
    started_at: iso(spec.startedAt),
    completed_at: iso(spec.startedAt + latency),
  });
  const caseResult = { ...parsed, rag_observation: { ...parsed.rag_observation, feedback } } as CaseResult;
  const evaluatedAt = iso(spec.startedAt + latency + 500);
  const score = (base: number) => Math.max(0, Math.min(1, base + (random() - 0.5) * 0.2));
  const q = spec.quality;
  const passOrFail = (value: number, threshold: number): EvaluationResult["outcome"] => (value >= threshold ? "passed" : "failed");
  const recall5 = q >= 0.35 ? 1 : 0;
  // Metrics without a value: no gold evidence for a third of the requests (the ranking does not apply at all),
  // no key points (completeness), no known answerability online (abstention_correct), no dated citation in a run
  // (citation freshness, which then applies to none of a run's cases).
  const online = spec.caseId === "";
  const noGold = spec.index % 3 === 1;
  const ranking = noGold
    ? evaluation(caseResultId, "retrieval.ranking", { hit_at_1: null, recall_at_5: null, recall_at_10: null, mrr: null, ndcg_at_10: null }, "not_applicable", "no gold evidence", evaluatedAt)
    : evaluation(caseResultId, "retrieval.ranking", { hit_at_1: q > 0.6 ? 1 : 0, recall_at_5: recall5, recall_at_10: q >= 0.25 ? 1 : 0, mrr: q > 0.6 ? 1 : q >= 0.35 ? 0.5 : 0, ndcg_at_10: score(q) }, passOrFail(recall5, 0.5), recall5 === 1 ? "gold evidence in the top 5" : "recall_at_k = 0 (needs >= 0.5)", evaluatedAt);
  const results: EvaluationResult[] = [
    ranking,
    evaluation(caseResultId, "context.coverage", { context_precision: score(q), context_recall: score(q + 0.1), evidence_density: noGold ? null : score(q - 0.1), context_redundancy: score(0.2) }, "passed", "context coverage", evaluatedAt),
    evaluation(caseResultId, "generation.judge", { answer_correctness: score(q), faithfulness: q < 0.35 ? 0.6 : q > 0.5 ? 1 : 0.9, answer_relevance: score(q + 0.1), completeness: spec.index % 2 === 0 ? null : score(q), citation_accuracy: score(q + 0.05) }, passOrFail(q, 0.35), q >= 0.35 ? "supported answer" : "unsupported statement", evaluatedAt),
    evaluation(caseResultId, "answer.abstention", { abstained: spec.unanswerable ? (spec.index % 4 === 0 ? 0 : 1) : spec.index % 9 === 0 ? 1 : 0, abstention_correct: online && spec.index % 6 === 2 ? null : spec.unanswerable ? (spec.index % 4 === 0 ? 0 : 1) : spec.index % 9 === 0 ? 0 : 1 }, "passed", "abstention", evaluatedAt),
    online
      ? evaluation(caseResultId, "citation.freshness", { citation_expired_rate: spec.index % 8 === 0 ? 1 : 0 }, "measured", "citations dated", evaluatedAt)
      : evaluation(caseResultId, "citation.freshness", { citation_expired_rate: null }, "not_applicable", "no dated citation", evaluatedAt),
    // Half the requests that retrieved a chunk they may not read also packed it into the context (a leak, online/permission-leak.ts).
    evaluation(caseResultId, "retrieval.permission", { permission_violation_rate: spec.index % 11 === 0 ? 0.2 : 0, permission_leak_rate: spec.index % 22 === 0 ? 1 : 0 }, spec.index % 11 === 0 ? "failed" : "passed", spec.index % 11 === 0 ? "permission_violation_rate = 0.2 (needs = 0)" : "no chunk outside the principal's access", evaluatedAt),
    evaluation(
      caseResultId,
      "performance.usage",
      { latency_ms: latency, time_to_first_token_ms: caseResult.rag_observation.generation.time_to_first_token_ms, input_tokens: inputTokens, output_tokens: outputTokens, total_tokens: inputTokens + outputTokens, cost: caseResult.rag_observation.generation.cost },
      "not_applicable",
      "usage as recorded by the trace",
      evaluatedAt,
    ),
  ];
  // Online traffic (no case) carries the claim-overlap measure: a measurement whose review rule flags low overlap.
  const reviewSignal = online && q < 0.5;
  if (online) {
    results.push({
      ...evaluation(caseResultId, "online.groundedness", { heuristic_groundedness: reviewSignal ? 0.5 : 1 }, "measured", reviewSignal ? "needs review (heuristic signal, not a verdict): heuristic_groundedness = 0.5 (review when < 1)" : "all claims overlap the context", evaluatedAt),
      confidence: { value: 0.5, semantics: "heuristic" },
      review_required: reviewSignal,
    });
  }
  const failed = results.some((result) => result.outcome === "failed");
  if (failed) {
    const label = ROOT_CAUSES[spec.index % ROOT_CAUSES.length]!;
    results.push(evaluation(caseResultId, "root_cause", {}, "failed", `${label}: primary cause attributed from the failing evaluations`, evaluatedAt));
  }
  const qualityStatus = failed ? "failed" : reviewSignal ? "review_required" : "passed";
  return { caseResult: { ...caseResult, quality_status: qualityStatus }, evaluationResults: results };
}

function healthRows(): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = [];
  const random = generator(7);
  for (let time = DATASET_START; time < DATASET_END; time += 60_000) {
    for (const [index, instance] of ["evaluator-0", "evaluator-1"].entries()) {
      const spans = 900 + Math.round(random() * 300);
      const delta = (metric: string, value: number) => rows.push({ ts: iso(time + index * 1_000), instance, role: "evaluator", metric, kind: "delta", value });
      const gauge = (metric: string, value: number) => rows.push({ ts: iso(time + index * 1_000), instance, role: "evaluator", metric, kind: "gauge", value });
      delta("spans_received", spans);
      delta("traces_evaluated", Math.round(spans / 6));
      delta("traces_partial", random() < 0.2 ? 1 : 0);
      delta("dead_letters", random() < 0.1 ? 1 : 0);
      delta("spans_dropped", 0);
      gauge("consumer_lag", Math.round(random() * 400));
      gauge("sink_write_ms", 20 + random() * 80);
      gauge("open_traces", Math.round(50 + random() * 100));
      // Memory levels without drawing from the generator, so every other value stays what it was.
      const minute = (time - DATASET_START) / 60_000;
      gauge("resident_memory_bytes", (900 + 50 * index + (minute % 30)) * 1024 * 1024);
      gauge("heap_used_bytes", (120 + (minute % 40)) * 1024 * 1024);
      gauge("engine_memory_bytes", (40 + (minute % 20) * 10) * 1024 * 1024);
      // The store's fullest partition, the same store for both instances, against the engine's limit.
      gauge("store_largest_partition_parts", 20 + (minute % 15));
      gauge("store_parts_to_delay_insert", 1_000);
      // Traces without a request and OTLP/gRPC calls, also without drawing from the generator.
      delta("traces_without_request", minute % 5 === 0 ? 2 : 0);
      delta("grpc_requests_accepted", 10 + (minute % 3));
      delta("grpc_requests_refused", minute % 10 === 0 ? 1 : 0);
      // All OTLP requests (HTTP and gRPC): a Kafka outage now and then refuses some, unread.
      delta("requests_accepted", 30 + (minute % 3));
      delta("requests_refused", minute % 10 === 0 ? 4 : 0);
      delta("requests_refused_unavailable", minute % 10 === 0 ? 3 : 0);
      // Log events (GenAI messages sent as log records): most joined, now and then some whose spans never came.
      delta("log_events_joined", 6 + (minute % 4));
      delta("log_events_trace_without_spans", minute % 7 === 0 ? 3 : 0);
      delta("log_records_left_out", minute % 3);
    }
  }
  return rows;
}

export function buildDashboardDataset(): SeededDataset {
  const random = generator(42);
  const evaluations: CaseEvaluation[] = [];
  const datasetOf = new Map<string, string>();
  let index = 0;
  // Online traffic: one request a minute over the two hours, alternating services.
  for (let time = DATASET_START; time < DATASET_END; time += 60_000) {
    index += 1;
    const status = index % 13 === 0 ? "timeout" : index % 17 === 0 ? "failed" : "completed";
    evaluations.push(buildRequest({ index, startedAt: time, runId: "", caseId: "", service: SERVICES[index % 2]!, tenant: TENANTS[Math.floor(index / 2) % 2]!, quality: random(), status, unanswerable: index % 5 === 0 }, random));
  }
  // Two offline runs of the same twelve cases; the candidate fixes some cases and breaks others.
  for (const [runIndex, runId] of [BASELINE_RUN, CANDIDATE_RUN].entries()) {
    const runStart = DATASET_START + (runIndex === 0 ? 10 : 70) * 60_000;
    for (let caseNumber = 0; caseNumber < 12; caseNumber += 1) {
      index += 1;
      const baseQuality = (caseNumber * 0.37) % 1;
      const quality = runIndex === 1 && caseNumber % 4 === 0 ? 1 - baseQuality : baseQuality;
      const caseId = `case_${String(caseNumber).padStart(3, "0")}`;
      const evaluationItem = buildRequest({ index, startedAt: runStart + caseNumber * 5_000, runId, caseId, service: SERVICES[0]!, tenant: TENANTS[0]!, quality, status: "completed", unanswerable: caseNumber % 5 === 0 }, random);
      evaluations.push(evaluationItem);
      datasetOf.set(caseId, DATASET_ID);
    }
  }
  const failing = evaluations.find((item) => item.evaluationResults.some((result) => result.evaluator_id === "root_cause"));
  if (!failing) throw new Error("the seeded dataset has no failing case");
  return { evaluations, datasetOf, healthRows: healthRows(), failingTraceId: failing.caseResult.trace_id };
}

const VERSION = DATASET_END + HOUR;

/**
 * How rows are laid out: `current` as the sink writes them now; `previous` as
 * the release before migration 0008 wrote them — a row for every metric,
 * NULL where it has no value, and no not_applicable_metrics column;
 * `release-0013` as the sink writes them now, on a store before migration
 * 0014 (metric rollups, no request rollups); `release-0015` as the sink
 * writes them now, on a store before migrations 0016 and 0017 (no session,
 * root-cause or abstention rollups); `release-0017` on a store before
 * migration 0018 (no hourly metric rollups, and none of the stage timings,
 * migration 0019); `release-0032` as the sink writes them now, on a store before migration 0033 (request_rollups
 * without task_not_judged, and root_cause_rollups without failing_rows, migration 0038).
 */
export type RowLayout = "current" | "previous" | "release-0013" | "release-0015" | "release-0017" | "release-0032";

/** The rollup tables a store of this layout has (metric-rollups.ts options). */
export function rollupsOf(layout: RowLayout): { requestRollups: boolean; sessionAndRootCauseRollups: boolean; abstentionRollups: boolean; hourlyRollups: boolean; stageRollups: boolean; sessionSummaries: boolean; sessionEventCounts: boolean; notJudgedCount: boolean; failingRows: boolean } {
  const since0025 = layout === "current" || layout === "release-0032";
  const since0016 = since0025 || layout === "release-0017";
  return { requestRollups: since0016 || layout === "release-0015", sessionAndRootCauseRollups: since0016, abstentionRollups: since0016, hourlyRollups: since0025, stageRollups: since0025, sessionSummaries: since0025, sessionEventCounts: since0025, notJudgedCount: layout === "current", failingRows: layout === "current" };
}

function rowsIn(layout: RowLayout, dataset: SeededDataset, version: number): CaseRows[] {
  return dataset.evaluations.map((item) => {
    const rows = toRows(item, dataset.datasetOf.get(item.caseResult.case_id) ?? "", version, { tombstones: layout === "previous" });
    if (layout !== "previous") return rows;
    return { ...rows, evaluationResults: rows.evaluationResults.map(({ not_applicable_metrics: _left, ...row }) => row) };
  });
}

async function insertRows(connection: ClickHouseConnection, table: string, values: Record<string, unknown>[]): Promise<void> {
  await connection.client.insert({ table: `${connection.database}.${table}`, values, format: "JSONEachRow", clickhouse_settings: { date_time_input_format: "best_effort" } });
}

/**
 * Writes the dataset, the runs' lineage and the collector health snapshots:
 * through the real sink (`current`), or as the previous release stored it
 * (`previous`, for a store made by the migrations before 0008).
 */
export async function seedDashboardDataset(connection: ClickHouseConnection, dataset = buildDashboardDataset(), layout: RowLayout = "current"): Promise<SeededDataset> {
  if (layout !== "previous") {
    const rollups = new ClickHouseMetricRollups(connection, rollupsOf(layout));
    const sink = new ClickHouseSink(connection, { datasetOf: (caseId) => dataset.datasetOf.get(caseId) ?? "", now: () => VERSION, rollups });
    const written = await sink.write(dataset.evaluations);
    if (!written.ok) throw new Error(written.error.message);
    // What the collector does after its writes (on a timer): the dashboards' rollups of the minutes written.
    await rollups.refresh();
  } else {
    const rows = rowsIn("previous", dataset, VERSION);
    await insertRows(connection, "metric_values", rows.flatMap((row) => row.metricValues));
    await insertRows(connection, "evaluation_results", rows.flatMap((row) => row.evaluationResults));
    await insertRows(connection, "case_results", rows.map((row) => row.caseResult));
  }
  const lineage = { dataset_id: DATASET_ID, dataset_version: "3", corpus_version: "2026-07", retriever_version: "bm25-v1", prompt_version: "answer-v3", generator_model: "sim-1" };
  await new ClickHouseRunLineageSink(connection).record({ run_id: BASELINE_RUN, started_at: iso(DATASET_START + 10 * 60_000), ...lineage });
  await new ClickHouseRunLineageSink(connection).record({ run_id: CANDIDATE_RUN, started_at: iso(DATASET_START + 70 * 60_000), ...lineage, retriever_version: "hybrid-v2" });
  await connection.client.insert({ table: `${connection.database}.collector_health`, values: dataset.healthRows, format: "JSONEachRow", clickhouse_settings: { date_time_input_format: "best_effort" } });
  return dataset;
}

/**
 * What at-least-once delivery does: the same rows again, with a later
 * version, without deduplication tokens. Merges are stopped first so the
 * duplicates stay on disk and only the queries can collapse them.
 */
export async function insertDuplicateRows(connection: ClickHouseConnection, dataset: SeededDataset, layout: RowLayout = "current"): Promise<void> {
  const database = connection.database;
  for (const table of ["case_results", "evaluation_results", "metric_values", "runs", "collector_health"]) {
    await connection.client.command({ query: `SYSTEM STOP MERGES ${database}.${table}` });
  }
  const rows = rowsIn(layout, dataset, VERSION + 1);
  const insert = (table: string, values: Record<string, unknown>[]) => insertRows(connection, table, values);
  await insert("metric_values", rows.flatMap((row) => row.metricValues));
  await insert("evaluation_results", rows.flatMap((row) => row.evaluationResults));
  await insert("case_results", rows.map((row) => row.caseResult));
  // A replay through the sink has the rollups of its minutes refreshed; here the rows bypassed it (the previous layout has no rollups).
  if (layout !== "previous") await new ClickHouseMetricRollups(connection, rollupsOf(layout)).rebuild();
  await insert("collector_health", dataset.healthRows);
  const runs = await connection.client.query({ query: `SELECT run_id, dataset_id, dataset_version, started_at, payload, version FROM ${database}.runs FINAL`, format: "JSONEachRow" });
  await insert("runs", (await runs.json<Record<string, unknown>>()).map((run) => ({ ...run, version: Number(run.version) + 1 })));
}
