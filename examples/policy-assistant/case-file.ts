/**
 * The file run-cases.ts replays: a dataset `{ dataset_id, dataset_version, cases }`
 * (YAML or JSON) or `{ runId, cases }` as ragscope demo writes it. The header's
 * dataset_id / dataset_version fill in cases that leave them out; every case
 * is validated with the Eval Case schema.
 */
import { evalCase, type EvalCase } from "../../contracts/eval-case.js";
import { failure, success, type Result } from "../../core/result.js";

export interface CaseFile {
  runId: string;
  cases: EvalCase[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function parseCaseFile(data: unknown, runIdArgument?: string): Result<CaseFile, string[]> {
  if (!isRecord(data) || !Array.isArray(data.cases)) return failure(["expected { dataset_id, dataset_version, cases: [...] } or { runId, cases: [...] }"]);
  const header = { dataset_id: data.dataset_id, dataset_version: data.dataset_version };
  const problems: string[] = [];
  const cases: EvalCase[] = [];
  data.cases.forEach((raw: unknown, index) => {
    const withHeader = isRecord(raw) ? { ...raw, dataset_id: raw.dataset_id ?? header.dataset_id, dataset_version: raw.dataset_version ?? header.dataset_version } : raw;
    const parsed = evalCase.safeParse(withHeader);
    if (parsed.success) cases.push(parsed.data);
    else for (const issue of parsed.error.issues) problems.push(`cases[${index}].${issue.path.join(".")}: ${issue.message}`);
  });
  if (problems.length > 0) return failure(problems);
  const first = cases[0];
  const fileRunId = typeof data.runId === "string" && data.runId !== "" ? data.runId : undefined;
  const runId = runIdArgument ?? fileRunId ?? (first ? `local-${first.dataset_id}-${first.dataset_version}` : "local");
  return success({ runId, cases });
}
