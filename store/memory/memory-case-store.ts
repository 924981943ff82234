/** CaseStore in memory: the latest `put` of a (case_id, case_version) wins. */
import type { EvalCase } from "../../contracts/eval-case.js";

/** metadata.split when it is a non-blank text, else metadata.dataset_role (collector/wiring/dataset/dataset-mix.ts). */
function splitOf(evalCase: EvalCase): string {
  const metadata = evalCase.metadata as Record<string, unknown>;
  const text = (value: unknown) => (typeof value === "string" ? value.trim().toLowerCase() : "");
  return text(metadata.split) || text(metadata.dataset_role);
}
import type { CaseStore } from "../ports/case-store.js";
import type { MemoryTables } from "./memory-tables.js";

export const caseKey = (caseId: string, caseVersion: string) => `${caseId}\u0000${caseVersion}`;

export class MemoryCaseStore implements CaseStore {
  private writes = 0;

  constructor(private readonly tables: MemoryTables) {}

  async put(cases: readonly EvalCase[]): Promise<void> {
    this.writes += 1;
    for (const item of cases) this.tables.evalCases.upsert(caseKey(item.case_id, item.case_version), structuredClone(item), this.writes);
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
