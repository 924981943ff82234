/**
 * A rubric: everything the judge needs to judge one metric — the task, the
 * scale, the fenced inputs, the zod schema of the structured answer and how
 * that answer becomes a value in 0..1. Each rubric is versioned
 * (`faithfulness@1`); the version is part of the cache key and of the
 * Evaluation Result's evaluator_version, so changing a prompt never reuses
 * verdicts of the old one. Bump the version whenever the wording changes.
 *
 * The value is computed by us from the judge's itemised verdicts (claims,
 * documents, key points) or its ordinal score — never taken from a number the
 * model made up — so it is always finite and in range (seed 004 §九.3: "要求先
 * 拆分原子事实再评分").
 */
import { z } from "zod";
import { failure, success, type Result } from "../../../core/result.js";
import { FENCE_RULE } from "../fence-text.js";
import type { JudgeMetric } from "../judge.js";
import type { JudgeInputs } from "../judge-inputs.js";
import type { MetricLayer } from "../../metric-keys.js";

export interface ScoredJudgement {
  value: number;
  reason: string;
  details: Record<string, unknown>;
}

export interface RubricPrompt {
  system: string;
  user: string;
}

export interface JudgeRubric {
  readonly metric: JudgeMetric;
  /** The layer of the evaluation system the judged metric belongs to. */
  readonly layer: MetricLayer;
  readonly version: string;
  /** Pass rule on the value, gate syntax (threshold.ts); a case rubric may override it. */
  readonly defaultThreshold: string;
  /** Null when the inputs allow judging this metric; else why not. */
  notApplicableReason(inputs: JudgeInputs): string | null;
  prompt(inputs: JudgeInputs): RubricPrompt;
  /** JSON Schema of the expected answer, for endpoints that take `response_format: json_schema`. */
  outputJsonSchema(): Record<string, unknown>;
  /** The parsed JSON answer → a value, or why the answer is not acceptable. */
  interpret(answer: unknown, inputs: JudgeInputs): Result<ScoredJudgement, string>;
}

export interface RubricDefinition<Output> {
  metric: JudgeMetric;
  layer: MetricLayer;
  version: string;
  defaultThreshold: string;
  /** What to judge, in the imperative. */
  task: string;
  /** The scale or the decision rule. */
  scale: string;
  /** An example of the JSON answer, shown to the model. */
  outputExample: string;
  outputSchema: z.ZodType<Output>;
  notApplicableReason(inputs: JudgeInputs): string | null;
  /** The fenced blocks of the user message, in order. */
  sections(inputs: JudgeInputs): string[];
  score(output: Output, inputs: JudgeInputs): Result<ScoredJudgement, string>;
}

/** The judge's self-reported confidence, optional in every answer. */
export const selfReportedConfidence = z.enum(["high", "medium", "low"]).optional();

/** The one way a judge may decline: a structured answer, mapped to a refusal. */
export const cannotJudgeAnswer = z.object({ cannot_judge: z.literal(true), reason: z.string().default("") });

const PREAMBLE = [
  "You evaluate answers produced by a retrieval-augmented question answering system.",
  FENCE_RULE,
  "Apply the rubric below exactly and judge only from the fenced data; do not use outside knowledge unless the rubric says so.",
  "Reply with a single JSON object of the shape shown and nothing else — no prose, no code fence.",
  'If you cannot evaluate at all, reply {"cannot_judge": true, "reason": "<why>"}.',
].join("\n");

export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "(root)"}: ${issue.message}`)
    .join("; ");
}

export function defineRubric<Output>(definition: RubricDefinition<Output>): JudgeRubric {
  return {
    metric: definition.metric,
    layer: definition.layer,
    version: definition.version,
    defaultThreshold: definition.defaultThreshold,
    notApplicableReason: (inputs) => definition.notApplicableReason(inputs),
    prompt(inputs) {
      const system = `${PREAMBLE}\n\nMETRIC: ${definition.metric} (rubric ${definition.version})\n\nTASK:\n${definition.task}\n\nRUBRIC:\n${definition.scale}\n\nANSWER SHAPE:\n${definition.outputExample}`;
      return { system, user: definition.sections(inputs).join("\n\n") };
    },
    outputJsonSchema: () => z.toJSONSchema(definition.outputSchema, { io: "input" }) as Record<string, unknown>,
    interpret(answer, inputs) {
      const parsed = definition.outputSchema.safeParse(answer);
      if (!parsed.success) return failure(`the answer does not match the ${definition.metric} schema: ${describeIssues(parsed.error)}`);
      const scored = definition.score(parsed.data, inputs);
      if (!scored.ok) return scored;
      const value = scored.value.value;
      // Values are computed from counts here; anything else is a bug in a rubric.
      if (!Number.isFinite(value) || value < 0 || value > 1) throw new RangeError(`rubric ${definition.version} produced value ${value}`);
      return success(scored.value);
    },
  };
}

/** Labels the judge must rate exactly once each (documents, key points). */
export function checkAllRated(expected: readonly string[], rated: readonly string[], what: string): string | null {
  const unknown = rated.filter((label) => !expected.includes(label));
  if (unknown.length > 0) return `the judge rated unknown ${what} ${[...new Set(unknown)].join(", ")}`;
  const duplicates = rated.filter((label, index) => rated.indexOf(label) !== index);
  if (duplicates.length > 0) return `the judge rated ${what} ${[...new Set(duplicates)].join(", ")} more than once`;
  const missing = expected.filter((label) => !rated.includes(label));
  if (missing.length > 0) return `the judge did not rate ${what} ${missing.join(", ")}`;
  return null;
}

export function quoteList(items: readonly string[], limit = 5): string {
  const shown = items.slice(0, limit).map((item) => `"${item}"`);
  return items.length > limit ? `${shown.join("; ")} and ${items.length - limit} more` : shown.join("; ");
}

/**
 * An ordinal answer that gives the top score yet lists faults contradicts
 * itself: which half is the verdict is unknown, so it is not a verdict (the
 * interpreter's failure makes it unparseable: a repair turn, then a grader
 * error — never a pass). Null when consistent.
 */
export function topScoreContradiction(score: number, maximum: number, faults: Record<string, readonly string[]>): string | null {
  if (score !== maximum) return null;
  const listed = Object.entries(faults).filter(([, items]) => items.some((item) => item.trim() !== ""));
  if (listed.length === 0) return null;
  return `the answer is inconsistent: score ${score} of ${maximum} (no fault) but it lists ${listed.map(([field, items]) => `${field} ${quoteList(items)}`).join(" and ")}; give a lower score or an empty list`;
}

export function ordinalValue(score: number, maximum: number): number {
  return score / maximum;
}
