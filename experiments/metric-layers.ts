/** The layer (evaluators/metric-keys.ts) of each evaluator's metrics, by evaluator id, for the per-layer summary. */
import { createDefaultRegistry } from "../evaluators/default-registry.js";
import { JUDGE_METRICS, type JudgeMetric } from "../evaluators/judge/judge.js";
import { rubricFor } from "../evaluators/judge/rubrics/rubric-registry.js";
import type { MetricLayer } from "../evaluators/metric-keys.js";

let layers: Map<string, MetricLayer> | null = null;

export function layerOfEvaluator(evaluatorId: string): MetricLayer | "other" {
  if (layers === null) {
    layers = new Map(createDefaultRegistry().list().map((evaluator) => [evaluator.id, evaluator.layer]));
    for (const metric of JUDGE_METRICS) layers.set(`judge.${metric}`, rubricFor(metric as JudgeMetric).layer);
  }
  return layers.get(evaluatorId) ?? "other";
}
