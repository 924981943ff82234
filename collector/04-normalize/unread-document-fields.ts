/**
 * The parts of one document that are there but cannot be read: an id that is
 * no text or number, a score that is no number, content that is no text,
 * metadata that is no object. read-documents.ts reads such a part as absent
 * (the id and the score then come from the document's own metadata when it
 * has them, else are not available; nothing is taken from another document);
 * this names it, for the Case Result's `malformed_attributes` (kind
 * `unreadable_value`). A part that is absent or null was not recorded, which
 * is no error: nothing is said about it.
 */
import { describeValue } from "./explain-unread-value.js";
import { identifier, parseObject, toScore, type DocumentFields } from "./read-documents.js";

/** What the document's source calls each part, e.g. GenAI's `content`, LangChain's `pageContent`. */
export interface DocumentFieldNames {
  id: string;
  score: string;
  text: string;
  metadata: string;
}

const present = (value: unknown) => value !== undefined && value !== null;

/**
 * @returns one phrase per part that could not be read, e.g. `its "score" is the text "high", not a number`; empty when all could
 */
export function unreadDocumentFields(fields: DocumentFields, names: DocumentFieldNames): string[] {
  const phrases: string[] = [];
  if (present(fields.id) && identifier(fields.id) === null) phrases.push(`its "${names.id}" is ${describeValue(fields.id)}, not an id (a non-empty text or a number)`);
  if (present(fields.score) && toScore(fields.score) === null) phrases.push(`its "${names.score}" is ${describeValue(fields.score)}, not a number`);
  if (present(fields.text) && typeof fields.text !== "string") phrases.push(`its "${names.text}" is ${describeValue(fields.text)}, not text`);
  if (present(fields.metadata) && parseObject(fields.metadata) === null) phrases.push(`its "${names.metadata}" is ${describeValue(fields.metadata)}, not an object`);
  return phrases;
}

/** What happens to the parts `unreadDocumentFields` names, said once after them. */
export const UNREAD_PARTS_CONSEQUENCE =
  "those parts are not read (an id or a score is then taken from the document's own metadata when it has one, else is not available)";
