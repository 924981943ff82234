/**
 * Reads a config file (`--config FILE` or RAGSCOPE_CONFIG): YAML, or JSON
 * when its name ends in `.json` (read strictly, not as YAML, which would let a
 * trailing comma pass), with the settings schema's keys. Reading and syntax
 * problems are reported with the file and line; the values are checked by the
 * schema in load-settings.ts, where precedence is applied.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { LineCounter, parseDocument } from "yaml";
import { sayUnclosedQuote } from "../../../core/unclosed-quote.js";
import { describeJsonTextProblem, parseJsonText } from "../../../core/json-text.js";
import { failure, success, type Result } from "../../../core/result.js";

export interface ConfigFile {
  /** Absolute path, as shown in messages and by `ragscope config`. */
  path: string;
  /** The parsed document; null for an empty file. */
  document: unknown;
}

export async function readConfigFile(file: string): Promise<Result<ConfigFile, string[]>> {
  const absolute = path.resolve(file);
  let text: string;
  try {
    text = await readFile(absolute, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === "ENOENT" ? "there is no such file" : code === "EISDIR" ? "it is a folder" : code === "EACCES" || code === "EPERM" ? "permission denied" : (error as Error).message.split("\n")[0];
    // A path that is right but not readable is fixed by permission, not by another path.
    const fix = code === "EACCES" || code === "EPERM" ? "give the user running ragscope read permission on it (chmod, chown), or name a copy it can read with --config (or RAGSCOPE_CONFIG)" : "check the path given to --config (or RAGSCOPE_CONFIG)";
    return failure([`config file ${absolute}: cannot read it (${reason}); ${fix}`]);
  }
  if (path.extname(absolute).toLowerCase() === ".json") {
    const json = parseJsonText(text);
    if (!json.ok) return failure([`config file ${absolute}, ${describeJsonTextProblem(json.error)} — not valid JSON; fix it, or write the settings as YAML in a .yaml file`]);
    // An empty file is an empty config in YAML; JSON.parse refuses it above, as JSON has no empty document.
    return success({ path: absolute, document: json.value });
  }
  const lineCounter = new LineCounter();
  const parsed = parseDocument(text, { prettyErrors: true, uniqueKeys: true, lineCounter });
  if (parsed.errors.length > 0) {
    return failure(
      parsed.errors.map((problem) => {
        const line = problem.linePos?.[0];
        return `config file ${absolute}${line ? `, line ${line.line} column ${line.col}` : ""}: not valid YAML or JSON (${sayUnclosedQuote(problem.message.split("\n")[0]!, parsed, problem, lineCounter)})`;
      }),
    );
  }
  return success({ path: absolute, document: parsed.toJS() as unknown });
}
