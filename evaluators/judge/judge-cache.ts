/**
 * The judge cache (issue 6: "a cache keyed by judge model, prompt version and
 * inputs, so re-evaluating a replayed trace costs nothing").
 *
 * key = sha256(judge model, the metric's prompt version, metric, pass rule,
 *              canonical JSON of the judge inputs)
 *
 * The inputs are what the judge sees (judge-inputs.ts) — not the Case Result's
 * ids or timestamps — so a replayed trace, or the same answer in another run,
 * hits the cache. Only verdicts (pass/fail) are stored: a grader error is
 * retried next time. Implementations: in-memory LRU (lru-judge-cache.ts); a
 * ClickHouse-backed one can implement the same two methods.
 */
import { createHash } from "node:crypto";
import type { JudgeMetric, JudgeVerdict } from "./judge.js";
import { canonicalJson, type JudgeInputs } from "./judge-inputs.js";

export interface JudgeCache {
  get(key: string): Promise<JudgeVerdict | undefined>;
  set(key: string, verdict: JudgeVerdict): Promise<void>;
}

export interface JudgeCacheKeyParts {
  model: string;
  promptVersion: string;
  metric: JudgeMetric;
  /** The pass rule's source (">= 0.92"): a verdict under another rule is another verdict. */
  threshold: string;
  inputs: JudgeInputs;
}

export function judgeCacheKey(parts: JudgeCacheKeyParts): string {
  const hash = createHash("sha256");
  for (const part of [parts.model, parts.promptVersion, parts.metric, parts.threshold, canonicalJson(parts.inputs)]) {
    hash.update(part);
    hash.update(`\u0000${part.length}\u0000`);
  }
  return hash.digest("hex");
}
