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
 *
 * Limits (a dataset file is input from outside): the file must be UTF-8 — a
 * byte sequence that is not is an error naming its line, never replaced
 * silently (two case ids differing only in bad bytes would collide); YAML files
 * are read up to 16 MiB (the YAML parser needs about 45 times the file's size
 * in memory; larger datasets load from JSON, up to 256 MiB); YAML aliases may
 * be used at most 100 times (an alias "bomb" expands a small file into
 * billions of nodes).
 */
import { isUtf8 } from "node:buffer";
import { createHash } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { LineCounter, parseAllDocuments, type Document } from "yaml";
import type { z } from "zod";
import { evalCase, type EvalCase } from "../../../contracts/eval-case.js";
import { failure, success, type Result } from "../../../core/result.js";
import { describeIssue, formatPath, parseReporting } from "./format-issues.js";
import { isSimpleCase, simpleCase, simpleToEvalCase } from "./simple-case.js";

export interface DatasetProblem {
  /** Path inside the file, e.g. `cases[3].gold_evidence[0].document_id`. */
  path: string;
  /** The case's id when it has one, to find it in a large file. */
  caseId: string | null;
  message: string;
  /**
   * The 1-based line of a YAML file where the field is, or where the nearest
   * mapping or list holding it starts when it is missing (a required field).
   * JSON Lines paths start with their line instead.
   */
  line?: number;
}

/** Which case format the file used: the Eval Case template, the seed's simple format (004 §二.1), or both. */
export type DatasetFormat = "eval_case" | "simple" | "mixed";

export interface Dataset {
  file: string;
  format: DatasetFormat;
  datasetId: string | null;
  datasetVersion: string | null;
  cases: EvalCase[];
  /** Where each case is in the file, as problems name it (`cases[3]`, `[3]`, `line 4`; "" for a file of one case). */
  casePaths: string[];
}

export interface DatasetLoadFailure {
  file: string;
  problems: DatasetProblem[];
  /** True when the file could not be read at all (missing, a folder, no permission): not a dataset with problems. */
  unreadable?: boolean;
}

export function formatProblem(problem: DatasetProblem): string {
  const path = problem.path === "" ? "(file)" : problem.path;
  const where = problem.line === undefined ? path : `line ${problem.line}, ${path}`;
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
    const code = (error as NodeJS.ErrnoException).code;
    const message = code === "ENOENT" ? `file not found (looked in ${path.resolve(file)}); check the path` : code === "EISDIR" ? "is a directory, expected a .yaml or .json file" : `cannot be read (${code ?? String(error)})`;
    return failure({ file, problems: [{ path: "", caseId: null, message }], unreadable: true });
  }
  if (!isUtf8(bytes)) {
    const line = firstLineNotUtf8(bytes);
    return failure({ file, problems: [{ path: `line ${line}`, caseId: null, message: "not valid UTF-8: the file must be UTF-8 encoded (bytes that are not would be replaced, and ids could collide); re-save it as UTF-8" }] });
  }
  return parseDataset(bytes.toString("utf8"), file);
}

/** The 1-based line holding the first byte sequence that is not UTF-8. */
function firstLineNotUtf8(bytes: Buffer): number {
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

/** The line of a path inside a parsed document, or null when not even its first step is in the file. */
type LineLocator = (segments: readonly (string | number)[]) => number | null;

/** A parsed file, and for YAML where each path of it is. */
interface ParsedDocument {
  value: unknown;
  locate?: LineLocator;
}

/**
 * The line of the field a problem names, or of the nearest mapping or list above it that is in the file: a
 * required field that is missing, or a field of the Eval Case a simple-format case was converted to, is not.
 */
function yamlLocator(documents: readonly Document.Parsed[], lines: LineCounter): LineLocator {
  return (segments) => {
    // Several documents are read as a list of cases, one a document.
    const [document, inner] = documents.length > 1 ? [documents[Number(segments[0])], segments.slice(1)] : [documents[0], segments];
    if (document === undefined) return null;
    for (let length = inner.length; length >= 0; length -= 1) {
      const node = length === 0 ? document.contents : document.getIn(inner.slice(0, length), true);
      const offset = (node as { range?: [number, number, number] } | null | undefined)?.range?.[0];
      if (offset !== undefined) return lines.linePos(offset).line;
    }
    return null;
  };
}

/** `cases[3].gold_evidence[0].document_id` as the steps a YAML document is walked by. */
function pathSegments(problemPath: string): (string | number)[] {
  return [...problemPath.matchAll(/([^.[\]]+)|\[(\d+)\]/g)].map((match) => (match[2] !== undefined ? Number(match[2]) : match[1]!));
}

/** `located`: the path to find the line of, when it is not the problem's path (an unknown field's own key). */
function withLine(problem: DatasetProblem, locate: LineLocator | undefined, located = problem.path): DatasetProblem {
  if (locate === undefined || /^line \d/.test(problem.path)) return problem;
  const line = locate(pathSegments(located));
  return line === null ? problem : { ...problem, line };
}

function parseDocument(text: string, file: string): Result<ParsedDocument, DatasetProblem[]> {
  if (text.trim() === "") return failure([{ path: "", caseId: null, message: "the file is empty; expected one case, a list of cases, or { dataset_id, dataset_version, cases }" }]);
  if (isJsonLinesFile(file)) {
    const lines = parseJsonLines(text);
    return lines.ok ? success({ value: lines.value }) : lines;
  }
  if (isJsonFile(file)) {
    try {
      return success({ value: JSON.parse(text) });
    } catch (error) {
      return failure([{ path: "", caseId: null, message: `invalid JSON: ${(error as Error).message}` }]);
    }
  }
  // YAML is a superset of JSON, so any other extension is read as YAML.
  const lineCounter = new LineCounter();
  const documents = parseAllDocuments(text, { prettyErrors: true, lineCounter });
  const list = Array.isArray(documents) ? documents : [documents];
  const problems: DatasetProblem[] = [];
  for (const document of list) {
    for (const error of document.errors) {
      const position = error.linePos?.[0];
      const where = position ? `line ${position.line}, column ${position.col}` : "";
      // The library's message ends with the position again ("… at line 1, column 5:", before a code excerpt): said once, in the path.
      const message = error.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
      problems.push({ path: where, caseId: null, message: `invalid YAML: ${message}` });
    }
  }
  if (problems.length > 0) return failure(problems);
  try {
    const locate = yamlLocator(list, lineCounter);
    if (list.length > 1) return success({ value: list.map((document) => document.toJS({ maxAliasCount: MAX_YAML_ALIASES })), locate });
    return success({ value: list[0]?.toJS({ maxAliasCount: MAX_YAML_ALIASES }) ?? null, locate });
  } catch (error) {
    // The YAML library throws when aliases expand past the limit (its resource-exhaustion guard).
    return failure([{ path: "", caseId: null, message: `invalid YAML: ${(error as Error).message} (at most ${MAX_YAML_ALIASES} alias uses; write repeated parts out, or use JSON)` }]);
  }
}

/**
 * The lines of a JSON Lines file: the cases that parsed with their line numbers, and a problem per line that did
 * not. A class, so that no JSON document can pass for one.
 */
class JsonLines {
  readonly cases: unknown[] = [];
  /** The 1-based line of each case (blank lines are skipped, so the index is not the line). */
  readonly lineNumbers: number[] = [];
  readonly problems: DatasetProblem[] = [];
}

/**
 * JSON Lines: one case per non-blank line. A line that is not JSON is a problem naming its line, and the other
 * lines are still checked: one bad line must not hide the problems of the rest (validate prints every problem).
 */
function parseJsonLines(text: string): Result<JsonLines, DatasetProblem[]> {
  const parsed = new JsonLines();
  text.split("\n").forEach((line, index) => {
    if (line.trim() === "") return;
    try {
      parsed.cases.push(JSON.parse(line));
      parsed.lineNumbers.push(index + 1);
    } catch (error) {
      parsed.problems.push({
        path: `line ${index + 1}`,
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
  /** A problem of one of the cases' fields; an unknown field is placed at its own line, not its case's. */
  const issueProblem = (issue: z.core.$ZodIssue, pathOf: (inner: string) => string, caseId: string | null): DatasetProblem => {
    const problemPath = pathOf(formatPath(issue.path));
    const problem = { path: problemPath, caseId, message: describeIssue(issue) };
    return withLine(problem, locate, issue.code === "unrecognized_keys" && issue.keys.length > 0 ? pathOf(formatPath([...issue.path, issue.keys[0]!])) : problemPath);
  };
  let header: DatasetHeader = { datasetId: null, datasetVersion: null };
  let rawCases: unknown[];
  let prefix: (index: number) => string;

  if (root instanceof JsonLines) {
    rawCases = root.cases;
    problems.push(...root.problems);
    prefix = (index) => `line ${root.lineNumbers[index]}`;
  } else if (Array.isArray(root)) {
    rawCases = root;
    prefix = (index) => `[${index}]`;
  } else if (isRecord(root) && "cases" in root) {
    if (!Array.isArray(root.cases)) {
      return failure({ file, problems: [{ path: "cases", caseId: null, message: "must be a list of cases" }] });
    }
    header = {
      datasetId: scalarText(root.dataset_id),
      datasetVersion: scalarText(root.dataset_version),
    };
    const allowed = new Set(["dataset_id", "dataset_version", "description", "cases", "run", "metadata"]);
    for (const key of Object.keys(root)) {
      if (!allowed.has(key)) problems.push({ path: key, caseId: null, message: `unknown dataset field; allowed: ${[...allowed].join(", ")}` });
    }
    rawCases = root.cases;
    prefix = (index) => `cases[${index}]`;
  } else if (isRecord(root)) {
    rawCases = [root];
    prefix = () => "";
  } else {
    return failure({ file, problems: [{ path: "", caseId: null, message: "expected one case, a list of cases, or { dataset_id, dataset_version, cases }" }] });
  }

  // A JSON Lines file whose every line is broken has those problems already; "no cases" would add nothing.
  if (rawCases.length === 0 && problems.length === 0) problems.push({ path: prefix(0).replace(/\[0\]$/, ""), caseId: null, message: "the dataset has no cases" });

  const cases: EvalCase[] = [];
  const casePaths: string[] = [];
  const seen = new Map<string, number>();
  let simpleCount = 0;
  rawCases.forEach((raw, index) => {
    const pathOf = (inner: string) => {
      const base = prefix(index);
      return base === "" ? inner : inner === "" ? base : `${base}.${inner}`;
    };
    let candidate: unknown = raw;
    let caseId = isRecord(raw) ? scalarText(raw.case_id) : null;
    if (isSimpleCase(raw)) {
      simpleCount += 1;
      caseId = scalarText((raw as Record<string, unknown>).id);
      const simple = parseReporting(simpleCase, raw);
      if (!simple.success) {
        for (const issue of simple.error.issues) problems.push(issueProblem(issue, pathOf, caseId));
        return;
      }
      candidate = simpleToEvalCase(simple.data, { datasetId: header.datasetId ?? simpleDefaults.datasetId, datasetVersion: header.datasetVersion ?? simpleDefaults.datasetVersion });
    }
    const withHeader = isRecord(candidate)
      ? { ...candidate, dataset_id: candidate.dataset_id ?? header.datasetId ?? undefined, dataset_version: candidate.dataset_version ?? header.datasetVersion ?? undefined }
      : candidate;
    const parsed = parseReporting(evalCase, withHeader);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) problems.push(issueProblem(issue, pathOf, caseId));
      return;
    }
    const identity = `${parsed.data.case_id}@${parsed.data.case_version}`;
    const earlier = seen.get(identity);
    if (earlier !== undefined) {
      problems.push({ path: `${prefix(index)}.case_id`, caseId, message: `duplicate case_id and case_version; first defined at ${prefix(earlier)} — give this case a case_id of its own, or a new case_version if it is a changed version of that case` });
      return;
    }
    seen.set(identity, index);
    cases.push(parsed.data);
    casePaths.push(prefix(index));
  });

  // JSON Lines: the lines that are not JSON were found first; every problem is listed in the order of the file.
  if (root instanceof JsonLines) problems.sort((left, right) => lineOf(left) - lineOf(right));
  if (problems.length > 0) return failure({ file, problems: problems.map((problem) => (problem.line === undefined ? withLine(problem, locate) : problem)) });
  const format: DatasetFormat = simpleCount === 0 ? "eval_case" : simpleCount === rawCases.length ? "simple" : "mixed";
  return success({ file, format, datasetId: header.datasetId, datasetVersion: header.datasetVersion, cases, casePaths });
}

const lineOf = (problem: DatasetProblem) => Number(/^line (\d+)/.exec(problem.path)?.[1] ?? 0);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function scalarText(value: unknown): string | null {
  return typeof value === "string" || typeof value === "number" ? String(value) : null;
}
