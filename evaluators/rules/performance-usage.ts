/**
 * Latency, time to first token, tokens and cost of the request, as recorded by
 * the trace (seed 004 §七). Informational per case: thresholds on these belong
 * to release gates and alerts over many requests (P95), not to one case.
 */
import type { Evaluator, MetricDescriptor } from "../evaluator.js";
import { applicable, notApplicable, type MetricValue } from "../metric-value.js";
import { metricKeys } from "../metric-keys.js";

const informational = (name: string, description: string): MetricDescriptor => ({ name, description, range: null, direction: "informational", defaultThreshold: null });

const metrics: MetricDescriptor[] = [
  informational("latency_ms", "duration of the request's root span, milliseconds"),
  informational("time_to_first_token_ms", "time to the generator's first token, milliseconds"),
  informational("input_tokens", "prompt tokens over every generation span"),
  informational("output_tokens", "completion tokens over every generation span"),
  informational("total_tokens", "prompt and completion tokens"),
  informational("cost", "generation cost over every generation span, in the pipeline's currency"),
];

const orNotAvailable = (value: number | null, what: string): MetricValue => (value === null ? notApplicable(`the trace did not record ${what}`) : applicable(value));

/** The metrics this evaluator produces (engineering layer). */
export const performanceUsageMetrics = metricKeys(["latency_ms", "time_to_first_token_ms", "input_tokens", "output_tokens", "total_tokens", "cost"]);

export const performanceUsageEvaluator: Evaluator = {
  id: "performance.usage",
  version: "1",
  layer: "engineering",
  description: "Latency, time to first token, token counts and cost of the request",
  requires: [],
  costClass: "rule",
  confidence: "deterministic_rule",
  metrics,
  evaluate({ caseResult }) {
    const observation = caseResult.rag_observation;
    const generation = observation.generation;
    return {
      values: {
        latency_ms: orNotAvailable(observation.latency_ms, "the request's duration"),
        time_to_first_token_ms: orNotAvailable(generation.time_to_first_token_ms, "time to first token"),
        input_tokens: orNotAvailable(generation.input_tokens, "prompt tokens"),
        output_tokens: orNotAvailable(generation.output_tokens, "completion tokens"),
        total_tokens: orNotAvailable(generation.total_tokens, "token totals"),
        cost: orNotAvailable(generation.cost, "cost"),
      },
      reason: "usage as recorded by the trace",
      // Evidence refs name evidence (chunks, `chunk://id`); these values are the trace's own, which the Case Result's trace_id and artifact_refs already name.
      evidence: [],
    };
  },
};
