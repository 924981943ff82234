/**
 * Loads a corpus index: the ids of the documents the knowledge base holds
 * (`ragscope eval --corpus FILE`). With it the root cause of a failed case
 * whose gold document is not in the knowledge base, and so was never
 * retrieved, is DATA_MISSING (add the document) rather than RETRIEVAL_MISS
 * (tune the retriever); no Eval Case field lists the corpus (the seed's
 * `environment_requirements.corpus_version` names a version, not documents).
 *
 * Two formats, told by the file's name as datasets are:
 * - `.jsonl` / `.ndjson`: JSON Lines, one object per line with a
 *   `document_id` text (other fields are ignored, so an export of the
 *   index's chunks serves: a document on several lines is one document);
 * - any other name (`corpus.txt`): one document id per line.
 * Blank lines are skipped, and white space around an id is not part of it
 * (nor is it of a gold evidence's `document_id`). A `.json`, YAML or CSV
 * file is refused with the formats it could be written in: read line by
 * line it would give ids that are not ids, and every gold document would
 * read as missing.
 *
 * Limits (the file is input from outside): at most 256 MiB (as JSON
 * datasets) and 10 million distinct ids (a JavaScript Set holds at most 2^24
 * entries: past that the run ended in "unexpected error: Set maximum size
 * exceeded"), UTF-8 (a byte order mark at its start is not part of the first
 * id), at least one id. Every problem names the file and, in
 * JSON Lines, the line; at most MAX_LISTED_PROBLEMS are listed.
 */
import { isUtf8 } from "node:buffer";
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { describeUnreadableFile, readableFile } from "../../../core/file-access-problems.js";
import { failure, success, type Result } from "../../../core/result.js";
import { firstLineNotUtf8 } from "./load-dataset.js";

export interface CorpusIndex {
  /** The file as given. */
  file: string;
  documentIds: ReadonlySet<string>;
}

const MEBIBYTE = 1024 * 1024;
/** Largest corpus file read: about three million ids in JSON Lines of 80 bytes a line. */
export const MAX_CORPUS_BYTES = 256 * MEBIBYTE;
const MAX_LISTED_PROBLEMS = 10;
/** Most distinct document ids a corpus file may list: below what a JavaScript Set holds (2^24), with room. */
export const MAX_CORPUS_DOCUMENT_IDS = 10_000_000;

const FORMATS = "one document id per line (corpus.txt), or JSON Lines with a document_id on each line (corpus.jsonl: {\"document_id\": \"hr_policy_2024\"})";
const JSON_LINES = [".jsonl", ".ndjson"];
const REFUSED = [".json", ".yaml", ".yml", ".csv", ".tsv"];

/** @param maxDocumentIds the most distinct ids taken (MAX_CORPUS_DOCUMENT_IDS; smaller in tests) */
export async function loadCorpusIndex(file: string, maxDocumentIds = MAX_CORPUS_DOCUMENT_IDS): Promise<Result<CorpusIndex, string[]>> {
  // First whether it can be read at all: a file not there is "not found", whatever its name.
  const readable = await readableFile(file, "corpus file");
  if (!readable.ok) return failure([readable.error]);
  const extension = path.extname(file).toLowerCase();
  if (REFUSED.includes(extension)) return failure([`${file}: a corpus file is ${FORMATS}; a ${extension} file read line by line would give ids that are not ids — write the ids that way (e.g. jq -r '.[].document_id' for a JSON list)`]);
  let bytes: Buffer;
  try {
    const size = (await stat(file)).size;
    if (size > MAX_CORPUS_BYTES) return failure([`${file}: the corpus file is ${(size / MEBIBYTE).toFixed(1)} MiB, over the ${MAX_CORPUS_BYTES / MEBIBYTE} MiB limit; list each document id once (one per line) rather than every chunk`]);
    bytes = await readFile(file);
  } catch (error) {
    return failure([describeUnreadableFile(file, error, "corpus file")]);
  }
  if (!isUtf8(bytes)) return failure([`${file}: line ${firstLineNotUtf8(bytes)}: not valid UTF-8: the corpus file must be UTF-8 encoded; re-save it as UTF-8`]);
  const jsonLines = JSON_LINES.includes(extension);
  const documentIds = new Set<string>();
  const problems: string[] = [];
  let problemCount = 0;
  // A byte order mark (an editor's UTF-8 "with BOM") is not part of the first line's id or JSON.
  const lines = bytes.toString("utf8").replace(/^\uFEFF/, "").split("\n");
  for (const [index, line] of lines.entries()) {
    if (line.trim() === "") continue;
    const read = jsonLines ? documentIdOfJsonLine(line) : success(line.trim());
    if (!read.ok) {
      problemCount += 1;
      if (problems.length < MAX_LISTED_PROBLEMS) problems.push(`${file}: line ${index + 1}: ${read.error}`);
      continue;
    }
    documentIds.add(read.value);
    if (documentIds.size > maxDocumentIds) {
      return failure([`${file}: line ${index + 1}: the corpus file lists more than ${maxDocumentIds.toLocaleString("en-US")} distinct document ids, the most a run takes; list each document once (not each chunk), or run the dataset's cases against the part of the corpus they name`]);
    }
  }
  if (problemCount > problems.length) problems.push(`${file}: and ${problemCount - problems.length} more line(s) like these`);
  if (problems.length > 0) return failure(problems);
  if (documentIds.size === 0) return failure([`${file}: the corpus file lists no document id, and every gold document would read as missing from the knowledge base; it is ${FORMATS}`]);
  return success({ file, documentIds });
}

function documentIdOfJsonLine(line: string): Result<string, string> {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return failure(`invalid JSON (${(error as Error).message}); a JSON Lines corpus file holds one object per line, such as {"document_id": "hr_policy_2024"}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return failure(`expected an object with a document_id, such as {"document_id": "hr_policy_2024"}, not ${JSON.stringify(value).slice(0, 60)}`);
  const documentId = (value as Record<string, unknown>).document_id;
  if (documentId === undefined) return failure(`no document_id field (it has ${Object.keys(value).slice(0, 5).join(", ") || "no field"}); each line needs the document's id as its gold evidence names it, such as {"document_id": "hr_policy_2024"}`);
  if (typeof documentId !== "string" || documentId.trim() === "") return failure(`document_id must be a non-empty text, as a gold evidence's document_id is, not ${JSON.stringify(documentId)}`);
  return success(documentId.trim());
}
