/**
 * Reads a gate file (the seed's release-gate format) — for `gate`, `eval`,
 * the online alerts and the alert rules generated from it, one reader for all:
 * the rules and the score weights, or every problem as a line naming the file
 * and the rule's path, a metric ragscope does not measure included.
 */
import { readFile } from "node:fs/promises";
import { parse } from "yaml";
import { parseGateDocument, type GateDocument } from "../../contracts/gate-file.js";
import { failure, success, type Result } from "../../core/result.js";
import { unknownGateMetrics } from "./gate-metrics.js";

export async function readGateFile(file: string): Promise<Result<GateDocument, string[]>> {
  let document: unknown;
  try {
    document = parse(await readFile(file, "utf8"));
  } catch (error) {
    return failure([`${file}: ${(error as Error).message.split("\n")[0]} — the gate file cannot be read`]);
  }
  const parsed = parseGateDocument(document);
  const problems = parsed.ok ? unknownGateMetrics(parsed.value.rules) : parsed.error;
  if (!parsed.ok || problems.length > 0) return failure(problems.map((problem) => `${file}: ${problem.path || "(file)"}: ${problem.message}`));
  return success(parsed.value);
}
