/**
 * The evaluator registry: a map of evaluators by id, refusing duplicates
 * (two packs registering the same id is a bug that would silently shadow one).
 */
import type { Evaluator } from "./evaluator.js";

export class EvaluatorRegistry {
  private readonly evaluators = new Map<string, Evaluator>();
  private readonly metricOwners = new Map<string, string>();

  register(evaluator: Evaluator): this {
    if (this.evaluators.has(evaluator.id)) throw new Error(`evaluator "${evaluator.id}" is already registered`);
    for (const metric of evaluator.metrics) {
      const owner = this.metricOwners.get(metric.name);
      if (owner !== undefined) throw new Error(`metric "${metric.name}" of evaluator "${evaluator.id}" is already produced by "${owner}"`);
    }
    this.evaluators.set(evaluator.id, evaluator);
    for (const metric of evaluator.metrics) this.metricOwners.set(metric.name, evaluator.id);
    return this;
  }

  get(id: string): Evaluator | undefined {
    return this.evaluators.get(id);
  }

  list(): Evaluator[] {
    return [...this.evaluators.values()];
  }

  /** The evaluator that produces a metric, for rubric and gate lookups. */
  ownerOf(metricName: string): Evaluator | undefined {
    const id = this.metricOwners.get(metricName);
    return id === undefined ? undefined : this.evaluators.get(id);
  }
}
