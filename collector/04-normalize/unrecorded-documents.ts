/**
 * A document list some of whose elements ragscope's SDK could not record (an
 * element with no chunk id: chunk-record.ts), for the Case Result's
 * `malformed_attributes` (kind `unreadable_value`). The SDK leaves such an
 * element's place empty, records the list's whole length as its count and how
 * many it could not record beside it (contracts/span-attributes.ts,
 * `ragscope.retrieval.unrecorded_document_count`). The list is then not read:
 * read without them, the documents after an empty place would rank higher than
 * they did (raising Hit@k and MRR), and read as a shorter list, a relevant
 * document among the unrecorded ones would count as not retrieved. Neither is
 * what the pipeline did; null says "not known", and this note says why, in
 * place of the notes a gap or a short count would get (which name an SDK's
 * attribute limit).
 */
import type { Attributes } from "../00-otlp/span-record.js";
import { readNumber } from "./attribute-readers.js";
import type { MalformedAttribute } from "./find-malformed-json.js";

/**
 * @param prefix the list's OpenInference prefix, naming the note (e.g. `retrieval.documents`)
 * @param unrecordedKey the attribute holding how many elements were not recorded
 * @param countKey the attribute holding the list's length
 * @param consequence what is not available for it, e.g. `the retrieval's documents are not available`
 * @returns one note when the SDK said elements were not recorded (the list is then not read), else none
 */
export function unrecordedDocuments(attributes: Attributes, prefix: string, unrecordedKey: string, countKey: string, consequence: string): MalformedAttribute[] {
  const unrecorded = readNumber(attributes, unrecordedKey);
  if (unrecorded === null || unrecorded <= 0) return [];
  const count = readNumber(attributes, countKey);
  const of = count === null ? "" : ` of the ${count} it returned`;
  return [
    {
      attribute: prefix,
      error:
        `${unrecorded} element${unrecorded === 1 ? "" : "s"}${of} could not be recorded by the SDK (no chunk id; it said which on the application's stderr), so ${consequence}: ` +
        "read without them, the documents after them would rank higher than they did, and a relevant one among them would count as not retrieved. Give every element a chunkId to have the list read",
    },
  ];
}
