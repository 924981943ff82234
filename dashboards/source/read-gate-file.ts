/** Reads a gate file (YAML or JSON) and checks it against contracts/gate-file.ts. */
import { readFile } from "node:fs/promises";
import { parse } from "yaml";
import { parseGateFile, type GateRule } from "../../contracts/gate-file.js";
import { failure, type Result } from "../../core/result.js";
import { unknownGateMetrics } from "./gate-metrics.js";

export async function readGateFile(file: string): Promise<Result<GateRule[], string>> {
  let document: unknown;
  try {
    document = parse(await readFile(file, "utf8"));
  } catch (error) {
    return failure(`${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const parsed = parseGateFile(document);
  const problems = parsed.ok ? unknownGateMetrics(parsed.value) : parsed.error;
  if (parsed.ok && problems.length === 0) return parsed;
  return failure(`${file} is not a valid gate file:\n${problems.map((problem) => `  ${problem.path || "(file)"}: ${problem.message}`).join("\n")}`);
}
