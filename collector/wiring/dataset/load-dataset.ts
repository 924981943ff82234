/**
 * Loads a dataset file of Eval Cases (YAML or JSON).
 *
 * Accepted shapes, so that a file copied from the seeds' template works as is:
 * - one case (a mapping with `case_id`);
 * - a list of cases;
 * - `{ dataset_id, dataset_version, cases: [...] }`, whose header fills in the
 *   cases' `dataset_id` / `dataset_version` when they leave them out.
 *
 * Every problem is reported, each with its path and the case's id, never as a
 * stack trace; duplicate `(case_id, case_version)` pairs are problems too. In
 * YAML and JSON Lines it also names its line: a YAML dataset of hundreds of
 * cases is edited by line, and `cases[212].gold_evidence[1]` is hard to find.
 * Problems are listed in the order of the file, and their place is written
 * the same way in every format (place-in-file.ts).
 *
 * Limits (a dataset file is input from outside): the file must be UTF-8 — a
 * byte sequence that is not is an error naming its line, never replaced
 * silently (two case ids differing only in bad bytes would collide); YAML files
 * are read up to 16 MiB (the YAML parser needs about 45 times the file's size
 * in memory; larger datasets load from JSON, up to 256 MiB); YAML aliases may
 * be used at most 100 times (an alias "bomb" expands a small file into
 * billions of nodes).
 */
import { sayUnclosedQuote } from "../../../core/unclosed-quote.js";
import { isUtf8 } from "node:buffer";
import { createHash } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { isMap, isScalar, isSeq, LineCounter, parseAllDocuments, parseDocument as parseYamlDocument, type Document } from "yaml";
import type { z } from "zod";
import { evalCase, type EvalCase } from "../../../contracts/eval-case.js";
import { describeUnreadableFile } from "../../../core/file-access-problems.js";
import { describeJsonTextProblem, parseJsonText } from "../../../core/json-text.js";
import { failure, success, type Result } from "../../../core/result.js";
import { describeIssue, formatPath, parseReporting, type CaseFormat } from "./format-issues.js";
import { fieldsAt } from "./schema-fields.js";
import { compareByPlace, describePlace, type PlaceInFile } from "./place-in-file.js";
import { isSimpleCase, simpleCase, simpleToEvalCase } from "./simple-case.js";

/**
 * A problem and its place (place-in-file.ts): the path of the field, e.g. `cases[3].gold_evidence[0].document_id`
 * (in JSON Lines the path inside the line's case), and in YAML and JSON Lines its line, where the field is or,
 * when it is missing (a required field), where the nearest mapping or list holding it starts.
 */
export interface DatasetProblem extends PlaceInFile {
  /** The case's id when it has one, to find it in a large file. */
  caseId: string | null;
  message: string;
}

/** Which case format the file used: the Eval Case template, the seed's simple format (004 §二.1), or both. */
export type DatasetFormat = "eval_case" | "simple" | "mixed";

export interface Dataset {
  file: string;
  format: DatasetFormat;
  datasetId: string | null;
  datasetVersion: string | null;
  cases: EvalCase[];
  /** Where each case is in the file, as problems name it (`line 4, cases[3]`, `[3]`, `line 4`; "" for a JSON file of one case). */
  caseLocations: PlaceInFile[];
}

export interface DatasetLoadFailure {
  file: string;
  problems: DatasetProblem[];
  /**
   * Set when the file could not be read at all (missing, a folder, no permission): not a dataset with problems
   * (none are listed), but a usage error (exit 2). The sentence that says so (core/file-access-problems.ts).
   */
  unreadable?: string;
}

/** What a failed load prints: the one sentence of a file that could not be read, else `header` after the file's name and each problem. */
export function describeLoadFailure(loadFailure: DatasetLoadFailure, header: string): string[] {
  if (loadFailure.unreadable !== undefined) return [loadFailure.unreadable];
  return [`${loadFailure.file}: ${header}`, ...loadFailure.problems.map((problem) => `  ${formatProblem(problem)}`)];
}

export function formatProblem(problem: DatasetProblem): string {
  const where = describePlace(problem) || "(file)";
  const which = problem.caseId ? ` (case_id ${problem.caseId})` : "";
  return `${where}${which}: ${problem.message}`;
}

const MEBIBYTE = 1024 * 1024;
/** Largest YAML dataset file read; see the module comment. */
export const MAX_YAML_BYTES = 16 * MEBIBYTE;
/** Largest JSON dataset file read (JavaScript strings end near 512 MiB; parsing needs several times the size). */
export const MAX_JSON_BYTES = 256 * MEBIBYTE;
/** Alias uses allowed in a YAML dataset. */
export const MAX_YAML_ALIASES = 100;

const isJsonFile = (file: string) => [".json", ".jsonl", ".ndjson"].includes(path.extname(file).toLowerCase());
const isJsonLinesFile = (file: string) => [".jsonl", ".ndjson"].includes(path.extname(file).toLowerCase());

export async function loadDatasetFile(file: string): Promise<Result<Dataset, DatasetLoadFailure>> {
  const fail = (message: string) => failure({ file, problems: [{ path: "", caseId: null, message }] });
  let bytes: Buffer;
  try {
    const size = (await stat(file)).size;
    const limit = isJsonFile(file) ? MAX_JSON_BYTES : MAX_YAML_BYTES;
    if (size > limit) {
      return fail(
        isJsonFile(file)
          ? `the file is ${(size / MEBIBYTE).toFixed(0)} MiB, over the ${limit / MEBIBYTE} MiB limit for JSON datasets; split it into several files`
          : `the file is ${(size / MEBIBYTE).toFixed(1)} MiB, over the ${limit / MEBIBYTE} MiB limit for YAML datasets (YAML parsing needs about 45 times the file's size in memory); write it as JSON (.json), which loads up to ${MAX_JSON_BYTES / MEBIBYTE} MiB, or split it`,
      );
    }
    bytes = await readFile(file);
  } catch (error) {
    return failure({ file, problems: [], unreadable: describeUnreadableFile(file, error, "dataset file") });
  }
  if (!isUtf8(bytes)) {
    const line = firstLineNotUtf8(bytes);
    return failure({ file, problems: [{ path: "", line, caseId: null, message: "not valid UTF-8: the file must be UTF-8 encoded (bytes that are not would be replaced, and ids could collide); re-save it as UTF-8" }] });
  }
  return parseDataset(bytes.toString("utf8"), file);
}

/** The 1-based line holding the first byte sequence that is not UTF-8. */
export function firstLineNotUtf8(bytes: Buffer): number {
  let line = 1;
  let start = 0;
  for (;;) {
    const end = bytes.indexOf(0x0a, start);
    const piece = bytes.subarray(start, end === -1 ? bytes.length : end);
    if (!isUtf8(piece) || end === -1) return line;
    line += 1;
    start = end + 1;
  }
}

export function parseDataset(text: string, file: string): Result<Dataset, DatasetLoadFailure> {
  const parsed = parseDocument(text, file);
  if (!parsed.ok) return failure({ file, problems: parsed.error });
  // Cases in the simple format carry no dataset id or version: the file's name and a hash of its content stand in.
  const simpleDefaults = { datasetId: path.basename(file).replace(/\.[^.]*$/, "") || "dataset", datasetVersion: `sha256-${createHash("sha256").update(text).digest("hex").slice(0, 12)}` };
  return validateDataset(parsed.value.value, file, simpleDefaults, parsed.value.locate);
}

/** A 1-based line and column. */
interface Position {
  line: number;
  column: number;
}

/** The position of a path inside a parsed document, or null when not even its first step is in the file. */
type LineLocator = (segments: readonly (string | number)[]) => Position | null;

/** A parsed file, and for YAML where each path of it is. */
interface ParsedDocument {
  value: unknown;
  locate?: LineLocator;
}

/**
 * The position of the field a problem names — its key, or its item in a list — or of the nearest one above it
 * that is in the file: a required field that is missing, or a field of the Eval Case a simple-format case was
 * converted to, is not.
 */
function yamlLocator(documents: readonly Document.Parsed[], lines: LineCounter): LineLocator {
  return (segments) => {
    // Several documents are read as a list of cases, one a document.
    const [document, inner] = documents.length > 1 ? [documents[Number(segments[0])], segments.slice(1)] : [documents[0], segments];
    if (document === undefined) return null;
    for (let length = inner.length; length >= 0; length -= 1) {
      const offset = length === 0 ? rangeStart(document.contents) : fieldStart(document, inner.slice(0, length));
      if (offset !== undefined) {
        const { line, col } = lines.linePos(offset);
        return { line, column: col };
      }
    }
    return null;
  };
}

/** Where a field starts: its key in a mapping (the value of a block mapping starts on the next line), its item in a list. */
function fieldStart(document: Document.Parsed, segments: readonly (string | number)[]): number | undefined {
  const parent = segments.length === 1 ? document.contents : document.getIn(segments.slice(0, -1), true);
  const last = segments.at(-1)!;
  if (isMap(parent)) return rangeStart(parent.items.find((pair) => isScalar(pair.key) && String(pair.key.value) === String(last))?.key);
  if (isSeq(parent) && typeof last === "number") return rangeStart(parent.items[last]);
  return undefined;
}

function rangeStart(node: unknown): number | undefined {
  return (node as { range?: [number, number, number] } | null | undefined)?.range?.[0];
}

/** `cases[3].gold_evidence[0].document_id` as the steps a YAML document is walked by. */
function pathSegments(problemPath: string): (string | number)[] {
  return [...problemPath.matchAll(/([^.[\]]+)|\[(\d+)\]/g)].map((match) => (match[2] !== undefined ? Number(match[2]) : match[1]!));
}

function parseDocument(text: string, file: string): Result<ParsedDocument, DatasetProblem[]> {
  if (text.trim() === "") return failure([{ path: "", caseId: null, message: "the file is empty; expected one case, a list of cases, or { dataset_id, dataset_version, cases }" }]);
  if (isJsonLinesFile(file)) {
    const lines = parseJsonLines(text);
    return lines.ok ? success({ value: lines.value }) : lines;
  }
  if (isJsonFile(file)) {
    const json = parseJsonText(text);
    return json.ok ? success({ value: json.value }) : failure([{ path: "", caseId: null, message: `invalid JSON: ${describeJsonTextProblem(json.error)}` }]);
  }
  // YAML is a superset of JSON, so any other extension is read as YAML.
  const lineCounter = new LineCounter();
  const documents = parseAllDocuments(text, { prettyErrors: true, lineCounter });
  const list = Array.isArray(documents) ? documents : [documents];
  const problems: DatasetProblem[] = [];
  for (const document of list) {
    for (const error of document.errors) {
      const position = error.linePos?.[0];
      // The library's message ends with the position again ("… at line 1, column 5:", before a code excerpt): said once, in the place.
      const message = error.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
      const said = sayUnclosedQuote(message, document, error, lineCounter);
      problems.push({ path: "", ...(position ? { line: position.line, column: position.col } : {}), caseId: null, message: `invalid YAML: ${said}` });
    }
  }
  if (problems.length > 0) return failure(problems.sort(compareByPlace));
  try {
    const locate = yamlLocator(list, lineCounter);
    if (list.length > 1) return success({ value: list.map((document) => document.toJS({ maxAliasCount: MAX_YAML_ALIASES })), locate });
    return success({ value: list[0]?.toJS({ maxAliasCount: MAX_YAML_ALIASES }) ?? null, locate });
  } catch (error) {
    // The YAML library throws when aliases expand past the limit (its resource-exhaustion guard).
    return failure([{ path: "", caseId: null, message: `invalid YAML: ${(error as Error).message} (at most ${MAX_YAML_ALIASES} alias uses; write repeated parts out, or use JSON)` }]);
  }
}

/** Longest JSON Lines line whose problems are placed by column (the YAML parser needs about 45 times its size). */
const MAX_LOCATED_LINE_CHARACTERS = 1024 * 1024;

/**
 * The lines of a JSON Lines file: the cases that parsed with their line numbers, and a problem per line that did
 * not. A class, so that no JSON document can pass for one.
 */
class JsonLines {
  readonly cases: unknown[] = [];
  /** The 1-based line of each case (blank lines are skipped, so the index is not the line). */
  readonly lineNumbers: number[] = [];
  /** Where each case's line starts in `text`, to place a problem on it by column. */
  readonly lineStarts: number[] = [];
  readonly problems: DatasetProblem[] = [];
  private located: { index: number; locate: LineLocator } | null = null;

  constructor(private readonly text: string) {}

  /**
   * The line of a case, and the column of a field on it: the line is read again with the YAML parser (JSON is
   * YAML), which keeps positions, only for a case with a problem, and its problems come one after the other.
   */
  positionOf(index: number, segments: readonly (string | number)[]): Pick<PlaceInFile, "line" | "column"> {
    const line = this.lineNumbers[index]!;
    // The case is the whole line.
    if (segments.length === 0) return { line };
    if (this.located?.index !== index) {
      const start = this.lineStarts[index]!;
      const end = this.text.indexOf("\n", start);
      const lineText = this.text.slice(start, end === -1 ? undefined : end);
      const counter = new LineCounter();
      const document = lineText.length <= MAX_LOCATED_LINE_CHARACTERS ? parseYamlDocument(lineText, { lineCounter: counter }) : null;
      this.located = { index, locate: document === null || document.errors.length > 0 ? () => null : yamlLocator([document], counter) };
    }
    const position = this.located.locate(segments);
    return position === null ? { line } : { line, column: position.column };
  }
}

/**
 * JSON Lines: one case per non-blank line. A line that is not JSON is a problem naming its line, and the other
 * lines are still checked: one bad line must not hide the problems of the rest (validate prints every problem).
 */
function parseJsonLines(text: string): Result<JsonLines, DatasetProblem[]> {
  const parsed = new JsonLines(text);
  let start = 0;
  text.split("\n").forEach((line, index) => {
    const lineStart = start;
    start += line.length + 1;
    if (line.trim() === "") return;
    try {
      parsed.cases.push(JSON.parse(line));
      parsed.lineNumbers.push(index + 1);
      parsed.lineStarts.push(lineStart);
    } catch (error) {
      parsed.problems.push({
        path: "",
        line: index + 1,
        caseId: caseIdOfBrokenLine(line),
        message: `invalid JSON: ${(error as Error).message}; a JSON Lines file holds one complete JSON object per line, such as {"id": "q1", "question": "…"} — check the quotes, commas and braces, and that the case is not broken over several lines`,
      });
    }
  });
  return success(parsed);
}

/** The id a line that is not JSON seems to give, to find it in a large file; null when none is visible. */
function caseIdOfBrokenLine(line: string): string | null {
  const match = /"(?:case_id|id)"\s*:\s*(?:"((?:[^"\\]|\\.)*)"|(-?\d+))/.exec(line);
  return match ? (match[1] ?? match[2] ?? null) : null;
}

interface DatasetHeader {
  datasetId: string | null;
  datasetVersion: string | null;
}

function validateDataset(root: unknown, file: string, simpleDefaults: { datasetId: string; datasetVersion: string }, locate?: LineLocator): Result<Dataset, DatasetLoadFailure> {
  const problems: DatasetProblem[] = [];
  const jsonLines = root instanceof JsonLines ? root : null;
  let header: DatasetHeader = { datasetId: null, datasetVersion: null };
  let rawCases: unknown[];
  /** A case's path in the file; "" in JSON Lines, where the line says which case it is. */
  let prefix: (index: number) => string;

  if (jsonLines !== null) {
    rawCases = jsonLines.cases;
    problems.push(...jsonLines.problems);
    prefix = () => "";
  } else if (Array.isArray(root)) {
    rawCases = root;
    prefix = (index) => `[${index}]`;
  } else if (isRecord(root) && "cases" in root) {
    if (!Array.isArray(root.cases)) {
      return failure({ file, problems: [{ path: "cases", ...positionIn(locate, ["cases"]), caseId: null, message: "must be a list of cases" }] });
    }
    header = {
      datasetId: scalarText(root.dataset_id),
      datasetVersion: scalarText(root.dataset_version),
    };
    const allowed = new Set(["dataset_id", "dataset_version", "description", "cases", "run", "metadata"]);
    for (const key of Object.keys(root)) {
      if (!allowed.has(key)) problems.push({ path: key, ...positionIn(locate, [key]), caseId: null, message: `unknown dataset field; allowed: ${[...allowed].join(", ")}` });
    }
    rawCases = root.cases;
    prefix = (index) => `cases[${index}]`;
  } else if (isRecord(root)) {
    rawCases = [root];
    prefix = () => "";
  } else {
    return failure({ file, problems: [{ path: "", caseId: null, message: "expected one case, a list of cases, or { dataset_id, dataset_version, cases }" }] });
  }

  const pathOf = (index: number, inner: string) => {
    const base = prefix(index);
    return base === "" ? inner : inner === "" ? base : `${base}.${inner}`;
  };
  /** Where a field of a case is: YAML walks the whole file; JSON Lines reads the case's own line. */
  const positionOf = (index: number, inner: string) => (jsonLines !== null ? jsonLines.positionOf(index, pathSegments(inner)) : positionIn(locate, pathSegments(pathOf(index, inner))));
  /** Where a case is, for a message naming it: its line and path, no column. */
  const caseLocation = (index: number): PlaceInFile => {
    const { line } = positionOf(index, "");
    return line === undefined ? { path: prefix(index) } : { path: prefix(index), line };
  };
  /**
   * The problems of one issue with a case's fields. Unknown fields are one problem each, named and placed by
   * their own key: where they are in the file, not where their case starts.
   */
  const issueProblems = (issue: z.core.$ZodIssue, index: number, caseId: string | null, format: "simple" | "eval_case"): DatasetProblem[] => {
    // The fields the object holding an unknown field takes, in the case's own format: what "did you mean" picks from.
    const fieldsOf = (schema: z.ZodType) => (issue.code === "unrecognized_keys" ? fieldsAt(schema, issue.path) : []);
    const caseFormat: CaseFormat =
      format === "simple" ? { name: "the simple format", fields: fieldsOf(simpleCase), listFields: true } : { name: "the Eval Case template", fields: fieldsOf(evalCase), listFields: false };
    const issues = issue.code === "unrecognized_keys" ? issue.keys.map((key) => ({ ...issue, keys: [key], path: [...issue.path, key] })) : [issue];
    return issues.map((each) => {
      const inner = formatPath(each.path);
      return { path: pathOf(index, inner), ...positionOf(index, inner), caseId, message: describeIssue(each, caseFormat) };
    });
  };

  // A JSON Lines file whose every line is broken has those problems already; "no cases" would add nothing.
  if (rawCases.length === 0 && problems.length === 0) {
    const path = prefix(0).replace(/\[0\]$/, "");
    // `cases: []` is placed at its key; an empty list that is the whole file needs no place.
    problems.push({ path, ...(path === "" ? {} : positionIn(locate, pathSegments(path))), caseId: null, message: "the dataset has no cases" });
  }

  const cases: EvalCase[] = [];
  const caseLocations: PlaceInFile[] = [];
  const seen = new Map<string, number>();
  let simpleCount = 0;
  rawCases.forEach((raw, index) => {
    let candidate: unknown = raw;
    let caseId = isRecord(raw) ? scalarText(raw.case_id) : null;
    if (isSimpleCase(raw)) caseId = scalarText((raw as Record<string, unknown>).id);
    // Checked on the ids as written, before the case's other fields: a duplicate of a case with problems of its own
    // is a problem too, said in the same run (validate prints every problem at once).
    const version = isRecord(raw) ? (scalarText(raw.case_version) ?? (isSimpleCase(raw) ? "1" : null)) : null;
    let duplicate = false;
    if (caseId !== null && version !== null) {
      const identity = `${caseId}@${version}`;
      const earlier = seen.get(identity);
      if (earlier !== undefined) {
        // A simple-format case gives its id as `id`: the problem names the field the file has.
        const idField = isSimpleCase(raw) ? "id" : "case_id";
        problems.push({
          path: pathOf(index, idField),
          ...positionOf(index, idField),
          caseId,
          message: `duplicate case_id and case_version; first defined at ${describePlace(caseLocation(earlier)) || "the file's first case"} — give this case a case_id of its own, or a new case_version if it is a changed version of that case`,
        });
        // Its other fields are still checked, so that one run names all of its problems.
        duplicate = true;
      } else seen.set(identity, index);
    }
    if (isSimpleCase(raw)) {
      simpleCount += 1;
      const simple = parseReporting(simpleCase, raw);
      if (!simple.success) {
        for (const issue of simple.error.issues) problems.push(...issueProblems(issue, index, caseId, "simple"));
        return;
      }
      candidate = simpleToEvalCase(simple.data, { datasetId: header.datasetId ?? simpleDefaults.datasetId, datasetVersion: header.datasetVersion ?? simpleDefaults.datasetVersion });
    }
    const withHeader = isRecord(candidate)
      ? { ...candidate, dataset_id: candidate.dataset_id ?? header.datasetId ?? undefined, dataset_version: candidate.dataset_version ?? header.datasetVersion ?? undefined }
      : candidate;
    const parsed = parseReporting(evalCase, withHeader);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) problems.push(...issueProblems(issue, index, caseId, "eval_case"));
      return;
    }
    if (duplicate) return;
    cases.push(parsed.data);
    caseLocations.push(caseLocation(index));
  });

  // In the order of the file (a JSON Lines line that is not JSON was found before the cases were checked).
  if (problems.length > 0) return failure({ file, problems: problems.sort(compareByPlace) });
  const format: DatasetFormat = simpleCount === 0 ? "eval_case" : simpleCount === rawCases.length ? "simple" : "mixed";
  return success({ file, format, datasetId: header.datasetId, datasetVersion: header.datasetVersion, cases, caseLocations });
}

/** A path's position in a YAML file, as a place's line and column; nothing for JSON (no locator) or when it is not found. */
function positionIn(locate: LineLocator | undefined, segments: readonly (string | number)[]): Pick<PlaceInFile, "line" | "column"> {
  return locate?.(segments) ?? {};
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function scalarText(value: unknown): string | null {
  return typeof value === "string" || typeof value === "number" ? String(value) : null;
}
