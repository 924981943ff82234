/** CaseStore in memory, with the port's rule: a stored case is kept as it is, a different one of its id and version refused. */
import { caseIdentity, planCaseWrites } from "../../contracts/eval-case-identity.js";
import type { EvalCase } from "../../contracts/eval-case.js";

/** metadata.split when it is a non-blank text, else metadata.dataset_role (collector/wiring/dataset/dataset-mix.ts). */
function splitOf(evalCase: EvalCase): string {
  const metadata = evalCase.metadata as Record<string, unknown>;
  const text = (value: unknown) => (typeof value === "string" ? value.trim().toLowerCase() : "");
  return text(metadata.split) || text(metadata.dataset_role);
}
import { StoredCaseConflictError, type CaseStore, type CaseWriteReport } from "../ports/case-store.js";
import type { MemoryTables } from "./memory-tables.js";

export const caseKey = (caseId: string, caseVersion: string) => caseIdentity({ case_id: caseId, case_version: caseVersion });

export class MemoryCaseStore implements CaseStore {
  private writes = 0;

  constructor(private readonly tables: MemoryTables) {}

  async put(cases: readonly EvalCase[]): Promise<CaseWriteReport> {
    const stored = new Map<string, EvalCase>();
    for (const item of cases) {
      const found = this.tables.evalCases.get(caseIdentity(item));
      if (found !== undefined) stored.set(caseIdentity(item), found);
    }
    const plan = planCaseWrites(cases, stored);
    if (plan.conflicts.length > 0) throw new StoredCaseConflictError(plan.conflicts);
    this.writes += 1;
    for (const item of plan.toWrite) this.tables.evalCases.upsert(caseIdentity(item), structuredClone(item), this.writes);
    return { stored: new Set(plan.toWrite.map(caseIdentity)) };
  }

  async get(caseId: string, caseVersion: string): Promise<EvalCase | null> {
    if (caseId === "") return null;
    const found = this.tables.evalCases.get(caseKey(caseId, caseVersion));
    return found === undefined ? null : structuredClone(found);
  }

  async listSplit(split: string, limit: number): Promise<EvalCase[]> {
    const wanted = split.trim().toLowerCase();
    return this.tables.evalCases.values().filter((item) => splitOf(item) === wanted).slice(0, limit).map((item) => structuredClone(item));
  }
}
