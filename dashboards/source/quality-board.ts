/**
 * The seed's core board (004 §十二) as lists: which numbers each layer shows.
 * The Grafana dashboard (rag-quality-dashboard.ts) and the live UI's
 * "Quality over time" page (store/clickhouse/clickhouse-quality-reader.ts)
 * both read these lists, so the board is the same on both surfaces. No
 * Grafana SDK here: the UI ships this module.
 */
import { heuristicMeasurementOf, meanOf, NAMED_AGGREGATES, percentileOf, type AggregateMetric } from "./aggregate-metrics.js";
import { labelOfMetric, METRIC, type MetricName } from "../../evaluators/metric-catalog.js";
import { JUDGE_METRICS } from "../../evaluators/judge/judge.js";

export interface StoredMetric {
  metric: string;
  label: string;
}

/** A board entry: its label says when the metric is a heuristic (metric-catalog.ts labelOfMetric), on every surface the lists reach. */
const stored = (metric: MetricName, label: string): StoredMetric => ({ metric, label: labelOfMetric(metric, label) });

export const RETRIEVAL: StoredMetric[] = [
  stored(METRIC.hit_at_1, "Hit@1"),
  stored(METRIC.recall_at_5, "Recall@5"),
  stored(METRIC.recall_at_10, "Recall@10"),
  stored(METRIC.mrr, "MRR"),
  stored(METRIC.ndcg_at_10, "NDCG@10"),
];

export const CONTEXT: StoredMetric[] = [
  stored(METRIC.context_precision, "Context precision"),
  stored(METRIC.context_recall, "Context recall"),
  stored(METRIC.evidence_density, "Evidence density"),
  stored(METRIC.context_redundancy, "Redundancy"),
];

export const GENERATION: StoredMetric[] = [
  stored(METRIC.answer_correctness, "Correctness"),
  stored(METRIC.faithfulness, "Faithfulness"),
  stored(METRIC.answer_relevance, "Relevance"),
  stored(METRIC.completeness, "Completeness"),
  stored(METRIC.citation_accuracy, "Citation accuracy"),
];

/**
 * The Generation metrics the embedded default's heuristic judge scores: shown
 * beside the decision values, labelled as a measurement (a board with only
 * the heuristic judge still shows something, and never as a judged value).
 */
export const HEURISTIC_MEASUREMENTS: StoredMetric[] = GENERATION.filter((metric) => (JUDGE_METRICS as readonly string[]).includes(metric.metric));

export const TOKENS: StoredMetric[] = [
  stored(METRIC.input_tokens, "Input tokens"),
  stored(METRIC.output_tokens, "Output tokens"),
  stored(METRIC.total_tokens, "Total tokens"),
];

export function namedAggregate(name: string): AggregateMetric {
  const aggregate = NAMED_AGGREGATES.find((candidate) => candidate.name === name);
  if (!aggregate) throw new Error(`no aggregate named ${name}`);
  return aggregate;
}

export const means = (metrics: readonly StoredMetric[], unit = "percentunit"): AggregateMetric[] => metrics.map((metric) => meanOf(metric.metric, metric.label, unit));

export const ABSTENTION_AGGREGATES = ["no_answer_accuracy", "correct_refusal_rate", "false_refusal_rate"];
export const RISK_AGGREGATES = ["hallucination_rate", "permission_leak_rate"];
/**
 * Retrieval's own permission violations beside the leaks (seed 004 §八.1 用户是否能检索到无权访问的文档, §三.5
 * 权限过滤准确率): the mean, over the requests whose chunks' access could be judged, of the share of each one's
 * retrieved chunks (before a rerank too) the principal may not read — the gate's and the alerts' reading of
 * permission_violation_rate. Permission leaks count only a denied chunk that reached the context or the answer, so a
 * retriever returning other users' documents that a rerank drops read "0 %" alone, as if nothing were wrong.
 */
export const retrievalPermissionViolations = (): AggregateMetric => meanOf(METRIC.permission_violation_rate, "Permission violations in retrieval", "percentunit");
export const RELIABILITY_AGGREGATES = ["error_rate", "timeout_rate"];
// Seed §十二 业务指标: 任务成功率, 点踩率, 人工转接率 (satisfaction and first-contact resolution have panels of their own).
export const BUSINESS_AGGREGATES = ["task_success_rate", "dislike_rate", "handoff_rate"];
export const LATENCY_PERCENTILES = [50, 95, 99];

export const latencyAggregates = (): AggregateMetric[] => LATENCY_PERCENTILES.map((percentile) => percentileOf(percentile, METRIC.latency_ms, `P${percentile} latency`, "ms"));
export const usageAggregates = (): AggregateMetric[] => [namedAggregate("average_cost"), meanOf(METRIC.total_tokens, "Tokens per request", "short")];

/** The board's layers in the seed's order, each with its aggregates. */
export function qualityBoardLayers(): { title: string; aggregates: AggregateMetric[] }[] {
  return [
    { title: "Retrieval", aggregates: means(RETRIEVAL) },
    { title: "Context", aggregates: means(CONTEXT) },
    { title: "Generation", aggregates: [...means(GENERATION), ...HEURISTIC_MEASUREMENTS.map((metric) => heuristicMeasurementOf(metric.metric, metric.label))] },
    { title: "Boundaries", aggregates: [...[...ABSTENTION_AGGREGATES, ...RISK_AGGREGATES].map(namedAggregate), retrievalPermissionViolations()] },
    { title: "Engineering", aggregates: [...RELIABILITY_AGGREGATES.map(namedAggregate), ...latencyAggregates(), ...usageAggregates()] },
    { title: "Business", aggregates: [...BUSINESS_AGGREGATES, "review_required_rate", "unjudged_rate"].map(namedAggregate) },
  ];
}
