/**
 * Parsers for trec_eval's test files (shared/testdata/trec_eval/README.md "File
 * formats"), used only by tests that reproduce trec_eval's expected outputs.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const TREC_TESTDATA_DIRECTORY = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../../shared/testdata/trec_eval",
);

export function readTrecFile(name: string): string {
  return readFileSync(path.join(TREC_TESTDATA_DIRECTORY, name), "utf8");
}

/** Topic id → (docno → rel). */
export type Qrels = Map<string, Map<string, number>>;

export interface RunResult {
  readonly id: string;
  readonly score: number;
}

export interface Run {
  /** Topic id → results in file order (the rank column is ignored, as trec_eval does). */
  readonly topics: Map<string, RunResult[]>;
  /** The run_id of the last content line, which is what trec_eval prints. */
  readonly runId: string;
}

export interface ExpectedLine {
  readonly measure: string;
  readonly topic: string;
  /** The value exactly as printed (`%6.4f` for measures, an integer for counts). */
  readonly printed: string;
}

function fields(line: string): string[] {
  return line.trim().split(/\s+/);
}

/** `qid iter docno rel`; lines starting with `#` are comments (trec_eval 10.0). */
export function parseQrels(text: string): Qrels {
  const qrels: Qrels = new Map();
  for (const line of text.split("\n")) {
    if (line.startsWith("#") || line.trim() === "") continue;
    const [topic, , docno, rel] = fields(line);
    if (topic === undefined || docno === undefined || rel === undefined) throw new Error(`bad qrels line: ${line}`);
    const relevance = Number(rel);
    if (!Number.isInteger(relevance)) throw new Error(`bad qrels relevance: ${line}`);
    let judgments = qrels.get(topic);
    if (judgments === undefined) qrels.set(topic, (judgments = new Map()));
    judgments.set(docno, relevance);
  }
  return qrels;
}

/** `qid Q0 docno rank sim run_id [ignored...]`, tabs or spaces; extra columns are ignored. */
export function parseRun(text: string): Run {
  const topics = new Map<string, RunResult[]>();
  let runId = "";
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    const [topic, , docno, , sim, run] = fields(line);
    if (topic === undefined || docno === undefined || sim === undefined || run === undefined) {
      throw new Error(`bad results line: ${line}`);
    }
    const score = Number(sim);
    if (Number.isNaN(score)) throw new Error(`bad results score: ${line}`);
    let results = topics.get(topic);
    if (results === undefined) topics.set(topic, (results = []));
    results.push({ id: docno, score });
    runId = run;
  }
  return { topics, runId };
}

/** `measure<TAB>topic<TAB>value` lines of an out.* file. */
export function parseExpectedOutput(text: string): ExpectedLine[] {
  const lines: ExpectedLine[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    const [measure, topic, printed] = line.split("\t").map((field) => field.trim());
    if (measure === undefined || topic === undefined || printed === undefined) throw new Error(`bad output line: ${line}`);
    lines.push({ measure, topic, printed });
  }
  return lines;
}
