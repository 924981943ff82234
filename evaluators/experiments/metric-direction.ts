/**
 * Whether up is good for a stored metric: from its evaluator's descriptor in
 * the default registry; every judged metric is a score where higher is better
 * (evaluators/judge/rubrics). Latency and cost are informational in the
 * catalog (no pass or fail for one request), but between two variants less is
 * better, as every experimentation tool treats them; tokens stay
 * informational (more context can be the point of a variant). Null when
 * informational or unknown.
 */
import { createDefaultRegistry } from "../default-registry.js";
import { JUDGE_METRICS } from "../judge/judge.js";

const registry = createDefaultRegistry();
const judged: ReadonlySet<string> = new Set(JUDGE_METRICS);
const LESS_IS_BETTER: ReadonlySet<string> = new Set(["latency_ms", "time_to_first_token_ms", "cost"]);

export function higherIsBetter(metric: string): boolean | null {
  if (LESS_IS_BETTER.has(metric)) return false;
  const descriptor = registry.ownerOf(metric)?.metrics.find((item) => item.name === metric);
  if (descriptor === undefined) return judged.has(metric) ? true : null;
  return descriptor.direction === "higher_is_better" ? true : descriptor.direction === "lower_is_better" ? false : null;
}
