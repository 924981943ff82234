/**
 * The gate file: one YAML document that drives release gates, the collector's
 * own alerts and the Grafana alert rules, in the seed's format (004 §十三):
 *
 *   retrieval:
 *     recall_at_5: ">= 0.90"
 *     mrr: ">= 0.80"
 *   performance:
 *     p95_latency_ms: { threshold: "<= 5000", window: 15m, min_samples: 50 }
 *
 * Sections map metric names to a threshold in the gate syntax of
 * evaluators/threshold.ts (">=", "<=", ">", "<", "=", "==", "!="), either as a
 * plain string or as an object that adds alert options: `window` (how much
 * recent traffic an alert looks at) and `min_samples` (below this many
 * samples an alert stays silent instead of firing on noise). Release gates
 * ignore the alert options. A metric may be declared only once in a file.
 *
 * This module checks the shape only (contracts depend on zod alone); callers
 * turn the threshold strings into comparisons with evaluators/threshold.ts.
 */
import { z } from "zod";
import { failure, success, type Result } from "../core/result.js";

/** Same syntax as evaluators/threshold.ts: a comparator and a number. */
export const THRESHOLD_SYNTAX = /^\s*(>=|<=|==|!=|=|>|<)\s*(-?\d+(?:\.\d+)?(?:e-?\d+)?)\s*$/i;

/** Durations as Grafana and Prometheus write them: 30s, 15m, 1h, 1d. */
export const WINDOW_SYNTAX = /^[1-9]\d*(s|m|h|d)$/;

const NAME_SYNTAX = /^[a-z][a-z0-9_]*$/;

const thresholdExpression = z
  .string({ error: 'must be a threshold such as ">= 0.9", "<= 5000" or "= 0" (quote it in YAML)' })
  .regex(THRESHOLD_SYNTAX, 'must be a threshold such as ">= 0.9", "<= 5000" or "= 0"');

const ruleWithOptions = z
  .object({
    threshold: thresholdExpression,
    window: z.string().regex(WINDOW_SYNTAX, "must be a duration such as 30s, 15m, 1h or 1d").optional(),
    min_samples: z.number().int("must be a whole number").min(1, "must be at least 1").optional(),
  })
  .strict();

const ruleEntry = z.union([thresholdExpression, ruleWithOptions], {
  error: 'must be a threshold string such as ">= 0.9", or { threshold, window, min_samples }',
});

const metricName = z.string().regex(NAME_SYNTAX, "metric names are snake_case: lower-case letters, digits and underscores");
const sectionName = z.string().regex(NAME_SYNTAX, "section names are snake_case: lower-case letters, digits and underscores");

const section = z.record(metricName, ruleEntry, { error: "a section maps metric names to thresholds" });

export const gateFileSchema = z
  .record(sectionName, section, { error: "a gate file maps section names (retrieval, generation, …) to their metrics" })
  .superRefine((file, context) => {
    const seen = new Map<string, string>();
    for (const [sectionKey, rules] of Object.entries(file)) {
      if (Object.keys(rules).length === 0) context.addIssue({ code: "custom", path: [sectionKey], message: "the section declares no metric" });
      for (const metric of Object.keys(rules)) {
        const previous = seen.get(metric);
        if (previous !== undefined) context.addIssue({ code: "custom", path: [sectionKey, metric], message: `already declared in section ${previous}; declare each metric once` });
        else seen.set(metric, sectionKey);
      }
    }
  });

export type GateFileDocument = z.infer<typeof gateFileSchema>;

/** One gate rule, flattened: where it was declared, what it requires, and its alert options (null = the consumer's default). */
export interface GateRule {
  section: string;
  metric: string;
  /** The threshold as written, in the gate syntax of evaluators/threshold.ts. */
  threshold: string;
  window: string | null;
  minSamples: number | null;
}

export interface GateFileProblem {
  /** Where in the document, e.g. `performance.p95_latency_ms.window`; empty for the whole document. */
  path: string;
  message: string;
}

/** Checks a parsed YAML/JSON document and flattens it into rules, in file order. */
export function parseGateFile(document: unknown): Result<GateRule[], GateFileProblem[]> {
  if (document === null || document === undefined) return failure([{ path: "", message: "the gate file is empty" }]);
  const parsed = gateFileSchema.safeParse(document);
  if (!parsed.success) {
    return failure(parsed.error.issues.map((issue) => ({ path: issue.path.map(String).join("."), message: issue.message })));
  }
  const rules: GateRule[] = [];
  for (const [sectionKey, entries] of Object.entries(parsed.data)) {
    for (const [metric, entry] of Object.entries(entries)) {
      if (typeof entry === "string") rules.push({ section: sectionKey, metric, threshold: entry.trim(), window: null, minSamples: null });
      else rules.push({ section: sectionKey, metric, threshold: entry.threshold.trim(), window: entry.window ?? null, minSamples: entry.min_samples ?? null });
    }
  }
  return success(rules);
}
