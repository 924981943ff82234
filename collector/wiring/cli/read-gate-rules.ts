/**
 * Reads a gate file (the seed's release-gate format) for `gate` and `eval`:
 * the rules, or every problem as a line naming the file and the rule's path.
 */
import { readFile } from "node:fs/promises";
import { parse } from "yaml";
import { parseGateFile, type GateRule } from "../../../contracts/gate-file.js";
import { failure, success, type Result } from "../../../core/result.js";

export async function readGateRules(file: string): Promise<Result<GateRule[], string[]>> {
  let document: unknown;
  try {
    document = parse(await readFile(file, "utf8"));
  } catch (error) {
    return failure([`${file}: cannot read the gate file (${(error as Error).message.split("\n")[0]})`]);
  }
  const rules = parseGateFile(document);
  if (!rules.ok) return failure(rules.error.map((problem) => `${file}: ${problem.path || "(file)"}: ${problem.message}`));
  return success(rules.value);
}
