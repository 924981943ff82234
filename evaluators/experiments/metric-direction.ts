/** Whether up is good for a stored metric, from its evaluator's descriptor; null when informational or unknown. */
import { createDefaultRegistry } from "../default-registry.js";

const registry = createDefaultRegistry();

export function higherIsBetter(metric: string): boolean | null {
  const descriptor = registry.ownerOf(metric)?.metrics.find((item) => item.name === metric);
  if (descriptor === undefined) return null;
  return descriptor.direction === "higher_is_better" ? true : descriptor.direction === "lower_is_better" ? false : null;
}
