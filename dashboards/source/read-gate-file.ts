/**
 * Reads a gate file (the seed's release-gate format) — for `gate`, `eval`,
 * the online alerts and the alert rules generated from it, one reader for all:
 * the rules and the score weights, or every problem as a line naming the file
 * and the rule's path, a metric ragscope does not measure included.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { LineCounter, parseDocument } from "yaml";
import { sayUnclosedQuote } from "../../core/unclosed-quote.js";
import { parseGateDocument, parseRules, SCORE_WEIGHTS_KEY, type GateDocument } from "../../contracts/gate-file.js";
import { describeUnreadableFile } from "../../core/file-access-problems.js";
import { describeJsonTextProblem, parseJsonText } from "../../core/json-text.js";
import { failure, success, type Result } from "../../core/result.js";
import { unknownGateMetrics } from "./gate-metrics.js";
import { constantGateRules } from "./constant-gate-rules.js";

export async function readGateFile(file: string): Promise<Result<GateDocument, string[]>> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    // The words every command uses for a file it cannot read (not found, a folder, no permission), with the fix.
    return failure([describeUnreadableFile(file, error, "gate file")]);
  }
  let document: unknown;
  if (path.extname(file).toLowerCase() === ".json") {
    // Strict JSON, as its name says: YAML would let a trailing comma or a comment pass.
    const json = parseJsonText(text);
    if (!json.ok) return failure([`${file}: ${describeJsonTextProblem(json.error)} — the gate file is not valid JSON`]);
    document = json.value;
  } else {
    const lineCounter = new LineCounter();
    const yaml = parseDocument(text, { prettyErrors: true, lineCounter });
    const error = yaml.errors[0];
    if (error !== undefined) return failure([`${file}: ${sayUnclosedQuote(error.message.split("\n")[0]!, yaml, error, lineCounter)} — the gate file is not valid YAML or JSON`]);
    document = yaml.toJS() as unknown;
  }
  const parsed = parseGateDocument(document);
  // Every problem in one pass: the shape's, and the names of the rules that are well formed.
  const wellFormed = parsed.ok ? parsed.value.rules : parseRules(withoutScoreWeights(document)).rules;
  const problems = [...(parsed.ok ? [] : parsed.error), ...unknownGateMetrics(wellFormed), ...constantGateRules(wellFormed)];
  if (parsed.ok && parsed.value.rules.length === 0) {
    problems.push({ path: "", message: 'the gate file declares no rule, so its gate would pass any run; add a section such as retrieval: { recall_at_5: ">= 0.9" }' });
  }
  if (!parsed.ok || problems.length > 0) return failure(problems.map((problem) => `${file}: ${problem.path || "(file)"}: ${problem.message}`));
  return success(parsed.value);
}

function withoutScoreWeights(document: unknown): unknown {
  if (typeof document !== "object" || document === null || Array.isArray(document)) return document;
  const { [SCORE_WEIGHTS_KEY]: _weights, ...sections } = document as Record<string, unknown>;
  return sections;
}
