/**
 * A rerank call as OpenLLMetry writes it (`llm.request.type = rerank`; Python
 * `opentelemetry-instrumentation-cohere`'s `cohere.rerank` span, span_utils.py):
 * - each document the app passed as `gen_ai.prompt.<i>.content`, role `system`,
 *   in the order passed;
 * - the query as the prompt after them, role `user`;
 * - the ranking as `gen_ai.completion.<k>.content = "Doc <index>, Score: <relevance>"`,
 *   best first, followed by "\n<document text>" when the call asked for the
 *   documents back (`return_documents`).
 *
 * The documents are texts without ids. This reader only says which input text
 * went where; the rebuild (collector/06-rebuild/rebuild-case-result.ts) names
 * each after the retrieved document with the same text, or keeps the
 * retrieval's ranking. The span is read as a rerank only when it can be read
 * whole: every document and the query present, at least one completion, every
 * completion in that form with an index among the documents, each index once,
 * the score a finite number, an echoed text equal to the document's. Two
 * documents with the same text are not read either: which of the two a
 * ranking entry is could be told, but not which retrieved chunk each one is.
 * Anything else (content tracing off, a document Cohere got as an object the
 * instrumentation could not record, a format of another version) is no rerank,
 * rather than a ranking with holes in it.
 */
import type { Attributes } from "../00-otlp/span-record.js";
import { flattenedIndexes, readString, toNumber } from "./attribute-readers.js";
import type { ObservedDocument, RerankObservation } from "./stage-observation.js";

const PROMPT_PREFIX = "gen_ai.prompt";
const COMPLETION_PREFIX = "gen_ai.completion";

/** `Doc 3, Score: 0.98`, then optionally a newline and the document's text (which may hold newlines itself). */
const RANKING_ENTRY = /^Doc (\d+), Score: ([^\n]+)(?:\n([\s\S]*))?$/;

/** Indexes 0…n-1 exactly: a gap means a prompt or completion the instrumentation did not record. */
function isContiguous(indexes: readonly number[]): boolean {
  return indexes.every((index, position) => index === position);
}

function textOnly(text: string, score: number | null): ObservedDocument {
  return { chunkId: null, documentId: null, documentVersion: null, sectionId: null, text, score, effectiveFrom: null, effectiveTo: null, acl: null, tenantId: null };
}

/** The rerank an OpenLLMetry `llm.request.type = rerank` span records, or null when it cannot be read whole (see the module comment). */
export function readOpenLlmetryRerank(attributes: Attributes): RerankObservation | null {
  const prompts = flattenedIndexes(attributes, PROMPT_PREFIX);
  // At least one document and the query after it.
  if (prompts.length < 2 || !isContiguous(prompts)) return null;
  const queryIndex = prompts.length - 1;
  const query = readString(attributes, `${PROMPT_PREFIX}.${queryIndex}.content`);
  if (query === null || readString(attributes, `${PROMPT_PREFIX}.${queryIndex}.role`) !== "user") return null;
  const texts: string[] = [];
  for (let index = 0; index < queryIndex; index++) {
    const text = readString(attributes, `${PROMPT_PREFIX}.${index}.content`);
    if (text === null || readString(attributes, `${PROMPT_PREFIX}.${index}.role`) !== "system") return null;
    texts.push(text);
  }
  if (new Set(texts).size !== texts.length) return null;

  const completions = flattenedIndexes(attributes, COMPLETION_PREFIX);
  if (completions.length === 0 || !isContiguous(completions)) return null;
  const output: ObservedDocument[] = [];
  const seen = new Set<number>();
  for (const position of completions) {
    const match = RANKING_ENTRY.exec(readString(attributes, `${COMPLETION_PREFIX}.${position}.content`) ?? "");
    if (match === null) return null;
    const index = Number(match[1]);
    const score = toNumber(match[2]!.trim());
    if (index >= texts.length || seen.has(index) || score === null) return null;
    if (match[3] !== undefined && match[3] !== texts[index]) return null;
    seen.add(index);
    output.push(textOnly(texts[index]!, score));
  }
  return { stage: "rerank", query, input: texts.map((text) => textOnly(text, null)), output, documentsNamedByText: true };
}
