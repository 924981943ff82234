/**
 * The seed's simple sample format (004 §二.1): `id, question,
 * reference_answer, relevant_document_ids, relevant_chunk_ids, evidence,
 * question_type, difficulty, metadata`. It is checked in its own field names
 * (so a problem names the field the user wrote) and then read as an Eval Case:
 *
 * | simple field            | Eval Case field                                    |
 * | ----------------------- | -------------------------------------------------- |
 * | id                      | case_id                                            |
 * | question                | input                                              |
 * | reference_answer        | reference_answer                                   |
 * | relevant_chunk_ids      | gold_evidence[].chunk_id (with the document id)    |
 * | evidence                | gold_evidence[].text (paired with the chunk ids when the counts match) |
 * | relevant_document_ids   | gold_evidence[].document_id                        |
 * | question_type           | ability_tags, metadata.question_type               |
 * | difficulty              | difficulty (easy → Easy, hard negative → Hard Negative, ...) |
 * | metadata                | metadata (kept as written)                         |
 *
 * A question_type of `unanswerable` / `no_answer` makes the case unanswerable
 * (`answerable: false`), which must then list no evidence. The simple format has no
 * version fields: `case_version` is `case_version` when given, else "1";
 * dataset_id / dataset_version come from the file's header, else the caller's defaults.
 */
import { z } from "zod";
import type { EvalCaseInput } from "../../../contracts/eval-case.js";

const text = z.string().trim().min(1, "must not be empty");
const textList = z.array(z.string().trim().min(1, "must not be empty")).default([]);

const difficultyNames: Record<string, EvalCaseInput["difficulty"]> = {
  easy: "Easy",
  medium: "Medium",
  hard: "Hard",
  "hard negative": "Hard Negative",
  hard_negative: "Hard Negative",
  adversarial: "Adversarial",
};

export const simpleCase = z
  .object({
    id: z.union([text, z.number().transform(String)]),
    question: text,
    reference_answer: z.union([z.string(), z.array(text).min(1)]).optional(),
    relevant_document_ids: textList,
    relevant_chunk_ids: textList,
    evidence: z.union([textList, text.transform((value) => [value])]).default([]),
    question_type: z.string().optional(),
    difficulty: z
      .string()
      .refine((value) => value.trim().toLowerCase() in difficultyNames, { message: "must be one of easy, medium, hard, hard negative, adversarial (any letter case)" })
      .optional(),
    metadata: z.record(z.string(), z.unknown()).default({}),
    case_version: z.union([text, z.number().transform(String)]).optional(),
    dataset_id: text.optional(),
    dataset_version: z.union([text, z.number().transform(String)]).optional(),
    risk_level: z.enum(["P0", "P1", "P2", "P3"]).optional(),
  })
  .strict()
  .superRefine((value, context) => {
    const needsDocument = value.relevant_chunk_ids.length > 0 || value.evidence.length > 0;
    if (needsDocument && value.relevant_document_ids.length === 0) {
      context.addIssue({ code: "custom", path: ["relevant_document_ids"], message: "required when relevant_chunk_ids or evidence are given: gold evidence is matched by document" });
    }
    if (value.relevant_chunk_ids.length > 0 && value.relevant_document_ids.length > 1 && value.relevant_document_ids.length !== value.relevant_chunk_ids.length) {
      context.addIssue({
        code: "custom",
        path: ["relevant_document_ids"],
        message: `${value.relevant_document_ids.length} document ids for ${value.relevant_chunk_ids.length} chunk ids: give one document id, or one per chunk id in the same order`,
      });
    }
  });

export type SimpleCase = z.infer<typeof simpleCase>;


const unanswerableTypes = new Set(["unanswerable", "no_answer", "no-answer"]);

/** A raw case is in the simple format when it has `id` or `question` and neither `case_id` nor `input`. */
export function isSimpleCase(raw: unknown): boolean {
  // Either of the simple format's own keys makes it one, so that a case missing the other is told what it misses
  // ("question: required"), not the Eval Case template's fields.
  return typeof raw === "object" && raw !== null && !Array.isArray(raw) && ("question" in raw || "id" in raw) && !("case_id" in raw) && !("input" in raw);
}

export function simpleToEvalCase(simple: SimpleCase, defaults: { datasetId: string; datasetVersion: string }): EvalCaseInput {
  const documentFor = (index: number) => simple.relevant_document_ids[simple.relevant_document_ids.length === 1 ? 0 : index] ?? simple.relevant_document_ids[0]!;
  const evidence: NonNullable<EvalCaseInput["gold_evidence"]> = [];
  const paired = simple.relevant_chunk_ids.length === simple.evidence.length;
  simple.relevant_chunk_ids.forEach((chunkId, index) => {
    evidence.push({ document_id: documentFor(index), chunk_id: chunkId, ...(paired ? { text: simple.evidence[index]! } : {}) });
  });
  if (!paired) for (const passage of simple.evidence) evidence.push({ document_id: simple.relevant_document_ids[0]!, text: passage });
  const questionType = simple.question_type?.trim();
  const answerable = questionType === undefined || !unanswerableTypes.has(questionType.toLowerCase());
  return {
    case_id: simple.id,
    case_version: simple.case_version ?? "1",
    dataset_id: simple.dataset_id ?? defaults.datasetId,
    dataset_version: simple.dataset_version ?? defaults.datasetVersion,
    input: simple.question,
    ...(simple.reference_answer !== undefined ? { reference_answer: simple.reference_answer } : {}),
    gold_evidence: evidence,
    ability_tags: questionType ? [questionType] : [],
    ...(simple.difficulty !== undefined ? { difficulty: difficultyNames[simple.difficulty.trim().toLowerCase()] } : {}),
    ...(simple.risk_level !== undefined ? { risk_level: simple.risk_level } : {}),
    answerable,
    metadata: {
      ...simple.metadata,
      ...(questionType ? { question_type: questionType } : {}),
      ...(simple.relevant_document_ids.length > 0 ? { relevant_document_ids: simple.relevant_document_ids } : {}),
      tags: Array.isArray(simple.metadata.tags) ? simple.metadata.tags : [],
    },
  };
}
