/**
 * The Eval Case: a reusable design contract for one evaluation sample.
 *
 * Fields are those of shared/seeds/002_9c2988e908a2e92a.txt (the generic case
 * every case has) plus the RAG fields of shared/seeds/000_166131c131cdea70.txt.
 * Names are kept exactly. A Case never receives observed values: what a run saw
 * goes to the Case Result, what an evaluator judged to the Evaluation Result.
 *
 * Three optional fields come from 004_7ecd39d5d74f72c6.txt §二 (the sample
 * structure every metric needs) and have no slot in the two templates:
 * `reference_answer`, `key_points` and `answerable`.
 */
import { parseIsoTime } from "../core/iso-time.js";
import { z } from "zod";
import { identifierProblem } from "./identifiers.js";

const nonEmptyText = z.string().trim().min(1, "must not be empty");
/**
 * An id the case's spans carry (case, dataset and their versions): the collector refuses one outside
 * contracts/identifiers.ts on every span and stores the request without it, so a case with such an id would run and
 * never be found among the run's results. Refused here, where the file is read, with the reason.
 */
const spanIdentifier = nonEmptyText.superRefine((value, context) => {
  const problem = identifierProblem(value);
  if (problem !== null) context.addIssue({ code: "custom", message: `${problem}: the id is sent on the case's spans, and the collector refuses such an id there` });
});

/** Dates as the seeds write them: `2026-07-08` or a full ISO-8601 date-time. */
export const dateOrDateTime = z
  .union([z.string(), z.date()])
  .transform((value) => (value instanceof Date ? value.toISOString() : value))
  // Read strictly (core/iso-time.ts): Date.parse rolled 2026-02-30 over to 2 March and read 9:31 as a time, and the
  // freshness metrics, which read these strictly, then found no effective time for the case.
  .refine((value) => /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value) && parseIsoTime(value.replace(" ", "T")).ok, {
    message: "expected a date like 2026-07-08 or an ISO-8601 date-time like 2026-07-08T09:31:12Z",
  });

export const riskLevel = z.enum(["P0", "P1", "P2", "P3"]);
export const difficulty = z.enum(["Easy", "Medium", "Hard", "Hard Negative", "Adversarial"]);

/** A piece of gold evidence (000 template `gold_evidence`). */
export const goldEvidence = z
  .object({
    document_id: nonEmptyText,
    section_id: z.string().optional(),
    /** Extension: the exact chunk id when the dataset knows it. */
    chunk_id: z.string().optional(),
    text: z.string().optional(),
    effective_time: dateOrDateTime.optional(),
    /** Extension: the document version the evidence comes from. */
    document_version: z.string().optional(),
    /**
     * Extension (004 §三.4): graded relevance, 3 direct evidence, 2 strongly
     * related, 1 weakly related, 0 not related. Default 3.
     */
    relevance: z.number().int().min(0).max(3).default(3),
  })
  .strict()
  .refine((evidence) => evidence.section_id !== undefined || evidence.chunk_id !== undefined || (evidence.text ?? "").trim() !== "", {
    message: "gold evidence needs a section_id, a chunk_id or a text to be matched against retrieved chunks",
  });

/** The generic template's rubric: a list of dimensions with conditions. */
export const rubricDimension = z
  .object({
    dimension: nonEmptyText,
    pass_condition: z.string().optional(),
    fail_condition: z.string().optional(),
  })
  .strict();

/**
 * The rubric is either the generic list of dimensions (002) or the RAG map of
 * metric → rule (000). A rule is prose, or a threshold such as ">= 0.9" that
 * the evaluator applies to that metric.
 */
export const rubric = z.union([
  z.array(rubricDimension),
  z.record(z.string(), z.union([z.string(), z.number()]).transform((value) => String(value))),
  z.string(),
]);

export const evaluatorConfig = z
  .object({
    evaluator_ids: z.array(z.string()).default([]),
    required_evidence: z.array(z.string()).default([]),
    /**
     * Extension: the share of a gold evidence text's characters that the
     * retrieved (packed, cited) chunks must cover for the evidence to count
     * as found; default 0.8 (evaluators/evidence/evidence-coverage-options.ts).
     */
    evidence_min_coverage: z
      .number({ error: "must be a number: the share of the evidence text to cover, such as 0.8" })
      .gt(0, "must be more than 0: the share of the evidence text to cover, such as 0.8")
      .lte(1, "must be at most 1 (1 = every character of the evidence text)")
      .optional(),
  })
  .passthrough();

export const caseMetadata = z
  .object({
    dataset_role: z.string().optional(),
    tags: z.array(z.string()).default([]),
    owner: z.string().optional(),
    review_status: z.string().optional(),
    usage_rights_status: z.string().optional(),
  })
  .passthrough();

export const environment = z
  .object({
    tools: z.union([z.array(z.string()), z.string()]).optional(),
    permissions: z.union([z.string(), z.array(z.string())]).optional(),
    knowledge_base: z.string().optional(),
    effective_at: dateOrDateTime.optional(),
  })
  .passthrough();

export const environmentRequirements = z
  .object({
    corpus_version: z.string().optional(),
    effective_at: dateOrDateTime.optional(),
  })
  .passthrough();

/** A list entry must say something: a blank entry in a list is a data error, not "no answer". */
const referenceAnswerInList = z.string().refine((value) => value.trim() !== "", {
  message: "a reference answer in the list is blank: remove it, or write the answer",
});

const referenceAnswer = z.union(
  [
    z.string(),
    z.array(referenceAnswerInList).min(1, "the list of reference answers is empty: give at least one answer, or leave reference_answer out"),
  ],
  { error: "must be a text, or a list of texts with one acceptable answer each" },
);

const textList = z.union([z.array(z.string()), z.string().transform((value) => [value])]).default([]);

export const evalCase = z
  .object({
    case_id: spanIdentifier,
    case_version: z.union([spanIdentifier, z.number().transform(String)]),
    dataset_id: spanIdentifier,
    dataset_version: z.union([spanIdentifier, z.number().transform(String)]),
    title: z.string().optional(),
    scenario: z.string().optional(),
    user_task: z.string().optional(),
    ability_tags: z.array(z.string()).default([]),
    risk_level: riskLevel.optional(),
    difficulty: difficulty.optional(),
    source: z.string().optional(),
    input: nonEmptyText,
    context: z.record(z.string(), z.unknown()).default({}),
    environment: environment.default({}),
    environment_requirements: environmentRequirements.default({}),
    gold_evidence: z.array(goldEvidence).default([]),
    expected_behavior: textList,
    negative_behavior: textList,
    citation_requirement: z.string().optional(),
    context_policy: z.string().optional(),
    evaluation_metrics: z.array(z.string()).default([]),
    rubric: rubric.optional(),
    evaluator_config: evaluatorConfig.default({ evaluator_ids: [], required_evidence: [] }),
    metadata: caseMetadata.default({ tags: [] }),
    /**
     * Extension (004 §二): the standard answer — one text, as the seed writes
     * it, or a list when the question has several acceptable answers (CMRC
     * 2018, SQuAD and RGB list them). Reference-based metrics score the answer
     * against each and keep the best (reference-answers.ts).
     */
    reference_answer: referenceAnswer.optional(),
    /** Extension (004 §五.4): the key points a complete answer covers. */
    key_points: z.array(z.string()).default([]),
    /** Extension (004 §五.6): false for questions the corpus cannot answer. */
    answerable: z.boolean().default(true),
  })
  .strict()
  .superRefine((value, context) => {
    if (!value.answerable && value.gold_evidence.length > 0) {
      context.addIssue({
        code: "custom",
        path: ["gold_evidence"],
        message: "an unanswerable case (answerable: false) must not list gold evidence",
      });
    }
  });

export type EvalCase = z.infer<typeof evalCase>;
export type EvalCaseInput = z.input<typeof evalCase>;
export type GoldEvidence = z.infer<typeof goldEvidence>;
