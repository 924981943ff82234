/**
 * Metric names as typed data. Each evaluator exports the keys of the metrics
 * it produces (`retrievalRankingMetrics.recall_at_5`) and declares its layer;
 * root-cause steps, gates, aggregates, dashboards and alert rules import the
 * keys instead of writing the names, so a renamed or removed metric is a type
 * error where it is used, and the registry test (test/unit/evaluators/
 * metric-registry.test.ts) finds any reference the types cannot see.
 */

/**
 * The layer of the seed's evaluation system (004 §三–§八) a metric judges, as
 * the core board shows them (004 §十二): retrieval, context, generation
 * (answers and citations), boundaries (permission, sensitive data, injection,
 * §八), engineering (latency, tokens, cost, §七), business (dataset-level
 * outcomes such as task success, §六).
 */
export type MetricLayer = "retrieval" | "context" | "generation" | "boundaries" | "engineering" | "business";

export const METRIC_LAYERS: readonly MetricLayer[] = ["retrieval", "context", "generation", "boundaries", "engineering", "business"];

/** Each metric name as a key whose value is the name itself. */
export type MetricKeys<Name extends string> = { readonly [Key in Name]: Key };

export function metricKeys<const Names extends readonly string[]>(names: Names): MetricKeys<Names[number]> {
  return Object.freeze(Object.fromEntries(names.map((name) => [name, name]))) as MetricKeys<Names[number]>;
}
