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
 * One key is not a section: `score_weights` gives the weights of the seed's
 * weighted overall score (004 §六.2, default 0.25 R + 0.25 F + 0.25 C +
 * 0.15 Comp + 0.10 Cit) by metric name — all five terms, each from 0 to 1,
 * summing to 1 (a weight of 0 leaves a term out):
 *
 *   score_weights:
 *     answer_relevance: 0.2
 *     faithfulness: 0.3
 *     answer_correctness: 0.3
 *     completeness: 0.1
 *     citation_accuracy: 0.1
 *
 * The overall score and its regression rule `overall_score_drop` use them.
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


/** The reserved key of the score weights; not a section of rules. */
export const SCORE_WEIGHTS_KEY = "score_weights";
/** The metrics of the seed's weighted overall score (004 §六.2), in its order: R, F, C, Comp, Cit. */
export const SCORE_WEIGHT_METRICS = ["answer_relevance", "faithfulness", "answer_correctness", "completeness", "citation_accuracy"] as const;
export type ScoreWeightMetric = (typeof SCORE_WEIGHT_METRICS)[number];
export type ScoreWeights = Readonly<Record<ScoreWeightMetric, number>>;

const weight = z.number({ error: "must be a number from 0 to 1" }).min(0, "must be from 0 to 1").max(1, "must be from 0 to 1");
const scoreWeightsSchema = z
  .object(Object.fromEntries(SCORE_WEIGHT_METRICS.map((metric) => [metric, weight])) as Record<ScoreWeightMetric, typeof weight>, {
    error: `${SCORE_WEIGHTS_KEY} maps the five metrics of the overall score (${SCORE_WEIGHT_METRICS.join(", ")}) to weights`,
  })
  .strict()
  .superRefine((weights, context) => {
    const sum = Object.values(weights).reduce((total, value) => total + value, 0);
    if (Math.abs(sum - 1) > 1e-9) context.addIssue({ code: "custom", path: [], message: `the weights sum to ${Math.round(sum * 1e6) / 1e6}; they must sum to 1` });
  });


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

export interface GateDocument {
  rules: GateRule[];
  /** Null when the file gives none: the seed's weights apply. */
  scoreWeights: ScoreWeights | null;
}

/** Checks a parsed YAML/JSON document: its rules in file order, and its score weights. */
export function parseGateDocument(document: unknown): Result<GateDocument, GateFileProblem[]> {
  if (document === null || document === undefined) return failure([{ path: "", message: "the gate file is empty" }]);
  let scoreWeights: ScoreWeights | null = null;
  let sections: unknown = document;
  const problems: GateFileProblem[] = [];
  const toProblem = (prefix: string[]) => (issue: z.core.$ZodIssue) => ({ path: [...prefix, ...issue.path.map(String)].join("."), message: issue.message });
  if (typeof document === "object" && !Array.isArray(document) && SCORE_WEIGHTS_KEY in document) {
    const { [SCORE_WEIGHTS_KEY]: weights, ...rest } = document as Record<string, unknown>;
    const parsedWeights = scoreWeightsSchema.safeParse(weights);
    if (parsedWeights.success) scoreWeights = parsedWeights.data;
    else problems.push(...parsedWeights.error.issues.map(toProblem([SCORE_WEIGHTS_KEY])));
    sections = rest;
  }
  const rules = parseRules(sections);
  problems.push(...rules.problems);
  if (problems.length > 0) return failure(problems);
  return success({ rules: rules.rules, scoreWeights });
}

/** Checks a parsed YAML/JSON document and flattens it into rules, in file order (the score weights are checked, not returned). */
export function parseGateFile(document: unknown): Result<GateRule[], GateFileProblem[]> {
  const parsed = parseGateDocument(document);
  return parsed.ok ? success(parsed.value.rules) : parsed;
}

/**
 * The rules of the sections, in file order, and every problem of the file in one pass: a user fixing a gate
 * file sees all of them at once, not the next one after each fix. Rules that are well formed are returned even
 * when others are not, so a caller can check their metric names in the same pass.
 */
export function parseRules(document: unknown): { rules: GateRule[]; problems: GateFileProblem[] } {
  const rules: GateRule[] = [];
  const problems: GateFileProblem[] = [];
  if (typeof document !== "object" || document === null || Array.isArray(document)) {
    return { rules, problems: [{ path: "", message: "a gate file maps section names (retrieval, generation, …) to their metrics" }] };
  }
  const seen = new Map<string, string>();
  for (const [sectionKey, entries] of Object.entries(document)) {
    if (!NAME_SYNTAX.test(sectionKey)) problems.push({ path: sectionKey, message: `section "${sectionKey}": section names are snake_case: lower-case letters, digits and underscores` });
    if (typeof entries !== "object" || entries === null || Array.isArray(entries)) {
      problems.push({ path: sectionKey, message: 'a section maps metric names to thresholds, such as recall_at_5: ">= 0.9"' });
      continue;
    }
    if (Object.keys(entries).length === 0) problems.push({ path: sectionKey, message: "the section declares no metric" });
    for (const [metric, entry] of Object.entries(entries as Record<string, unknown>)) {
      const where = `${sectionKey}.${metric}`;
      const named = metricName.safeParse(metric);
      if (!named.success) problems.push({ path: where, message: `metric "${metric}": ${named.error.issues[0]!.message}` });
      const previous = seen.get(metric);
      if (previous !== undefined) problems.push({ path: where, message: `already declared in section ${previous}; declare each metric once` });
      else seen.set(metric, sectionKey);
      const parsed = ruleEntry.safeParse(entry);
      if (!parsed.success) {
        problems.push(...parsed.error.issues.map((issue) => ({ path: [where, ...issue.path.map(String)].join("."), message: issue.message })));
        continue;
      }
      if (!named.success) continue;
      const value = parsed.data;
      if (typeof value === "string") rules.push({ section: sectionKey, metric, threshold: value.trim(), window: null, minSamples: null });
      else rules.push({ section: sectionKey, metric, threshold: value.threshold.trim(), window: value.window ?? null, minSamples: value.min_samples ?? null });
    }
  }
  return { rules, problems };
}
