/**
 * What a judge sees of a Case Result: the question, the answer, the context
 * documents the generator was given, the cited documents, and — from the Case,
 * when there is one — the reference answer and the key points.
 *
 * Nothing about the system under test (model, service, route, tenant) is
 * passed on: seed 004 §九.3 "隐藏被测系统信息".
 *
 * The documents are the context the generator actually saw, because
 * faithfulness is support *by that context* (seed 004 §五.1):
 * 1. the packed chunks (`context_chunks`) in prompt order, with their text from
 *    `retrieved_chunks` when the trace recorded it;
 * 2. else the recorded context text as one document with id "context";
 * 3. else the retrieved chunks with text (the best the trace offers).
 * Chunks whose text was not recorded are left out and named in
 * `missingDocumentTexts`.
 *
 * A case with several acceptable reference answers gives them to the judge one
 * per line, in the case's order.
 */
import { chunkLabel, type CaseResult } from "../../contracts/case-result.js";
import type { EvalCase } from "../../contracts/eval-case.js";
import { referenceAnswers } from "../../contracts/reference-answers.js";

export interface JudgeDocument {
  id: string;
  text: string;
}

export interface JudgeInputs {
  question: string | null;
  answer: string | null;
  documents: JudgeDocument[];
  /** Cited chunks whose text is known, in citation order. */
  citedDocuments: JudgeDocument[];
  /** Context or cited chunk ids whose text the trace did not carry. */
  missingDocumentTexts: string[];
  /** The case's reference answers joined into one text, for the LLM rubrics (null without any). */
  referenceAnswer: string | null;
  /** Each reference answer on its own (the non-blank ones), for scoring against the best-matching one. */
  referenceAnswers: string[];
  keyPoints: string[];
}

export const CONTEXT_DOCUMENT_ID = "context";

function nonBlank(text: string | null | undefined): string | null {
  return text === null || text === undefined || text.trim() === "" ? null : text;
}

export function judgeInputsFor(caseResult: CaseResult, evalCase: EvalCase | null): JudgeInputs {
  const observation = caseResult.rag_observation;
  const textById = new Map<string, string>();
  for (const chunk of observation.retrieved_chunks ?? []) if (chunk.text !== null && chunk.chunk_id !== null && !textById.has(chunk.chunk_id)) textById.set(chunk.chunk_id, chunk.text);
  const missing: string[] = [];

  let documents: JudgeDocument[] = [];
  if (observation.context_chunks !== null && observation.context_chunks.length > 0) {
    const packed = [...observation.context_chunks].sort((first, second) => first.position - second.position);
    for (const chunk of packed) {
      const text = chunk.chunk_id === null ? undefined : textById.get(chunk.chunk_id);
      if (text === undefined) missing.push(chunk.chunk_id ?? `position ${chunk.position} (no id)`);
      else documents.push({ id: chunk.chunk_id!, text });
    }
  }
  const context = nonBlank(observation.context);
  if (documents.length === 0 && context !== null) documents = [{ id: CONTEXT_DOCUMENT_ID, text: context }];
  if (documents.length === 0 && observation.context_chunks === null) {
    documents = (observation.retrieved_chunks ?? []).filter((chunk) => chunk.text !== null).map((chunk) => ({ id: chunkLabel(chunk), text: chunk.text as string }));
  }

  const citedDocuments: JudgeDocument[] = [];
  for (const chunkId of new Set(observation.citations ?? [])) {
    const text = textById.get(chunkId);
    if (text === undefined) missing.push(chunkId);
    else citedDocuments.push({ id: chunkId, text });
  }

  return {
    question: nonBlank(observation.query) ?? nonBlank(evalCase?.input),
    answer: nonBlank(caseResult.output),
    documents,
    citedDocuments,
    missingDocumentTexts: [...new Set(missing)],
    referenceAnswer: nonBlank(referenceAnswers(evalCase).join("\n")),
    referenceAnswers: referenceAnswers(evalCase).filter((reference) => nonBlank(reference) !== null),
    keyPoints: (evalCase?.key_points ?? []).filter((point) => point.trim() !== ""),
  };
}

/**
 * Canonical JSON (keys sorted at every level): the same inputs always give the
 * same text, whatever order the fields were built in — the cache key's input.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item)).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, item]) => item !== undefined)
    .sort(([first], [second]) => (first < second ? -1 : first > second ? 1 : 0));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(",")}}`;
}
